package main

import (
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/agentreplay/testbed/harness/proxy"
)

// runClock is a built-in agent's clock when it runs outside testbed: the
// scenario's clock, read from the proxy session (TESTBED_CLOCK_URL). Only
// the session's exchanges move that clock, and the proxy says what it is
// after each exchange it answers whole (proxy.ClockHeader). So after a call
// that was the only one from its start to its end, and until the next one
// starts, the clock is the one its answer said; before the first call it
// is TESTBED_NOW when that is the run's own (the run's first line said it,
// or the program was started for the run); any other time (after a stream
// or an error, while calls overlap) it is read from the session. One per
// scenario run: a kept program's next run has a clock of its own.
type runClock struct {
	hc  *http.Client
	url string
	def time.Time // when the clock cannot be read

	mu       sync.Mutex
	inflight int       // calls sent whose answers are not yet closed
	calls    uint64    // calls sent so far
	known    bool      // at is the clock now
	at       time.Time // the clock the last call's answer said
}

// Now is the scenario's clock now.
func (c *runClock) Now() time.Time {
	c.mu.Lock()
	known, at := c.known, c.at
	c.mu.Unlock()
	if known {
		return at
	}
	resp, err := c.hc.Get(c.url)
	if err != nil {
		return c.def
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return c.def
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return c.def
	}
	return t
}

// sent counts a call on its way: its number, and whether no other call was
// in flight.
func (c *runClock) sent() (seq uint64, alone bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	alone = c.inflight == 0
	c.inflight++
	c.known = false
	return c.calls, alone
}

// closed counts the end of call seq's answer, which said the clock said
// (zero when it did not).
func (c *runClock) closed(seq uint64, alone bool, said time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight--
	c.known = !said.IsZero() && alone && c.calls == seq && c.inflight == 0
	c.at = said
}

// clockWatch tells a runClock of each call through it and of the end of
// its answer.
type clockWatch struct {
	clock *runClock
	next  http.RoundTripper
}

func (w clockWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	seq, alone := w.clock.sent()
	resp, err := w.next.RoundTrip(req)
	if err != nil {
		w.clock.closed(seq, alone, time.Time{})
		return resp, err
	}
	said, perr := time.Parse(time.RFC3339Nano, resp.Header.Get(proxy.ClockHeader))
	if perr != nil {
		said = time.Time{}
	}
	resp.Body = &endWatch{ReadCloser: resp.Body, end: func() { w.clock.closed(seq, alone, said) }}
	return resp, nil
}

// endWatch calls end once, when its body is read to the end or closed.
type endWatch struct {
	io.ReadCloser
	once sync.Once
	end  func()
}

func (b *endWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.end)
	}
	return n, err
}

func (b *endWatch) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.end)
	return err
}
