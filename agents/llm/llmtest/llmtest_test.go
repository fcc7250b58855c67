package llmtest_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
)

func TestLLMTest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "LLMTest Suite")
}

func say(text string) *llmtest.Scripted {
	return &llmtest.Scripted{Next: func(i int, req llm.Request) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: text + ":" + req.Messages[len(req.Messages)-1].Content + ":" + string(rune('0'+i))}
	}}
}

var _ = Describe("Recording over Scripted", func() {
	It("passes requests on, numbers the calls, keeps copies, and switches clients on Use", func() {
		r := llmtest.NewRecording(say("a"))
		msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
		resp, err := r.Chat(context.Background(), llm.Request{Messages: msgs})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.Content).To(Equal("a:hi:0"))
		Expect(resp.FinishReason).To(Equal("stop"))
		msgs[0].Content = "changed by the caller"

		r.Use(say("b"))
		resp, err = r.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "again"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.Content).To(Equal("b:again:0"))

		reqs := r.Requests()
		Expect(reqs).To(HaveLen(2))
		Expect(reqs[0].Messages[0].Content).To(Equal("hi"))
	})
})

var _ = Describe("Server.Only", func() {
	It("returns the one request with its JSON body, and says when there is not exactly one", func() {
		srv := llmtest.NewServer(200, `{}`)
		defer srv.Close()
		_, _, err := srv.Only()
		Expect(err).To(MatchError("the server got 0 requests, want 1"))

		resp, err := srv.Client().Post(srv.URL+"/v1/x?k=1", "application/json", strings.NewReader(`{"a":1}`))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		r, body, err := srv.Only()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Path).To(Equal("/v1/x"))
		Expect(r.Query).To(Equal("k=1"))
		Expect(body).To(Equal(map[string]any{"a": 1.0}))
	})
})
