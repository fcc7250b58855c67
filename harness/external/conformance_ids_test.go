package external_test

// The provider's id of each answer read from traffic (OpenAI's chatcmpl-…
// and resp_…, Anthropic's msg_…, Gemini's responseId), whole and
// streamed: what a trace keeps as the call's response id.

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = DescribeTable("the provider's id of an answer is read from the traffic",
	func(endpoint llm.Endpoint, url, request string, answer reply, want string) {
		tr := runOver(answer, endpoint, nil, `curl -s -X POST "`+url+`" -H 'Content-Type: application/json' -d '`+request+`' >/dev/null`)
		Expect(tr.errs).To(Equal([]error{nil}))
		Expect(tr.resps[0].ID).To(Equal(want))
	},
	Entry("Chat Completions, whole", openAIEndpoint, "$OPENAI_BASE_URL/chat/completions", chatCall,
		whole(`{"id": "chatcmpl-k2", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-mini-2025-08-07",
			"choices": [{"index": 0, "message": {"role": "assistant", "content": "The 14:30."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 40, "completion_tokens": 4}}`),
		"chatcmpl-k2"),
	Entry("Chat Completions, streamed", openAIEndpoint, "$OPENAI_BASE_URL/chat/completions", chatStreamCall, chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "The 14:30."}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "stop"}]`, `null`)),
		"chatcmpl-s1"),
	Entry("the Responses API, whole", openAIEndpoint, "$OPENAI_BASE_URL/responses", responsesCall,
		whole(response("completed", `[`+messageItem+`]`, responsesUsage, done)), "resp_68a1"),
	Entry("the Responses API, streamed", openAIEndpoint, "$OPENAI_BASE_URL/responses", responsesCall, events(streamCreated,
		`{"type": "response.completed", "sequence_number": 2, "response": `+response("completed", `[`+callItems+`]`, responsesUsage, done)+`}`),
		"resp_68a1"),
	Entry("Anthropic Messages, whole", anthropicEndpoint, "$ANTHROPIC_BASE_URL/v1/messages", messagesCall,
		whole(message(`[{"type": "text", "text": "14:30"}]`, "end_turn", `{"input_tokens": 30, "output_tokens": 3}`)), "msg_01Vis"),
	Entry("Anthropic Messages, streamed", anthropicEndpoint, "$ANTHROPIC_BASE_URL/v1/messages", messagesCall, events(
		messageStart(`{"input_tokens": 30, "output_tokens": 1}`),
		`{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "14:30"}}`,
		`{"type": "content_block_stop", "index": 0}`,
		`{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 3}}`,
		`{"type": "message_stop"}`),
		"msg_01Vis"),
	Entry("Gemini generateContent, whole", geminiEndpoint, "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent", generateCall,
		whole(candidate(`[{"text": "14:30"}]`, "STOP", plainUsage)), "Vis01"),
	Entry("Gemini generateContent, streamed", geminiEndpoint, "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", generateCall, chunks("",
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "14:30"}]}, "index": 0}], "modelVersion": "gemini-2.5-flash", "responseId": "Vis03"}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP", "index": 0}], "usageMetadata": `+plainUsage+`, "modelVersion": "gemini-2.5-flash", "responseId": "Vis03"}`),
		"Vis03"),
)
