package runner

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/tokens"
)

// MaxRetries bounds how often one model call is retried after a rate-limit
// or overload response; MaxRetryWait bounds one wait. Beyond either, the
// agent gets the provider's response as it came.
const (
	MaxRetries   = 5
	MaxRetryWait = 2 * time.Minute
)

// Limits pace a recording's model requests (testbed record --rpm, --tpm):
// requests per minute and prompt tokens per minute, over every scenario run
// at once; 0 is no limit. They use the wall clock: they pace real traffic.
type Limits struct {
	RPM, TPM int

	once     sync.Once
	requests *rate.Limiter
	tokens   *rate.Limiter
}

func (l *Limits) init() {
	l.once.Do(func() {
		if l.RPM > 0 {
			l.requests = rate.NewLimiter(rate.Limit(float64(l.RPM)/60), 1)
		}
		if l.TPM > 0 {
			l.tokens = rate.NewLimiter(rate.Limit(float64(l.TPM)/60), l.TPM)
		}
	})
}

// wait holds a request of n prompt tokens until the limits allow it.
func (l *Limits) wait(ctx context.Context, n int) error {
	l.init()
	if l.requests != nil {
		if err := l.requests.Wait(ctx); err != nil {
			return err
		}
	}
	if l.tokens != nil {
		if err := l.tokens.WaitN(ctx, min(max(n, 1), l.TPM)); err != nil {
			return err
		}
	}
	return nil
}

// sleepFor waits d or until ctx ends: the wall clock's sleep, the default
// of Options.Sleep.
func sleepFor(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retrying sends a recording's model requests under the run's limits and
// waits out a provider's 429, 503 and 529 that say when to come back
// (Retry-After, or OpenAI's retry-after-ms), so that the cassette holds
// what the agent would get from an unloaded provider. A fault a stand-in
// injected on purpose (marked with cassette.FaultHeader) reaches the agent
// as it is.
type retrying struct {
	next    http.RoundTripper
	sleep   func(context.Context, time.Duration) error
	limits  *Limits
	counter *tokens.Counter // set once the run has one

	mu      sync.Mutex
	retries int
	waited  time.Duration
}

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	if !(isModelPath(req.URL.Path) || strings.HasSuffix(req.URL.Path, "/responses")) {
		return t.next.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	for attempt := 0; ; attempt++ {
		if t.limits != nil {
			n := len(body) / 4
			if t.counter != nil {
				n = t.counter.CountBytes(body)
			}
			if err := t.limits.wait(req.Context(), n); err != nil {
				return nil, err
			}
		}
		try := req.Clone(req.Context())
		try.Body = io.NopCloser(bytes.NewReader(body))
		resp, err := t.next.RoundTrip(try)
		if err != nil || attempt == MaxRetries {
			return resp, err
		}
		d, ok := retryAfter(resp)
		if !ok || d > MaxRetryWait {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		t.mu.Lock()
		t.retries++
		t.waited += d
		t.mu.Unlock()
		if err := t.sleep(req.Context(), d); err != nil {
			return nil, err
		}
	}
}

// retryAfter says how long a rate-limit or overload response asks to wait;
// false when it is not one, or does not say, or a stand-in injected it.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable, 529:
	default:
		return 0, false
	}
	if resp.Header.Get(cassette.FaultHeader) != "" {
		return 0, false
	}
	if ms, err := strconv.Atoi(resp.Header.Get("retry-after-ms")); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond, true
	}
	v := resp.Header.Get("Retry-After")
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(at)), true
	}
	return 0, false
}

// counts is what the run waited out.
func (t *retrying) counts() (int, time.Duration) {
	if t == nil {
		return 0, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.retries, t.waited
}
