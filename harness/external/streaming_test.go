package external_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/stream"
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

// turnsAgent is a JSON-lines agent (FAKE_AGENT=stream-turns, all_turns)
// that reads both turns, streams turn 1's model call and reads it to its
// last event, posts to TESTBED_TURN_URL that it starts turn 2, creates
// $MARK, makes turn 2's model call unstreamed, and answers both turns. It
// reads the first stream's end only after that, as an SDK that stops at
// [DONE] may never.
func turnsAgent() int {
	in := bufio.NewScanner(os.Stdin)
	for range 2 {
		if !in.Scan() {
			return 1
		}
	}
	call := func(stream bool) (*http.Response, error) {
		return http.Post(os.Getenv("OPENAI_BASE_URL")+"/chat/completions", "application/json",
			strings.NewReader(fmt.Sprintf(`{"model":"m","stream":%t,"messages":[{"role":"user","content":"hi"}]}`, stream)))
	}
	resp, err := call(true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	events := bufio.NewScanner(resp.Body)
	for events.Scan() && events.Text() != "data: [DONE]" {
	}
	turn, err := http.Post(os.Getenv("TESTBED_TURN_URL")+"?n=1", "text/plain", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	turn.Body.Close()
	os.WriteFile(os.Getenv("MARK"), nil, 0o644)
	second, err := call(false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	io.Copy(io.Discard, second.Body)
	second.Body.Close()
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(`{"text": "one"}`)
	fmt.Println(`{"text": "two"}`)
	return 0
}

// lateEnd answers a streamed model call with every event at once and ends
// the stream only once mark exists (the agent has posted its next turn),
// or a minute later; an unstreamed call, at once.
type lateEnd struct{ mark string }

func (l *lateEnd) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(body), `"stream":true`) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
			Body: io.NopCloser(strings.NewReader(`{"model":"m","choices":[{"message":{"role":"assistant","content":"two"},"finish_reason":"stop"}]}`))}, nil
	}
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, "data: {\"choices\":[{\"delta\":{\"content\":\"one\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		for range 600 {
			if _, err := os.Stat(l.mark); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		pw.Close()
	}()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, Request: r}, nil
}

// clockedAtEnd answers a streamed model call at once, its events stamped
// 100, 300 and 450 ms (as a stand-in or a recording stamps them), and moves
// the scenario's clock on by the stream's 450 ms only once the stream has
// ended, as a recording does when it has captured it.
type clockedAtEnd struct{ moved atomic.Int64 }

func (c *clockedAtEnd) now() time.Time { return time.Unix(0, c.moved.Load()) }

func (c *clockedAtEnd) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{"Content-Type": {"text/event-stream"}}
	stream.SetOffsets(h, []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 450 * time.Millisecond})
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	return &http.Response{StatusCode: 200, Header: h, Request: r, Body: &movesAtEnd{Reader: strings.NewReader(body), c: c}}, nil
}

// movesAtEnd is a body that moves its clock on when it ends.
type movesAtEnd struct {
	io.Reader
	c *clockedAtEnd
}

func (m *movesAtEnd) Read(p []byte) (int, error) {
	n, err := m.Reader.Read(p)
	if err == io.EOF {
		m.c.moved.CompareAndSwap(0, int64(450*time.Millisecond))
	}
	return n, err
}

func (m *movesAtEnd) Close() error { return nil }

// tookOfCalls is a tracer that keeps how long each model call took.
type tookOfCalls struct {
	noted
	took []time.Duration
}

func (t *tookOfCalls) ModelCall(_ llm.Request, _ string, _ llm.Response, _ error, took time.Duration) {
	t.mu.Lock()
	t.took = append(t.took, took)
	t.mu.Unlock()
}

// turnOfCalls is a tracer that keeps the turn of each model call.
type turnOfCalls struct {
	mu          sync.Mutex
	turn        int
	modelCalled []int
}

func (t *turnOfCalls) Tool(string, json.RawMessage, []byte, string, error) {}
func (t *turnOfCalls) Note(key string, value any) {
	if n, ok := value.(int); ok && key == agents.NoteTurn {
		t.mu.Lock()
		t.turn = n
		t.mu.Unlock()
	}
}
func (t *turnOfCalls) ModelCall(llm.Request, string, llm.Response, error, time.Duration) {
	t.mu.Lock()
	t.modelCalled = append(t.modelCalled, t.turn)
	t.mu.Unlock()
}

var _ = Describe("an outside agent streaming a model call", func() {
	It("has a stream it read whole before posting its next turn counted to the turn it belongs to, however late the stream ends in the proxy", func() {
		mark := filepath.Join(GinkgoT().TempDir(), "posted")
		tr := &turnOfCalls{}
		spec := external.Spec{Command: []string{testBinary()}, Env: map[string]string{"FAKE_AGENT": "stream-turns", "MARK": mark}, AllTurns: true}
		a, err := external.New(spec, GinkgoT().TempDir())(agentConfig(&lateEnd{mark: mark}, tr))
		Expect(err).NotTo(HaveOccurred())
		ans, err := a.Run(GinkgoT().Context(), agents.Input{Turns: []string{"hi", "again"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies).To(HaveLen(2))
		Expect(tr.modelCalled).To(Equal([]int{0, 1}), "the turn of each model call")
	})

	It("times the call by its stream, though the scenario's clock learns of the stream's length only when it ends (recording)", func() {
		tape := &clockedAtEnd{}
		tr := &tookOfCalls{}
		spec := external.Spec{Command: []string{testBinary()}, Env: map[string]string{"FAKE_AGENT": "stream", "MARK": filepath.Join(GinkgoT().TempDir(), "first")}}
		cfg := agentConfig(tape, tr)
		cfg.Clock = tape.now
		a, err := external.New(spec, GinkgoT().TempDir())(cfg)
		Expect(err).NotTo(HaveOccurred())
		ans, err := a.Run(GinkgoT().Context(), agents.Input{Turns: []string{"hi"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("3 events"))
		Expect(tr.took).To(Equal([]time.Duration{450 * time.Millisecond}))
	})

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
