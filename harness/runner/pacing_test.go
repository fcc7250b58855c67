package runner_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/runner"
)

// fakeClock is an injected clock: Sleep records the wait and, when it
// advances, moves the time on by it; nothing sleeps.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	advances bool
	slept    []time.Duration
}

func newFakeClock(advances bool) *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC), advances: advances}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	if c.advances {
		c.now = c.now.Add(d)
	}
	return ctx.Err()
}

func (c *fakeClock) waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}

var _ = Describe("pacing a recording with --rpm and --tpm", func() {
	DescribeTable("spaces requests, one after the other, as the budgets allow",
		func(rpm, tpm int, sizes []int, want []time.Duration) {
			clock := newFakeClock(true)
			l := &runner.Limits{RPM: rpm, TPM: tpm, Now: clock.Now, Sleep: clock.Sleep}
			start := clock.Now()
			var sent []time.Duration
			for _, n := range sizes {
				Expect(l.Wait(context.Background(), n)).To(Succeed())
				sent = append(sent, clock.Now().Sub(start))
			}
			Expect(sent).To(Equal(want))
		},
		Entry("--rpm 60: a second apart, the first at once", 60, 0, []int{10, 10, 10, 10},
			[]time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}),
		Entry("--rpm 600: 100 ms apart", 600, 0, []int{10, 10, 10},
			[]time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}),
		// 100 tokens a second, 6,000 at once: two of 3,000 go at once, the
		// third waits for 3,000 to come back (30 s), the fourth for 1,500
		// more (15 s)
		Entry("--tpm 6000 with requests of known tokens", 0, 6000, []int{3000, 3000, 3000, 1500},
			[]time.Duration{0, 0, 30 * time.Second, 45 * time.Second}),
		// a request over the budget waits for a whole minute's worth
		Entry("--tpm 6000 and a request of 9,000 tokens", 0, 6000, []int{6000, 9000},
			[]time.Duration{0, time.Minute}),
		// the second request's turn under --rpm is at 1 s, when 2,100 of
		// its 4,000 tokens are back; 1,900 more take 19 s
		Entry("--rpm 60 and --tpm 6000 together", 60, 6000, []int{4000, 4000},
			[]time.Duration{0, 20 * time.Second}),
	)

	It("gives back what a request booked when its context ends while it waits", func() {
		clock := newFakeClock(false)
		l := &runner.Limits{RPM: 60, Now: clock.Now, Sleep: clock.Sleep}
		Expect(l.Wait(context.Background(), 1)).To(Succeed())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		Expect(l.Wait(ctx, 1)).To(MatchError(context.Canceled))
		// the cancelled request's turn is free again: the next one waits
		// for the first's second to pass, not for two
		Expect(l.Wait(context.Background(), 1)).To(Succeed())
		Expect(clock.waits()).To(Equal([]time.Duration{time.Second, time.Second}))
	})

	It("spaces concurrent scenario runs' requests over one budget (--concurrency 4 --rpm 120)", func() {
		clock := newFakeClock(false) // all four arrive at the same instant
		l := &runner.Limits{RPM: 120, Now: clock.Now, Sleep: clock.Sleep}
		var calls sync.WaitGroup
		for range 4 {
			rt, _ := runner.NewRetrying(answer(http.StatusOK, nil), l, clock.Now, clock.Sleep)
			calls.Go(func() {
				defer GinkgoRecover()
				resp, err := rt.RoundTrip(chatRequest())
				Expect(err).NotTo(HaveOccurred())
				Expect(resp.StatusCode).To(Equal(http.StatusOK))
			})
		}
		calls.Wait()
		waits := clock.waits()
		slices.Sort(waits)
		Expect(waits).To(Equal([]time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond}), "one went at once, the others half a second apart")
	})
})

var _ = Describe("waiting out a loaded provider while recording", func() {
	It("waits out a 429, a 503 and a 529 as their Retry-After says, retries, and counts them", func() {
		clock := newFakeClock(true)
		// the 503 comes 2 s in, and asks to come back at 7 s
		date := clock.Now().Add(7 * time.Second).Format(http.TimeFormat)
		next := sequence(
			answer(http.StatusTooManyRequests, http.Header{"Retry-After": {"2"}}),
			answer(http.StatusServiceUnavailable, http.Header{"Retry-After": {date}}),
			answer(529, http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}),
			answer(http.StatusOK, nil),
		)
		rt, counts := runner.NewRetrying(next, &runner.Limits{RPM: 600, Now: clock.Now, Sleep: clock.Sleep}, clock.Now, clock.Sleep)
		resp, err := rt.RoundTrip(chatRequest())
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "the agent sees what an unloaded provider answers")
		// each retry waits its Retry-After, then its turn under --rpm 600
		// (100 ms after the try before, long past)
		Expect(clock.waits()).To(Equal([]time.Duration{2 * time.Second, 5 * time.Second, 1500 * time.Millisecond}))
		n, waited := counts()
		Expect(n).To(Equal(3))
		Expect(waited).To(Equal(8500 * time.Millisecond))
	})

	DescribeTable("hands the agent the response as it came",
		func(next http.RoundTripper, status int) {
			clock := newFakeClock(true)
			rt, counts := runner.NewRetrying(next, nil, clock.Now, clock.Sleep)
			resp, err := rt.RoundTrip(chatRequest())
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.StatusCode).To(Equal(status))
			n, _ := counts()
			Expect(n).To(BeZero())
			Expect(clock.waits()).To(BeEmpty())
		},
		Entry("a 429 that does not say when", answer(http.StatusTooManyRequests, nil), http.StatusTooManyRequests),
		Entry("a wait over MaxRetryWait", answer(http.StatusTooManyRequests, http.Header{"Retry-After": {"600"}}), http.StatusTooManyRequests),
		Entry("a fault a stand-in injected on purpose", answer(http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}, cassette.FaultHeader: {"429"}}), http.StatusTooManyRequests),
		Entry("a 500", answer(http.StatusInternalServerError, http.Header{"Retry-After": {"1"}}), http.StatusInternalServerError),
	)

	It("waits out a 503 of Ollama's native chat as a model call's, not an upstream's", func() {
		clock := newFakeClock(true)
		rt, counts := runner.NewRetrying(sequence(answer(http.StatusServiceUnavailable, http.Header{"Retry-After": {"1"}}), answer(http.StatusOK, nil)), nil, clock.Now, clock.Sleep)
		req, err := http.NewRequest(http.MethodPost, "http://localhost:11434/api/chat", strings.NewReader(`{"model":"qwen3:14b","messages":[{"role":"user","content":"hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		resp, err := rt.RoundTrip(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		n, _ := counts()
		Expect(n).To(Equal(1))
	})

	It("gives up after MaxRetries and hands on the last response", func() {
		clock := newFakeClock(true)
		rt, counts := runner.NewRetrying(answer(http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}}), nil, clock.Now, clock.Sleep)
		resp, err := rt.RoundTrip(chatRequest())
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests))
		n, waited := counts()
		Expect(n).To(Equal(runner.MaxRetries))
		Expect(waited).To(Equal(time.Duration(runner.MaxRetries) * time.Second))
	})
})

// chatRequest is a model request, as an agent sends it.
func chatRequest() *http.Request {
	req, err := http.NewRequest(http.MethodPost, "https://api.openai.com/v1/chat/completions", strings.NewReader(`{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`))
	Expect(err).NotTo(HaveOccurred())
	return req
}

// answer is a transport that answers every request with status and header.
func answer(status int, h http.Header) http.RoundTripper {
	return roundTrip(func(*http.Request) (*http.Response, error) {
		if h == nil {
			h = http.Header{}
		}
		return &http.Response{StatusCode: status, Header: h.Clone(), Body: io.NopCloser(strings.NewReader(`{}`))}, nil
	})
}

// sequence answers with each transport in turn, the last one from then on.
func sequence(ts ...http.RoundTripper) http.RoundTripper {
	var mu sync.Mutex
	i := 0
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		t := ts[min(i, len(ts)-1)]
		i++
		mu.Unlock()
		return t.RoundTrip(r)
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
