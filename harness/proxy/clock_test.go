package proxy_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/proxy"
)

// ticking is a session's transport whose every exchange moves the
// scenario's clock by a second and a half, as a replayed call moves it by
// its recorded duration; stream answers with an event stream.
type ticking struct {
	mu     sync.Mutex
	now    time.Time
	stream bool
}

func (t *ticking) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.now = t.now.Add(1500 * time.Millisecond)
	t.mu.Unlock()
	h, body := http.Header{"Content-Type": {"application/json"}}, `{"ok": true}`
	if t.stream {
		h.Set("Content-Type", "text/event-stream")
		body = "data: {}\n\n"
	}
	return &http.Response{StatusCode: http.StatusOK, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

func (t *ticking) Close() error { return nil }

func (t *ticking) clock() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.now
}

var _ = Describe("the scenario's clock on the proxy's answers", func() {
	var (
		p     *proxy.Proxy
		start = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	)
	BeforeEach(func() {
		p = startProxy()
	})
	call := func(base string) *http.Response {
		GinkgoHelper()
		resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
		Expect(err).NotTo(HaveOccurred())
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}

	It("is the clock once the exchange was counted, on an answer given whole", func() {
		tr := &ticking{now: start}
		_, base := p.Open(proxy.Session{Transport: tr, Model: logicalModel, Clock: tr.clock})
		for i := 1; i <= 3; i++ {
			resp := call(base)
			Expect(resp.Header.Get(proxy.ClockHeader)).To(Equal(start.Add(time.Duration(i) * 1500 * time.Millisecond).Format(time.RFC3339Nano)))
		}
	})

	DescribeTable("is not said",
		func(tr *ticking, clock bool) {
			s := proxy.Session{Transport: tr, Model: logicalModel}
			if clock {
				s.Clock = tr.clock
			}
			_, base := p.Open(s)
			Expect(call(base).Header.Values(proxy.ClockHeader)).To(BeEmpty())
		},
		Entry("on a stream, which may be counted only once it has been read", &ticking{now: start, stream: true}, true),
		Entry("in a session without a clock", &ticking{now: start}, false),
	)
})
