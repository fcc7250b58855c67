package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// chatCall is a Chat Completions request offering the ferry tools.
const chatCall = `{"model": "gpt-5-mini", "messages": [{"role": "developer", "content": "You plan ferry trips."}, {"role": "user", "content": "Next boat to Vis, and the fare?"}],
	"tools": [{"type": "function", "function": {"name": "ferry_times", "parameters": {"type": "object", "properties": {"port": {"type": "string"}}}}},
	{"type": "function", "function": {"name": "fare", "parameters": {"type": "object", "properties": {"route": {"type": "string"}}}}}]}`

// chatStreamCall is chatCall streamed, with the usage chunk asked for.
const chatStreamCall = `{"model": "gpt-5-mini", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "Next boat to Vis?"}]}`

var _ = DescribeTable("Chat Completions traffic is read as the API documents it",
	func(answer reply, want read) {
		conform(openAIEndpoint, "$OPENAI_BASE_URL/chat/completions", chatCall, answer, want)
	},
	Entry("text, with cached prompt tokens and reasoning tokens in the usage details", whole(`{"id": "chatcmpl-k2", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-mini-2025-08-07",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "The 14:30 from Split; 6.20 EUR.", "refusal": null, "annotations": []}, "logprobs": null, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 1480, "completion_tokens": 210, "total_tokens": 1690,
			"prompt_tokens_details": {"cached_tokens": 1152, "audio_tokens": 0},
			"completion_tokens_details": {"reasoning_tokens": 192, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}},
		"service_tier": "default", "system_fingerprint": null}`),
		read{text: "The 14:30 from Split; 6.20 EUR.", usage: llm.Usage{InputTokens: 1480, OutputTokens: 210, ReasoningTokens: 192, CacheReadTokens: 1152}, finish: llm.FinishStop, raw: "stop"}),
	Entry("two parallel tool calls, content null", whole(`{"id": "chatcmpl-k3", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-mini-2025-08-07",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": null, "annotations": [],
			"tool_calls": [{"id": "call_f1", "type": "function", "function": {"name": "ferry_times", "arguments": "{\"port\":\"Split\"}"}},
				{"id": "call_f2", "type": "function", "function": {"name": "fare", "arguments": "{\"route\":\"Split-Vis\"}"}}]},
			"logprobs": null, "finish_reason": "tool_calls"}],
		"usage": {"prompt_tokens": 96, "completion_tokens": 51, "total_tokens": 147, "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0}}}`),
		read{calls: []string{`ferry_times {"port":"Split"}`, `fare {"route":"Split-Vis"}`}, usage: llm.Usage{InputTokens: 96, OutputTokens: 51}, finish: llm.FinishToolCalls, raw: "tool_calls"}),
	Entry("a refusal: content null, the refusal left out as the adapters leave it", whole(`{"id": "chatcmpl-k4", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-mini-2025-08-07",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I can not help with that request.", "annotations": []}, "logprobs": null, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}}`),
		read{usage: llm.Usage{InputTokens: 40, OutputTokens: 9}, finish: llm.FinishStop, raw: "stop"}),
	Entry("text with logprobs", whole(`{"id": "chatcmpl-k5", "object": "chat.completion", "created": 1767225600, "model": "gpt-4.1-mini",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "At 14:30.", "refusal": null},
			"logprobs": {"content": [{"token": "At", "logprob": -0.01, "bytes": [65, 116], "top_logprobs": []}, {"token": " 14", "logprob": -0.2, "bytes": [32, 49, 52], "top_logprobs": []},
				{"token": ":30.", "logprob": -0.05, "bytes": [58, 51, 48, 46], "top_logprobs": []}], "refusal": null}, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 30, "completion_tokens": 3, "total_tokens": 33}}`),
		read{text: "At 14:30.", usage: llm.Usage{InputTokens: 30, OutputTokens: 3}, finish: llm.FinishStop, raw: "stop"}),
	Entry("cut at the token limit", whole(`{"id": "chatcmpl-k6", "object": "chat.completion", "created": 1767225600, "model": "gpt-4.1-mini",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "The next boat leaves", "refusal": null}, "logprobs": null, "finish_reason": "length"}],
		"usage": {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34}}`),
		read{text: "The next boat leaves", usage: llm.Usage{InputTokens: 30, OutputTokens: 4}, finish: llm.FinishLength, raw: "length"}),
	Entry("filtered", whole(`{"id": "chatcmpl-k7", "object": "chat.completion", "created": 1767225600, "model": "gpt-4.1-mini",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "", "refusal": null}, "logprobs": null, "finish_reason": "content_filter"}],
		"usage": {"prompt_tokens": 30, "completion_tokens": 0, "total_tokens": 30}}`),
		read{usage: llm.Usage{InputTokens: 30}, finish: llm.FinishContentFilter, raw: "content_filter"}),
	// Compatible servers send a reasoning model's thinking beside the
	// content: left out of the text, as Anthropic's thinking blocks and
	// Gemini's thought parts are, its tokens read where the usage gives them.
	Entry("reasoning_content beside the content (DeepSeek, vLLM, SGLang): the content only", whole(`{"id": "chatcmpl-k8", "object": "chat.completion", "created": 1767225600, "model": "deepseek-reasoner",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "The 14:30 from Split.", "reasoning_content": "The user wants the next sailing; the timetable says 14:30."}, "logprobs": null, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 40, "completion_tokens": 30, "total_tokens": 70, "completion_tokens_details": {"reasoning_tokens": 24}}}`),
		read{text: "The 14:30 from Split.", usage: llm.Usage{InputTokens: 40, OutputTokens: 30, ReasoningTokens: 24}, finish: llm.FinishStop, raw: "stop"}),
	Entry("reasoning and reasoning_details beside a tool call (OpenRouter): the call only", whole(`{"id": "gen-k9", "object": "chat.completion", "created": 1767225600, "model": "deepseek/deepseek-r1",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "", "reasoning": "Check the timetable first.",
			"reasoning_details": [{"type": "reasoning.text", "text": "Check the timetable first.", "format": "unknown", "index": 0}],
			"tool_calls": [{"id": "call_f1", "type": "function", "function": {"name": "ferry_times", "arguments": "{\"port\":\"Split\"}"}}]}, "finish_reason": "tool_calls"}],
		"usage": {"prompt_tokens": 96, "completion_tokens": 40, "total_tokens": 136}}`),
		read{calls: []string{`ferry_times {"port":"Split"}`}, usage: llm.Usage{InputTokens: 96, OutputTokens: 40}, finish: llm.FinishToolCalls, raw: "tool_calls"}),
	Entry("429 rate limited", refused(429, `{"error": {"message": "Rate limit reached for gpt-5-mini on tokens per min (TPM): Limit 200000, Used 199000, Requested 4000.", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}`),
		read{err: "Too Many Requests: "}),
	Entry("500 server error", refused(500, `{"error": {"message": "The server had an error while processing your request.", "type": "server_error", "param": null, "code": null}}`),
		read{err: "Internal Server Error: "}),
)

// chatChunk is a chat.completion.chunk of id chatcmpl-s1 with choices
// and usage as given.
func chatChunk(choices, usage string) string {
	return `{"id": "chatcmpl-s1", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "service_tier": "default", "system_fingerprint": null, "choices": ` + choices + `, "usage": ` + usage + `}`
}

var _ = DescribeTable("streamed Chat Completions traffic is put together as the API documents it",
	func(answer reply, want read) {
		conform(openAIEndpoint, "$OPENAI_BASE_URL/chat/completions", chatStreamCall, answer, want)
	},
	Entry("text deltas, then the usage chunk (choices empty) that include_usage asks for, usage null before it", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "", "refusal": null}, "logprobs": null, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": "The 14:30 "}, "logprobs": null, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": "from Split."}, "logprobs": null, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "logprobs": null, "finish_reason": "stop"}]`, `null`),
		chatChunk(`[]`, `{"prompt_tokens": 2210, "completion_tokens": 140, "total_tokens": 2350, "prompt_tokens_details": {"cached_tokens": 2048, "audio_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 128, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}`)),
		read{text: "The 14:30 from Split.", usage: llm.Usage{InputTokens: 2210, OutputTokens: 140, ReasoningTokens: 128, CacheReadTokens: 2048}, finish: llm.FinishStop, raw: "stop"}),
	Entry("two tool calls, the id and name on each call's first delta, the arguments in pieces by index", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_t1", "type": "function", "function": {"name": "ferry_times", "arguments": ""}}]}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"po"}}]}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "rt\":\"Split\"}"}}]}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_t2", "type": "function", "function": {"name": "fare", "arguments": ""}}]}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"tool_calls": [{"index": 1, "function": {"arguments": "{\"route\":\"Split-Vis\"}"}}]}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]`, `null`),
		chatChunk(`[]`, `{"prompt_tokens": 96, "completion_tokens": 51, "total_tokens": 147}`)),
		read{calls: []string{`ferry_times {"port":"Split"}`, `fare {"route":"Split-Vis"}`}, usage: llm.Usage{InputTokens: 96, OutputTokens: 51}, finish: llm.FinishToolCalls, raw: "tool_calls"}),
	Entry("a refusal in refusal deltas, left out", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": null, "refusal": ""}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"refusal": "I can not help "}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"refusal": "with that."}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "stop"}]`, `null`),
		chatChunk(`[]`, `{"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}`)),
		read{usage: llm.Usage{InputTokens: 40, OutputTokens: 9}, finish: llm.FinishStop, raw: "stop"}),
	Entry("logprobs on each chunk", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": {"content": [], "refusal": null}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": "At"}, "logprobs": {"content": [{"token": "At", "logprob": -0.01, "bytes": [65, 116], "top_logprobs": []}], "refusal": null}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": " 14:30."}, "logprobs": {"content": [{"token": " 14:30.", "logprob": -0.3, "bytes": [32, 49, 52, 58, 51, 48, 46], "top_logprobs": []}], "refusal": null}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "logprobs": null, "finish_reason": "stop"}]`, `null`),
		chatChunk(`[]`, `{"prompt_tokens": 30, "completion_tokens": 3, "total_tokens": 33}`)),
		read{text: "At 14:30.", usage: llm.Usage{InputTokens: 30, OutputTokens: 3}, finish: llm.FinishStop, raw: "stop"}),
	Entry("the usage on the finish chunk, as compatible servers send it", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "Yes."}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "stop"}]`, `{"prompt_tokens": 30, "completion_tokens": 2, "total_tokens": 32}`)),
		read{text: "Yes.", usage: llm.Usage{InputTokens: 30, OutputTokens: 2}, finish: llm.FinishStop, raw: "stop"}),
	Entry("reasoning_content deltas before the content, content null in them (DeepSeek, vLLM, SGLang): the content only", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": null, "reasoning_content": ""}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": null, "reasoning_content": "The user wants "}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": null, "reasoning_content": "the next sailing."}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": "The 14:30 ", "reasoning_content": null}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": "from Split.", "reasoning_content": null}, "finish_reason": "stop"}]`, `{"prompt_tokens": 40, "completion_tokens": 30, "total_tokens": 70, "completion_tokens_details": {"reasoning_tokens": 24}}`)),
		read{text: "The 14:30 from Split.", usage: llm.Usage{InputTokens: 40, OutputTokens: 30, ReasoningTokens: 24}, finish: llm.FinishStop, raw: "stop"}),
	Entry("reasoning deltas before a tool call (OpenRouter, newer vLLM): the call only", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "", "reasoning": "Check the "}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": "", "reasoning": "timetable first."}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {"content": "", "tool_calls": [{"index": 0, "id": "call_t1", "type": "function", "function": {"name": "ferry_times", "arguments": "{\"port\":\"Split\"}"}}]}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]`, `{"prompt_tokens": 96, "completion_tokens": 40, "total_tokens": 136}`)),
		read{calls: []string{`ferry_times {"port":"Split"}`}, usage: llm.Usage{InputTokens: 96, OutputTokens: 40}, finish: llm.FinishToolCalls, raw: "tool_calls"}),
	Entry("a first chunk with no id and no choices (Azure's prompt filter results)", chunks("data: [DONE]",
		`{"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {"hate": {"filtered": false, "severity": "safe"}}}]}`,
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "Yes."}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "stop"}]`, `null`),
		chatChunk(`[]`, `{"prompt_tokens": 30, "completion_tokens": 2, "total_tokens": 32}`)),
		read{text: "Yes.", usage: llm.Usage{InputTokens: 30, OutputTokens: 2}, finish: llm.FinishStop, raw: "stop"}),
	Entry("no usage chunk (include_usage not asked): no usage", chunks("data: [DONE]",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "Yes."}, "finish_reason": null}]`, `null`),
		chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "stop"}]`, `null`)),
		read{text: "Yes.", finish: llm.FinishStop, raw: "stop"}),
	Entry("an error event mid-stream", chunks("",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "The 14"}, "finish_reason": null}]`, `null`),
		`{"error": {"message": "The server had an error while processing your request.", "type": "server_error", "param": null, "code": null}}`),
		read{err: "server had an error"}),
	Entry("cut before [DONE]", chunks("",
		chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": "The 14"}, "finish_reason": null}]`, `null`)),
		read{err: "the stream ended early"}),
)
