package agenttest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/llm"
)

func TestAgenttest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Agenttest Suite")
}

var _ agents.Tracer = (*agenttest.Tracer)(nil)

var _ = Describe("Tracer", func() {
	It("keeps copies of tool reports and notes, in order, by name and key", func() {
		var t agenttest.Tracer
		args, raw := json.RawMessage(`{"q":1}`), []byte("payload")
		t.Tool("search", args, raw, "ctx", nil)
		t.Tool("fetch", nil, nil, "", errors.New("down"))
		t.Note("k", 1)
		t.Note("other", 2)
		t.Note("k", "two")
		raw[0] = 'X' // the caller's buffer is reused

		Expect(t.ToolNames()).To(Equal([]string{"search", "fetch"}))
		Expect(t.Reports("search")).To(HaveLen(1))
		Expect(t.Reports("search")[0].Raw).To(Equal([]byte("payload")))
		Expect(t.Reports("fetch")[0].Err).To(MatchError("down"))
		Expect(t.Reports("")).To(HaveLen(2))
		Expect(t.Noted("k")).To(Equal([]any{1, "two"}))
		Expect(t.Noted("missing")).To(BeEmpty())
	})
})

var _ = Describe("scripted answers", func() {
	It("says text as the assistant, or fails with the error given", func() {
		msg, err := agenttest.Say("hello")(llm.Request{})
		Expect(err).NotTo(HaveOccurred())
		Expect(msg).To(Equal(llm.Message{Role: llm.RoleAssistant, Content: "hello"}))
		_, err = agenttest.Fail(errors.New("unreachable"))(llm.Request{})
		Expect(err).To(MatchError("unreachable"))
	})
})

var _ = Describe("Transport", func() {
	It("sends each logical host to its loopback server and logs the request as sent", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(rw, "%s %s %s", r.Method, r.URL.RequestURI(), body)
		}))
		DeferCleanup(srv.Close)
		base := &http.Transport{}
		DeferCleanup(base.CloseIdleConnections)
		t := agenttest.NewTransport(base)
		t.Route("api.example.com", strings.TrimPrefix(srv.URL, "http://"))
		client := &http.Client{Transport: t}

		resp, err := client.Post("https://api.example.com/a%2Fb/c?x=1&y=two", "text/plain", strings.NewReader("hello"))
		Expect(err).NotTo(HaveOccurred())
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		Expect(string(got)).To(Equal("POST /a%2Fb/c?x=1&y=two hello"))

		reqs := t.Requests("api.example.com")
		Expect(reqs).To(HaveLen(1))
		r := reqs[0]
		Expect(r.Method).To(Equal("POST"))
		Expect(r.Path).To(Equal("/a/b/c"))
		Expect(r.EscapedPath).To(Equal("/a%2Fb/c"))
		Expect(r.RawQuery).To(Equal("x=1&y=two"))
		Expect(r.Query.Get("y")).To(Equal("two"))
		Expect(r.URL).To(Equal("https://api.example.com/a%2Fb/c?x=1&y=two"))
		Expect(string(r.Body)).To(Equal("hello"))
		Expect(r.Header.Get("Content-Type")).To(Equal("text/plain"))
	})

	It("fails a request to a host it has no server for, and logs nothing", func() {
		t := agenttest.NewTransport(http.DefaultTransport)
		_, err := (&http.Client{Transport: t}).Get("https://elsewhere.example/")
		Expect(err).To(MatchError(ContainSubstring(`no server for host "elsewhere.example"`)))
		Expect(t.All()).To(BeEmpty())
	})
})

// answering is an agent that answers each turn with the given replies.
type answering []agents.Reply

func (a answering) Run(context.Context, agents.Input) (agents.Answer, error) {
	return agents.Answer{Replies: a}, nil
}

type reply struct{ Text string }

var _ = Describe("Replies", func() {
	text := func(r reply) string { return r.Text }
	one := agents.Input{Turns: []string{"q"}}

	It("returns each reply's data", func() {
		got, err := agenttest.Replies(context.Background(), answering{{Text: "a", Data: reply{"a"}}}, one, text)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal([]reply{{"a"}}))
	})

	DescribeTable("says what is wrong with the replies",
		func(replies answering, want string) {
			_, err := agenttest.Replies(context.Background(), replies, one, text)
			Expect(err).To(MatchError(want))
		},
		Entry("a turn unanswered", answering{}, "0 replies to 1 turns"),
		Entry("data of another type", answering{{Text: "a", Data: "a"}}, "reply 0: data is string, want agenttest_test.reply"),
		Entry("text and data apart", answering{{Text: "a", Data: reply{"b"}}}, `reply 0: text "a", but its data says "b"`),
	)
})
