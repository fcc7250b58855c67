package external_test

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

// slowCassette answers like seen, after a pause: the time a cassette takes.
type slowCassette struct {
	seen
	pause time.Duration
}

func (s *slowCassette) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(s.pause)
	return s.seen.RoundTrip(r)
}

// streamedCassette answers every call with a one-chunk Chat Completions
// stream.
type streamedCassette struct{}

func (streamedCassette) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// slowReader is a tracer that takes a while over each model call it is
// told of: the time reading the traffic takes.
type slowReader struct {
	notes
	pause time.Duration
}

func (s *slowReader) ModelCall(llm.Request, string, llm.Response, error, time.Duration) {
	time.Sleep(s.pause)
}

// timed runs spec once for one turn and returns where its wall time went.
func timed(spec external.Spec, cassette http.RoundTripper) agents.Timing {
	GinkgoHelper()
	return timedWith(spec, cassette, &notes{})
}

// timedWith is timed with tracer told what the traffic shows.
func timedWith(spec external.Spec, cassette http.RoundTripper, tracer agents.Tracer) agents.Timing {
	GinkgoHelper()
	cfg := agents.Config{
		HTTP: &http.Client{Transport: cassette}, Tracer: tracer, Clock: func() time.Time { return time.Unix(0, 0) },
		Endpoint:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
		Upstreams: map[string]string{"notes": "https://notes.example"},
	}
	a, err := external.New(spec, GinkgoT().TempDir())(cfg)
	Expect(err).NotTo(HaveOccurred())
	_, err = a.Run(context.Background(), agents.Input{Turns: []string{"a"}})
	Expect(err).NotTo(HaveOccurred())
	t, ok := a.(agents.Timed)
	Expect(ok).To(BeTrue(), "an outside agent says where its wall time went")
	return t.Timing()
}

var _ = Describe("where an outside agent's wall time goes", func() {
	It("counts the program's start until its first sign of life, and the time in its calls apart", func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		// Slow to start (0.3 s before it reads), then one upstream call that
		// the cassette answers in 0.2 s, then 0.2 s of its own work.
		script := `sleep 0.3; read l; curl -s -o /dev/null "$NOTES_BASE_URL/x"; sleep 0.2; echo '{"text":"done"}'`
		t := timed(external.Spec{Command: []string{"sh", "-c", script}}, &slowCassette{pause: 200 * time.Millisecond})
		Expect(t.Start).To(BeNumerically(">=", 300*time.Millisecond))
		Expect(t.Calls).To(BeNumerically(">=", 200*time.Millisecond))
		Expect(t.Total).To(BeNumerically(">=", t.Start+t.Calls+200*time.Millisecond))
	})

	It("counts reading a streamed answer as traffic in the time of its calls, as it does a whole one's", func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		script := `read l; curl -s -o /dev/null "$OPENAI_BASE_URL/chat/completions" -H 'Content-Type: application/json' -d '{"model":"m","stream":true,"messages":[{"role":"user","content":"a"}]}'; echo '{"text":"done"}'`
		t := timedWith(external.Spec{Command: []string{"sh", "-c", script}}, streamedCassette{}, &slowReader{pause: 200 * time.Millisecond})
		Expect(t.Calls).To(BeNumerically(">=", 200*time.Millisecond))
	})

	It("counts no start for a run a kept program serves", func() {
		pool := external.NewPool()
		DeferCleanup(pool.Close)
		spec := external.Spec{Command: []string{"sh", "-c", `sleep 0.2; while read l; do echo '{"text":"hi"}'; done`}, KeepAlive: true, Pool: pool}
		first := timed(spec, &seen{})
		Expect(first.Start).To(BeNumerically(">=", 200*time.Millisecond))
		second := timed(spec, &seen{})
		Expect(second.Start).To(BeZero())
		Expect(second.Calls).To(BeZero(), "it made no call")
		Expect(second.Total).To(BeNumerically(">", 0))
	})
})
