package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
)

// chunk is one Chat Completions stream chunk with the given choice delta
// and finish reason ("" for none).
func chunk(delta, finish string) string {
	c := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini","choices":[{"index":0,"delta":` + delta
	if finish != "" {
		c += `,"finish_reason":"` + finish + `"`
	}
	return c + `}]}`
}

// usageChunk is the closing chunk stream_options.include_usage asks for.
const usageChunk = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-mini","choices":[],` +
	`"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":2}}}`

// sse is an event stream of data lines.
func sse(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

// chatStreamed sends req through a streaming Chat Completions client to a
// server that answers with body, written in pieces of at most piece bytes,
// and returns the request body the server got and the answer.
func chatStreamed(body string, piece int) (map[string]any, llm.Response, error) {
	GinkgoHelper()
	var sent map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer GinkgoRecover()
		Expect(r.URL.Path).To(Equal("/v1/chat/completions"))
		b, _ := io.ReadAll(r.Body)
		Expect(json.Unmarshal(b, &sent)).To(Succeed())
		w.Header().Set("Content-Type", "text/event-stream")
		for rest := body; rest != ""; {
			n := min(piece, len(rest))
			io.WriteString(w, rest[:n])
			w.(http.Flusher).Flush()
			rest = rest[n:]
		}
	}))
	DeferCleanup(srv.Close)
	c := openai.New(srv.URL+"/v1", "gpt-4.1-mini", "k", srv.Client()).Streaming(true)
	resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
	return sent, resp, err
}

var _ = Describe("a streamed Chat Completions call", func() {
	text := sse(chunk(`{"role":"assistant","content":"Hel"}`, ""), chunk(`{"content":"lo"}`, ""), chunk(`{}`, "stop"), usageChunk, "[DONE]")

	It("asks for a stream with usage and puts the chunks together as the unstreamed answer", func() {
		sent, resp, err := chatStreamed(text, 1<<20)
		Expect(err).NotTo(HaveOccurred())
		Expect(sent).To(HaveKeyWithValue("stream", true))
		Expect(sent).To(HaveKeyWithValue("stream_options", map[string]any{"include_usage": true}))
		Expect(resp).To(Equal(llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, Content: "Hello"},
			FinishReason: llm.FinishStop, RawFinishReason: "stop", Model: "gpt-4.1-mini", ID: "c1",
			Usage: llm.Usage{InputTokens: 12, OutputTokens: 5, ReasoningTokens: 2, CacheReadTokens: 4},
		}))
	})

	It("finds the closing [DONE] when it arrives split across reads", func() {
		_, resp, err := chatStreamed(text, 3)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.Content).To(Equal("Hello"))
	})

	It("puts a tool call's argument pieces together", func() {
		_, resp, err := chatStreamed(sse(
			chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"), "[DONE]"), 1<<20)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(resp.Message.ToolCalls).To(HaveLen(1))
		Expect(resp.Message.ToolCalls[0].ID).To(Equal("call_1"))
		Expect(resp.Message.ToolCalls[0].Name).To(Equal("get_weather"))
		Expect(string(resp.Message.ToolCalls[0].Arguments)).To(Equal(`{"city":"Oslo"}`))
	})

	DescribeTable("is an error when it ends early or carries a bad chunk",
		func(body, want string, ended bool) {
			_, _, err := chatStreamed(body, 1<<20)
			Expect(err).To(MatchError(ContainSubstring(want)))
			Expect(errors.Is(err, openai.ErrStreamEnded)).To(Equal(ended))
		},
		Entry("no finish_reason", sse(chunk(`{"content":"Hel"}`, ""), "[DONE]"), "1 chunks and no finish_reason", true),
		Entry("no [DONE]", sse(chunk(`{"content":"Hel"}`, "stop")), "no [DONE] after 1 chunks", true),
		Entry("a malformed chunk", sse(chunk(`{"content":"Hel"}`, ""), `{"choices":`), "stream chunk 2", false),
	)
})

var _ = Describe("StreamResponse", func() {
	It("reads a whole recorded stream as the streamed Chat does", func() {
		resp, err := openai.StreamResponse([]byte(sse(chunk(`{"role":"assistant","content":"Hi"}`, "stop"), usageChunk, "[DONE]")))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.Content).To(Equal("Hi"))
		Expect(resp.Usage.InputTokens).To(Equal(12))
	})

	It("reads a custom tool's call, streamed beside a function's, as a call whose arguments are its input, a JSON string", func() {
		resp, err := openai.StreamResponse([]byte(sse(
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_c","type":"custom","custom":{"name":"run_sql","input":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"custom":{"input":"SELECT fare "}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"id":"call_f","type":"function","function":{"name":"get_weather","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"custom":{"input":"FROM routes"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Vis\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"), "[DONE]")))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.ToolCalls).To(Equal([]llm.ToolCall{
			{ID: "call_c", Name: "run_sql", Arguments: json.RawMessage(`"SELECT fare FROM routes"`)},
			{ID: "call_f", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Vis"}`)},
		}))
	})

	It("refuses a recorded stream without [DONE]", func() {
		_, err := openai.StreamResponse([]byte(sse(chunk(`{"content":"Hi"}`, "stop"))))
		Expect(err).To(MatchError(openai.ErrStreamEnded))
	})
})
