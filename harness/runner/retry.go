package runner

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
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
// at once; 0 is no limit. Requests go out no closer than a minute over RPM
// apart (no burst); prompt tokens flow at TPM a minute, with a minute's
// worth at most at once, and a request larger than TPM waits for a whole
// minute's worth. Safe for concurrent use.
type Limits struct {
	RPM, TPM int
	// Now and Sleep are the clock the pacing reads and waits on: nil is
	// the wall clock's (it paces real traffic); specs inject a fake one.
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error

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

// Wait holds a request of n prompt tokens until the limits allow it: it
// books the request's turn under RPM, then its tokens under TPM from that
// turn on, and sleeps until both allow it. When ctx ends first, its
// bookings are given back and ctx's error returned.
func (l *Limits) Wait(ctx context.Context, n int) error {
	l.init()
	now, sleep := time.Now, sleepFor
	if l.Now != nil {
		now = l.Now
	}
	if l.Sleep != nil {
		sleep = l.Sleep
	}
	start := now()
	at := start // when the request may go
	var booked []*rate.Reservation
	if l.requests != nil {
		r := l.requests.ReserveN(at, 1)
		booked = append(booked, r)
		at = at.Add(r.DelayFrom(at))
	}
	if l.tokens != nil {
		r := l.tokens.ReserveN(at, min(max(n, 1), l.TPM))
		booked = append(booked, r)
		at = at.Add(r.DelayFrom(at))
	}
	if d := at.Sub(start); d > 0 {
		if err := sleep(ctx, d); err != nil {
			for _, r := range booked {
				r.CancelAt(now())
			}
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
	now     func() time.Time // for a Retry-After given as a date
	sleep   func(context.Context, time.Duration) error
	limits  *Limits
	counter *tokens.Counter // set once the run has one
	// upstreams are the agent's upstreams' hosts, whose calls are never
	// retried as model calls.
	upstreams upstreamHosts

	mu      sync.Mutex
	retries int
	waited  time.Duration
}

func (t *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.upstreams.isModelCall(req.URL) {
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
			if err := t.limits.Wait(req.Context(), n); err != nil {
				return nil, err
			}
		}
		try := req.Clone(req.Context())
		try.Body = io.NopCloser(bytes.NewReader(body))
		resp, err := t.next.RoundTrip(try)
		if err != nil || attempt == MaxRetries {
			return resp, err
		}
		d, ok := retryAfter(resp, t.now())
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

// retryAfter says how long a rate-limit or overload response asks to wait,
// at now; false when it is not one, or does not say, or a stand-in
// injected it.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
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
		return max(0, at.Sub(now)), true
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
