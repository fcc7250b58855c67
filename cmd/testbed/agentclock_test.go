package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/proxy"
)

// clockSession is a proxy session's stand-in for a built-in agent's clock:
// each call moves the clock by a second and says it (a call to /stream
// does not say it, as a stream's answer does not); /clock says it and
// counts the reads; a call to /held waits for release.
type clockSession struct {
	srv     *httptest.Server
	mu      sync.Mutex
	now     time.Time
	reads   atomic.Int32
	release chan struct{}
}

func newClockSession(start time.Time) *clockSession {
	s := &clockSession{now: start, release: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/held" {
			<-s.release
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.URL.Path == "/clock" {
			s.reads.Add(1)
			io.WriteString(w, s.now.Format(time.RFC3339Nano))
			return
		}
		s.now = s.now.Add(time.Second)
		if r.URL.Path != "/stream" {
			w.Header().Set(proxy.ClockHeader, s.now.Format(time.RFC3339Nano))
		}
		io.WriteString(w, `{}`)
	}))
	DeferCleanup(s.srv.Close)
	return s
}

var _ = Describe("a built-in agent's clock outside testbed", func() {
	var (
		start = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
		s     *clockSession
		clock *runClock
		hc    *http.Client
	)
	BeforeEach(func() {
		s = newClockSession(start)
		clock = &runClock{hc: http.DefaultClient, url: s.srv.URL + "/clock", def: start}
		hc = &http.Client{Transport: clockWatch{clock: clock, next: http.DefaultTransport}}
	})
	call := func(path string) {
		GinkgoHelper()
		resp, err := hc.Post(s.srv.URL+path, "application/json", strings.NewReader(`{}`))
		Expect(err).NotTo(HaveOccurred())
		io.Copy(io.Discard, resp.Body)
		Expect(resp.Body.Close()).To(Succeed())
	}

	It("is read from the session before the first call, then taken from each answer until the next call", func() {
		Expect(clock.Now()).To(Equal(start))
		Expect(s.reads.Load()).To(BeEquivalentTo(1))
		for i := 1; i <= 3; i++ {
			call("/call")
			Expect(clock.Now()).To(Equal(start.Add(time.Duration(i) * time.Second)))
			Expect(clock.Now()).To(Equal(start.Add(time.Duration(i) * time.Second)))
		}
		Expect(s.reads.Load()).To(BeEquivalentTo(1), "no read after an answer that said the clock")
	})

	It("is read from the session after an answer that did not say it, until one does", func() {
		call("/call")
		call("/stream")
		Expect(clock.Now()).To(Equal(start.Add(2 * time.Second)))
		Expect(clock.Now()).To(Equal(start.Add(2 * time.Second)))
		Expect(s.reads.Load()).To(BeEquivalentTo(2))
		call("/call")
		Expect(clock.Now()).To(Equal(start.Add(3 * time.Second)))
		Expect(s.reads.Load()).To(BeEquivalentTo(2))
	})

	It("is read from the session while a call is in flight, and after calls that overlapped", func() {
		call("/call")
		done := make(chan struct{})
		go func() {
			defer GinkgoRecover()
			defer close(done)
			call("/held")
		}()
		Eventually(func() int {
			clock.mu.Lock()
			defer clock.mu.Unlock()
			return clock.inflight
		}).Should(Equal(1))
		Expect(clock.Now()).To(Equal(start.Add(time.Second)))
		Expect(s.reads.Load()).To(BeEquivalentTo(1), "the answer said the clock, but a call is in flight")
		call("/call") // overlaps the held one, and moves the clock first
		close(s.release)
		<-done
		Expect(clock.Now()).To(Equal(start.Add(3 * time.Second)))
		Expect(s.reads.Load()).To(BeEquivalentTo(2), "the calls overlapped: neither answer is the clock")
	})

	It("is the start when the session cannot be read", func() {
		s.srv.Close()
		Expect(clock.Now()).To(Equal(start))
	})
})

var _ = Describe("a built-in agent's clock at the start of a run outside testbed", func() {
	DescribeTable("is TESTBED_NOW until the first call only when that is the run's own",
		func(started bool, want time.Duration, reads int) {
			told := time.Date(2026, 3, 14, 9, 0, 0, 500_000_000, time.UTC)
			s := newClockSession(told.Add(time.Hour))
			env := map[string]string{
				"TESTBED_PROVIDER": "openai", "TESTBED_MODEL": "m", "OPENAI_BASE_URL": s.srv.URL + "/v1",
				"TESTBED_NOW": told.Format(time.RFC3339Nano), "TESTBED_CLOCK_URL": s.srv.URL + "/clock",
			}
			cfg, _, err := agentConfig(context.Background(), all.Registry()["odbchat"].Info, GinkgoT().TempDir(), func(k string) string { return env[k] }, started)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.Clock()).To(Equal(told.Add(want)))
			Expect(s.reads.Load()).To(BeEquivalentTo(reads))
		},
		Entry("said by the run's first line, or the program was started for the run", true, time.Duration(0), 0),
		Entry("an earlier run's, in the environment a kept program started with", false, time.Hour, 1),
	)
})
