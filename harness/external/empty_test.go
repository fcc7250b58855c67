package external_test

import (
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// answering answers every request with body, as an event stream when
// stream.
type answering struct {
	body   string
	stream bool
}

func (a answering) RoundTrip(r *http.Request) (*http.Response, error) {
	ct := "application/json"
	if a.stream {
		ct = "text/event-stream"
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(strings.NewReader(a.body)), Request: r}, nil
}

var _ = DescribeTable("a model's answer with nothing in it is read as an empty answer that still counts its tokens",
	func(provider, path, request string, api answering, want llm.Usage) {
		base := map[string]string{llm.ProviderOpenAI: "$OPENAI_BASE_URL", llm.ProviderAnthropic: "$ANTHROPIC_BASE_URL", llm.ProviderGemini: "$GEMINI_BASE_URL"}[provider]
		endpoint := llm.Endpoint{Provider: provider, Model: "m", BaseURL: map[string]string{llm.ProviderOpenAI: "https://api.openai.com/v1",
			llm.ProviderAnthropic: "https://api.anthropic.com", llm.ProviderGemini: "https://generativelanguage.googleapis.com"}[provider]}
		tr := runOver(api, endpoint, nil, "curl -s -X POST \""+base+path+"\" -H 'Content-Type: application/json' -d '"+request+"' >/dev/null")
		Expect(tr.calls).To(HaveLen(1))
		Expect(tr.errs[0]).NotTo(HaveOccurred(), "the program saw a whole answer")
		Expect(tr.resps[0].Message.Content).To(BeEmpty())
		Expect(tr.resps[0].Message.ToolCalls).To(BeEmpty())
		Expect(tr.resps[0].Usage).To(Equal(want))
	},
	Entry("Chat Completions, no choice", llm.ProviderOpenAI, "/chat/completions", `{"model": "m", "messages": [{"role": "user", "content": "go"}]}`,
		answering{body: `{"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 0, "total_tokens": 12}}`},
		llm.Usage{InputTokens: 12}),
	Entry("Responses, cut off while reasoning", llm.ProviderOpenAI, "/responses", `{"model": "gpt-5", "input": "go", "max_output_tokens": 16}`,
		answering{body: `{"id": "resp_1", "object": "response", "created_at": 0, "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "model": "gpt-5",
			"output": [{"type": "reasoning", "id": "rs_1", "summary": []}],
			"usage": {"input_tokens": 30, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 16, "output_tokens_details": {"reasoning_tokens": 16}, "total_tokens": 46}}`},
		llm.Usage{InputTokens: 30, OutputTokens: 16, ReasoningTokens: 16}),
	Entry("Anthropic, no content blocks", llm.ProviderAnthropic, "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "go"}]}`,
		answering{body: `{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": "end_turn", "stop_sequence": null,
			"usage": {"input_tokens": 40, "output_tokens": 1}}`},
		llm.Usage{InputTokens: 40, OutputTokens: 1}),
	Entry("Anthropic streamed, no content blocks", llm.ProviderAnthropic, "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 100, "stream": true, "messages": [{"role": "user", "content": "go"}]}`,
		answering{stream: true, body: "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_1\", \"type\": \"message\", \"role\": \"assistant\", \"model\": \"claude-sonnet-4-5\", \"content\": [], \"stop_reason\": null, \"stop_sequence\": null, \"usage\": {\"input_tokens\": 40, \"output_tokens\": 1}}}\n\n" +
			"event: message_delta\ndata: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\", \"stop_sequence\": null}, \"usage\": {\"output_tokens\": 1}}\n\n" +
			"event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n"},
		llm.Usage{InputTokens: 40, OutputTokens: 1}),
	Entry("Gemini, a blocked prompt", llm.ProviderGemini, "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents": [{"parts": [{"text": "go"}]}]}`,
		answering{body: `{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}, "modelVersion": "gemini-2.5-flash"}`},
		llm.Usage{InputTokens: 9}),
)
