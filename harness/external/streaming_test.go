package external_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/external"
)

// streamAgent is a JSON-lines agent (FAKE_AGENT=stream) that, for each
// turn, streams a chat completion through its base URL, creates $MARK once
// the first event has arrived, reads the stream to its end and answers with
// the number of events.
func streamAgent() int {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		resp, err := http.Post(os.Getenv("OPENAI_BASE_URL")+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		events := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data:") {
				events++
				if events == 1 {
					os.WriteFile(os.Getenv("MARK"), nil, 0o644)
				}
			}
		}
		resp.Body.Close()
		fmt.Printf("{\"text\": \"%d events\"}\n", events)
	}
	return 0
}

// paced answers a streamed model call event by event: the first at once,
// the rest once mark exists (the agent has the first), or a minute later.
type paced struct {
	mark    string
	arrived chan bool // whether the agent had the first event before the rest were sent
}

func (p *paced) RoundTrip(r *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		arrived := false
		for range 600 {
			if _, err := os.Stat(p.mark); err == nil {
				arrived = true
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		p.arrived <- arrived
		io.WriteString(pw, "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		pw.Close()
	}()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, Request: r}, nil
}

var _ = Describe("an outside agent streaming a model call", func() {
	It("gets each event through the proxy as it arrives, and the call is read whole once the stream ends", func() {
		mark := filepath.Join(GinkgoT().TempDir(), "first")
		tape := &paced{mark: mark, arrived: make(chan bool, 1)}
		tr := &noted{}
		spec := external.Spec{Command: []string{testBinary()}, Env: map[string]string{"FAKE_AGENT": "stream", "MARK": mark}}
		a, err := external.New(spec, GinkgoT().TempDir())(agentConfig(tape, tr))
		Expect(err).NotTo(HaveOccurred())
		ans, err := a.Run(GinkgoT().Context(), agents.Input{Turns: []string{"hi"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(<-tape.arrived).To(BeTrue(), "the agent had the first event before the provider sent the next")
		Expect(ans.Replies[0].Text).To(Equal("3 events"))
	})
})
