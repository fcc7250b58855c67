package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// cacheWritten is the usage read of the answers below: 1,024 of the 1,650
// prompt tokens read from the cache, 512 written to it.
var cacheWritten = llm.Usage{InputTokens: 1650, OutputTokens: 70, ReasoningTokens: 40, CacheReadTokens: 1024, CacheWriteTokens: 512}

// OpenAI reports the prompt tokens it wrote to its cache beside those it
// read (Chat Completions' prompt_tokens_details.cache_write_tokens, the
// Responses API's input_tokens_details.cache_write_tokens), as openai-go's
// usage types read them; they are part of the prompt's tokens.
var _ = DescribeTable("the prompt tokens OpenAI wrote to its cache are read as the cache's writes",
	func(url, request string, answer reply, raw string) {
		conform(openAIEndpoint, url, request, answer, read{text: "The 14:30 from Split.", usage: cacheWritten, finish: llm.FinishStop, raw: raw})
	},
	Entry("Chat Completions", "$OPENAI_BASE_URL/chat/completions", chatCall, whole(`{"id": "chatcmpl-w1", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-mini-2025-08-07",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "The 14:30 from Split.", "refusal": null, "annotations": []}, "logprobs": null, "finish_reason": "stop"}],
		"usage": {"prompt_tokens": 1650, "completion_tokens": 70, "total_tokens": 1720,
			"prompt_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 512, "audio_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 40, "audio_tokens": 0}}}`), "stop"),
	Entry("Chat Completions streamed, in the usage chunk", "$OPENAI_BASE_URL/chat/completions", chatStreamCall, chunks("data: [DONE]",
		`{"id": "chatcmpl-w2", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "The 14:30 from Split."}, "finish_reason": null}], "usage": null}`,
		`{"id": "chatcmpl-w2", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": null}`,
		`{"id": "chatcmpl-w2", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-5-mini-2025-08-07", "choices": [],
			"usage": {"prompt_tokens": 1650, "completion_tokens": 70, "total_tokens": 1720, "prompt_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 512}, "completion_tokens_details": {"reasoning_tokens": 40}}}`), "stop"),
	Entry("the Responses API", "$OPENAI_BASE_URL/responses", responsesCall, whole(`{"id": "resp_w3", "object": "response", "created_at": 1767225600, "status": "completed", "model": "gpt-5-mini-2025-08-07",
		"output": [{"id": "msg_w3", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "The 14:30 from Split.", "annotations": []}]}],
		"usage": {"input_tokens": 1650, "input_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 512}, "output_tokens": 70, "output_tokens_details": {"reasoning_tokens": 40}, "total_tokens": 1720}}`), "completed"),
	Entry("the Responses API streamed, in response.completed", "$OPENAI_BASE_URL/responses", responsesCall, events(
		`{"type": "response.created", "sequence_number": 0, "response": {"id": "resp_w4", "object": "response", "created_at": 1767225600, "status": "in_progress", "model": "gpt-5-mini-2025-08-07", "output": []}}`,
		`{"type": "response.output_text.delta", "sequence_number": 1, "item_id": "msg_w4", "output_index": 0, "content_index": 0, "delta": "The 14:30 from Split."}`,
		`{"type": "response.completed", "sequence_number": 2, "response": {"id": "resp_w4", "object": "response", "created_at": 1767225600, "status": "completed", "model": "gpt-5-mini-2025-08-07",
			"output": [{"id": "msg_w4", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "The 14:30 from Split.", "annotations": []}]}],
			"usage": {"input_tokens": 1650, "input_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 512}, "output_tokens": 70, "output_tokens_details": {"reasoning_tokens": 40}, "total_tokens": 1720}}}`), "completed"),
)
