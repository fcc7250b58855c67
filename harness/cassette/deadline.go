package cassette

import (
	"context"
	"fmt"
	"net/http"
	"sync"
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
// The time left is read when the first request on the deadline is sent
// (Deadlines) and rounded up to a multiple of deadlineGrain, so that the
// microseconds spent between setting a timeout and sending the request do
// not make replayed latencies differ from run to run. It is judged per
// request: a deadline shared by several requests is not charged for the
// recorded durations of the earlier ones, nor for the wall time between
// them.

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
func (d *Deadlines) overdue(req *http.Request, url string, took time.Duration) *DeadlineError {
	left, ok := d.TimeLeft(req.Context())
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
	return context.WithValue(ctx, timeLeft{}, left)
}

type timeLeft struct{}

// Deadlines keeps, for each deadline its requests have, the time that was
// left before it when the first of them was sent. A later request on the
// same deadline (an MCP session's tool call after its initialize, under
// one timeout) is judged on that time too: the wall time the agent took
// between them, longer on a busy machine, does not count, as the virtual
// clock counts none of it. The zero value is ready to use.
type Deadlines struct {
	mu   sync.Mutex
	left map[time.Time]time.Duration
}

// TimeLeft is the time left before the deadline of ctx, a request's
// context: the one WithTimeLeft gave it, else the one when the first
// request on its deadline was sent (now, for the first); false when ctx
// has no deadline.
func (d *Deadlines) TimeLeft(ctx context.Context) (time.Duration, bool) {
	if left, ok := ctx.Value(timeLeft{}).(time.Duration); ok {
		return left, true
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return 0, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	left, seen := d.left[dl]
	if !seen {
		left = time.Until(dl)
		if d.left == nil {
			d.left = map[time.Time]time.Duration{}
		}
		d.left[dl] = left
	}
	return left, true
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
