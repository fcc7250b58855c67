package external_test

// The differential check of traffic reading against the providers'
// official Go SDKs: each entry is an answer in a provider's documented
// shape (written here, with our own words and numbers), whole or streamed,
// and testbed must read of it what the SDK's types read of the same bytes.

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/wire"
)

// sdkReader is an official SDK's reading of an answer's bytes.
type sdkReader func([]byte) (reading, error)

// agreeWithSDK checks that testbed reads the answer body (of dialect d,
// sent with header h) as sdk reads it.
func agreeWithSDK(d wire.Dialect, h http.Header, sdk sdkReader, body string) {
	GinkgoHelper()
	want, err := sdk([]byte(body))
	Expect(err).NotTo(HaveOccurred(), "the SDK reads the example")
	got, err := testbedRead(d, h, []byte(body))
	Expect(err).NotTo(HaveOccurred(), "testbed reads the example")
	Expect(got).To(Equal(want))
}

// sse is an event stream of the JSON events given, each named by its type
// when named is true (Anthropic, the Responses API) and data only
// otherwise (Chat Completions, Gemini's alt=sse), ended by end if not "".
func sse(named bool, end string, data ...string) string {
	if named {
		return events(data...).body
	}
	return chunks(end, data...).body
}

var _ = DescribeTable("an answer's text, tool calls, finish reason, model and usage are read as the official SDK reads them",
	agreeWithSDK,
	Entry("Chat Completions, two choices (n: 2), priority tier, cached, cache-written, audio and reasoning tokens", wire.Chat, jsonHeader, sdkChat,
		`{"id": "chatcmpl-d1", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-2025-08-07", "service_tier": "priority",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "Take the 07:10 tram.", "refusal": null, "annotations": []}, "logprobs": null, "finish_reason": "stop"},
			{"index": 1, "message": {"role": "assistant", "content": "The 07:10 tram, then walk.", "refusal": null, "annotations": []}, "logprobs": null, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 2210, "completion_tokens": 388, "total_tokens": 2598,
			"prompt_tokens_details": {"cached_tokens": 2048, "cache_write_tokens": 128, "audio_tokens": 31},
			"completion_tokens_details": {"reasoning_tokens": 320, "audio_tokens": 12, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}}`),
	Entry("Chat Completions, a function call and a custom tool's call", wire.Chat, jsonHeader, sdkChat,
		`{"id": "chatcmpl-d2", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-mini-2025-08-07",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": null, "annotations": [],
			"tool_calls": [{"id": "call_t1", "type": "function", "function": {"name": "tram_times", "arguments": "{\"stop\": \"Ilica\", \"after\": \"07:00\"}"}},
				{"id": "call_t2", "type": "custom", "custom": {"name": "sql", "input": "SELECT fare FROM fares WHERE zone = 1"}}]},
			"logprobs": null, "finish_reason": "tool_calls"}],
		"usage": {"prompt_tokens": 130, "completion_tokens": 62, "total_tokens": 192}}`),
	Entry("Chat Completions, a refusal", wire.Chat, jsonHeader, sdkChat,
		`{"id": "chatcmpl-d3", "object": "chat.completion", "created": 1767225600, "model": "gpt-4o-2024-11-20",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "I will not plan that route."}, "logprobs": null, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 51, "completion_tokens": 8, "total_tokens": 59}, "service_tier": "default"}`),
	Entry("Chat Completions streamed: usage null on each chunk, then a usage-only last chunk", wire.Chat, sseHeader, sdkChatStream, sse(false, "data: [DONE]",
		`{"id": "chatcmpl-d4", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "service_tier": "flex", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "", "refusal": null}, "finish_reason": null}], "usage": null}`,
		`{"id": "chatcmpl-d4", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "service_tier": "flex", "choices": [{"index": 0, "delta": {"content": "Tram 6 "}, "finish_reason": null}], "usage": null}`,
		`{"id": "chatcmpl-d4", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "service_tier": "flex", "choices": [{"index": 0, "delta": {"content": "at 07:10."}, "finish_reason": null}], "usage": null}`,
		`{"id": "chatcmpl-d4", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "service_tier": "flex", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": null}`,
		`{"id": "chatcmpl-d4", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "service_tier": "flex", "choices": [],
			"usage": {"prompt_tokens": 900, "completion_tokens": 140, "total_tokens": 1040, "prompt_tokens_details": {"cached_tokens": 768, "audio_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 128, "audio_tokens": 0}}}`)),
	Entry("Chat Completions streamed: two tool calls in pieces, two choices interleaved", wire.Chat, sseHeader, sdkChatStream, sse(false, "data: [DONE]",
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_p1", "type": "function", "function": {"name": "tram_times", "arguments": ""}}]}, "finish_reason": null}]}`,
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [{"index": 1, "delta": {"role": "assistant", "content": "Which stop?"}, "finish_reason": null}]}`,
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"stop\": \"Ili"}}]}, "finish_reason": null}]}`,
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "ca\"}"}}]}, "finish_reason": null}]}`,
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "call_p2", "type": "function", "function": {"name": "fare", "arguments": "{\"zone\": 1}"}}]}, "finish_reason": null}]}`,
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [{"index": 1, "delta": {}, "finish_reason": "stop"}]}`,
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}`,
		`{"id": "chatcmpl-d5", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4.1-2025-04-14", "choices": [], "usage": {"prompt_tokens": 300, "completion_tokens": 44, "total_tokens": 344}}`)),
	Entry("Chat Completions streamed: a refusal in deltas", wire.Chat, sseHeader, sdkChatStream, sse(false, "data: [DONE]",
		`{"id": "chatcmpl-d6", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4o-2024-11-20", "choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "refusal": ""}, "finish_reason": null}]}`,
		`{"id": "chatcmpl-d6", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4o-2024-11-20", "choices": [{"index": 0, "delta": {"refusal": "I will not "}, "finish_reason": null}]}`,
		`{"id": "chatcmpl-d6", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4o-2024-11-20", "choices": [{"index": 0, "delta": {"refusal": "plan that."}, "finish_reason": "stop"}]}`,
		`{"id": "chatcmpl-d6", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-4o-2024-11-20", "choices": [], "usage": {"prompt_tokens": 51, "completion_tokens": 6, "total_tokens": 57}}`)),
)
