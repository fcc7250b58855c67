package wire_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/trace"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("a conversation read from the wire", func() {
	// sent is the body the adapter c sends for req.
	sent := func(c func(base string, hc *http.Client) llm.Client, req llm.Request) []byte {
		GinkgoHelper()
		srv := llmtest.NewServer(http.StatusInternalServerError, `{"error": {"message": "unused", "type": "server_error", "param": null, "code": null}}`)
		DeferCleanup(srv.Close)
		c(srv.URL+"/v1", srv.Client()).Chat(context.Background(), req)
		reqs := srv.Requests()
		Expect(reqs).To(HaveLen(1))
		return reqs[0].Body
	}

	It("counts the same tokens, part by part, over Chat Completions and the Responses API", func() {
		req := llm.Request{Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You answer questions about the sea."},
			{Role: llm.RoleUser, Content: "Sea temperature off Taiwan, and today's date?"},
			{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{
				{ID: "call_a", Name: "get_sst", Arguments: json.RawMessage(`{"lon":121,"lat":23}`)},
				{ID: "call_b", Name: "get_date", Arguments: json.RawMessage(`{}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_a", Name: "get_sst", Content: `{"sst":26.4}`},
			{Role: llm.RoleTool, ToolCallID: "call_b", Name: "get_date", Content: "2025-11-06"},
			{Role: llm.RoleAssistant, Content: "26.4 °C on 2025-11-06."},
			{Role: llm.RoleUser, Content: "And tomorrow?"},
		}, Tools: []llm.Tool{
			{Name: "get_sst", Description: "SST at a point.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"lon":{"type":"number"},"lat":{"type":"number"}},"required":["lon","lat"]}`)},
			{Name: "get_date", Description: "Today's date.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		}}
		viaChat, err := wire.Decode(wire.Chat, "/v1/chat/completions", sent(func(base string, hc *http.Client) llm.Client { return openai.New(base, "gpt-4.1-mini", "k", hc) }, req))
		Expect(err).NotTo(HaveOccurred())
		viaResponses, err := wire.Decode(wire.Responses, "/v1/responses", sent(func(base string, hc *http.Client) llm.Client {
			return openai.NewResponses(base, "gpt-4.1-mini", "k", hc)
		}, req))
		Expect(err).NotTo(HaveOccurred())

		counter, err := tokens.New(tokens.EncodingO200K)
		Expect(err).NotTo(HaveOccurred())
		count := func(r wire.Request) trace.Parts {
			return counter.Request(llm.Request{Messages: r.Messages, Tools: r.Tools})
		}
		want := counter.Request(req)
		Expect(want.History).To(BeNumerically(">", 0))
		Expect(want.ToolResults).To(BeNumerically(">", 0))
		Expect(count(viaChat)).To(Equal(want), "read from Chat Completions")
		Expect(count(viaResponses)).To(Equal(want), "read from the Responses API")
	})

	It("reads an assistant message sent back with its reasoning (reasoning_content, reasoning) as its content and calls, the reasoning left out, and takes it as the API does", func() {
		body := []byte(`{"model": "deepseek-reasoner", "messages": [{"role": "user", "content": "Next boat to Vis?"},
			{"role": "assistant", "content": "", "reasoning_content": "The user wants the next sailing; check the timetable.", "tool_calls": [{"id": "call_t1", "type": "function", "function": {"name": "ferry_times", "arguments": "{\"port\":\"Split\"}"}}]},
			{"role": "tool", "tool_call_id": "call_t1", "content": "14:30"},
			{"role": "assistant", "content": "The 14:30 from Split.", "reasoning": "The timetable says 14:30."},
			{"role": "user", "content": "And the fare?"}],
			"tools": [{"type": "function", "function": {"name": "ferry_times", "parameters": {"type": "object"}}}]}`)
		Expect(wire.Validate(wire.Chat, "/v1/chat/completions", body)).To(Succeed())
		r, err := wire.Decode(wire.Chat, "/v1/chat/completions", body)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Messages).To(Equal([]llm.Message{
			{Role: llm.RoleUser, Content: "Next boat to Vis?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_t1", Name: "ferry_times", Arguments: json.RawMessage(`{"port":"Split"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_t1", Content: "14:30"},
			{Role: llm.RoleAssistant, Content: "The 14:30 from Split."},
			{Role: llm.RoleUser, Content: "And the fare?"},
		}))
	})

	DescribeTable("knows a model call's dialect by its path",
		func(path string, want wire.Dialect, ok bool) {
			d, found := wire.Of(path)
			Expect(found).To(Equal(ok))
			Expect(d).To(Equal(want))
		},
		Entry("Chat Completions", "/s/1/v1/chat/completions", wire.Chat, true),
		Entry("Responses", "/v1/responses", wire.Responses, true),
		Entry("Gemini", "/v1beta/models/gemini-2.5-flash:generateContent", wire.Gemini, true),
		Entry("Gemini, streamed", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", wire.Gemini, true),
		Entry("Anthropic", "/v1/messages", wire.Anthropic, true),
		Entry("Ollama's native chat", "/s/1/api/chat", wire.Ollama, true),
		Entry("Gemini's Interactions API", "/s/1/v1/interactions", wire.Interactions, true),
		Entry("Ollama's model list is no chat call", "/api/tags", wire.Dialect(0), false),
		Entry("embeddings are no chat call", "/v1/embeddings", wire.Dialect(0), false),
		Entry("an upstream", "/upstream/notes/x", wire.Dialect(0), false),
	)

	It("takes every model request of every committed cassette, as the real APIs would", Label("cassettes"), func() {
		var paths []string
		for _, g := range []string{"../../cassettes/*/*/*.yaml", "../../examples/*/cassettes/*/*/*.yaml"} {
			found, err := filepath.Glob(g)
			Expect(err).NotTo(HaveOccurred())
			paths = append(paths, found...)
		}
		checked := map[wire.Dialect]int{}
		for _, p := range paths {
			reqs, err := cassette.Requests(p)
			Expect(err).NotTo(HaveOccurred(), p)
			for i, in := range reqs {
				u, _, _ := strings.Cut(in.URL, "?")
				d, ok := wire.Of(u)
				if !ok {
					continue
				}
				body := in.Body
				if d == wire.Interactions {
					// The interaction a request continues is kept by the
					// server that answered it: the rest is checked alone.
					var fields map[string]json.RawMessage
					Expect(json.Unmarshal(body, &fields)).To(Succeed())
					delete(fields, "previous_interaction_id")
					body, _ = json.Marshal(fields)
				}
				Expect(wire.Validate(d, u, body)).To(Succeed(), "%s interaction %d", p, i)
				checked[d]++
			}
		}
		Expect(checked[wire.Chat]).To(BeNumerically(">", 300))
		Expect(checked[wire.Gemini]).To(BeNumerically(">", 50))
		Expect(checked[wire.Anthropic]).To(BeNumerically(">", 10))
		Expect(checked[wire.Interactions]).To(BeNumerically(">", 30))
	})
})
