package cassette

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// A replay never waits, and a recording against the stand-ins waits only for
// modelled latency, so an agent's own per-request timeout (a deadline on the
// request's context, as production code sets one) would never fire. The
// transports judge it on the exchange's recorded or modelled duration
// instead: an exchange that lasts as long as the time left before the
// request's deadline, or longer, ends as the client's timeout after that
// time, the same in recording and in replay.
//
// The time left is read when the request is sent and rounded up to a
// multiple of deadlineGrain, so that the microseconds spent between setting
// a timeout and sending the request do not make replayed latencies differ
// from run to run. It is judged per request: a deadline shared by several
// requests is not charged for the recorded durations of the earlier ones.

// DeadlineError is the error a request gets when its exchange outlasts the
// deadline on its context. It is a net.Error whose Timeout is true, and it
// unwraps to context.DeadlineExceeded, as an *http.Client's timeout does.
type DeadlineError struct {
	Method, URL string
	Waited      time.Duration // the time left before the deadline when the request was sent
	Took        time.Duration // the exchange's recorded or modelled duration
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("%s %s: timeout: no answer within the request's deadline (%s left; the recorded exchange took %s)",
		e.Method, e.URL, e.Waited.Round(time.Millisecond), e.Took)
}

// Timeout reports true: the request timed out.
func (e *DeadlineError) Timeout() bool { return true }

// Temporary reports true, as net.Error timeouts do.
func (e *DeadlineError) Temporary() bool { return true }

// Unwrap returns context.DeadlineExceeded.
func (e *DeadlineError) Unwrap() error { return context.DeadlineExceeded }

// overdue returns the error for an exchange of duration took on req when it
// outlasts req's deadline, else nil. The caller closes the response body.
func overdue(req *http.Request, url string, took time.Duration) *DeadlineError {
	left, ok := timeLeft(req.Context())
	if !ok {
		return nil
	}
	left = roundUp(max(left, 0), deadlineGrain)
	if took < left {
		return nil
	}
	return &DeadlineError{Method: req.Method, URL: url, Waited: left, Took: took}
}

// WithTimeLeft returns ctx, the context of a request that another process
// sent with its own deadline, with the time that was left before that
// deadline when the request was sent. The transports judge the deadline on
// it, not on the wall time left when the request reaches them, which the
// hop between the processes would shorten by however long it took on a
// loaded machine.
func WithTimeLeft(ctx context.Context, left time.Duration) context.Context {
	return context.WithValue(ctx, timeLeftKey{}, left)
}

type timeLeftKey struct{}

// timeLeft is the time left before ctx's deadline when its request was
// sent; false when it has none.
func timeLeft(ctx context.Context) (time.Duration, bool) {
	if left, ok := ctx.Value(timeLeftKey{}).(time.Duration); ok {
		return left, true
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return 0, false
	}
	return time.Until(dl), true
}

// deadlineGrain is the precision of a deadline's time left.
const deadlineGrain = 100 * time.Millisecond

// roundUp rounds d up to a multiple of m.
func roundUp(d, m time.Duration) time.Duration {
	if r := d % m; r != 0 {
		return d + m - r
	}
	return d
}
