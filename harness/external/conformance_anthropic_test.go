package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// messagesCall is an Anthropic Messages request offering the ferry tool
// and web search, thinking on.
const messagesCall = `{"model": "claude-sonnet-4-5", "max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 2048},
	"system": [{"type": "text", "text": "You plan ferry trips.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
	"messages": [{"role": "user", "content": "Next boat to Vis?"}],
	"tools": [{"name": "ferry_times", "input_schema": {"type": "object", "properties": {"port": {"type": "string"}}}}, {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}]}`

// message is a Messages response of the given content blocks, stop
// reason and usage.
func message(content, stop, usage string) string {
	return `{"id": "msg_01Vis", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": ` + content + `,
		"stop_reason": "` + stop + `", "stop_sequence": null, "usage": ` + usage + `}`
}

// The blocks and usages of the examples.
const (
	thinkingBlock = `{"type": "thinking", "thinking": "The user wants the next sailing from Split.", "signature": "EqQBCkYIBxgCKkB0c2lnbmF0dXJl"}`
	redactedBlock = `{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr"}`
	// cachedUsage wrote the system prompt to the 1-hour cache and read
	// the rest from it.
	cachedUsage = `{"input_tokens": 23, "cache_creation_input_tokens": 1310, "cache_read_input_tokens": 2048,
		"cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1310}, "output_tokens": 412,
		"output_tokens_details": {"thinking_tokens": 301}, "server_tool_use": null, "service_tier": "standard"}`
)

// cachedRead is what cachedUsage reads as: input_tokens leaves the cache
// out, so the three add up.
var cachedRead = llm.Usage{InputTokens: 23 + 1310 + 2048, OutputTokens: 412, ReasoningTokens: 301, CacheReadTokens: 2048, CacheWriteTokens: 1310, CacheWrite1hTokens: 1310}

var _ = DescribeTable("Anthropic Messages traffic is read as the API documents it",
	func(answer reply, want read) {
		conform(anthropicEndpoint, "$ANTHROPIC_BASE_URL/v1/messages", messagesCall, answer, want)
	},
	Entry("thinking, text and a tool_use: the text and the call, cache reads and writes added to input_tokens",
		whole(message(`[`+thinkingBlock+`, {"type": "text", "text": "Let me check the timetable."}, {"type": "tool_use", "id": "toolu_01Fe", "name": "ferry_times", "input": {"port": "Split"}}]`, "tool_use", cachedUsage)),
		read{text: "Let me check the timetable.", calls: []string{`ferry_times {"port":"Split"}`}, usage: cachedRead, finish: llm.FinishToolCalls, raw: "tool_use"}),
	Entry("redacted thinking, a web search and its result, then cited text: the text only",
		whole(message(`[`+redactedBlock+`, {"type": "server_tool_use", "id": "srvtoolu_01Ws", "name": "web_search", "input": {"query": "Split Vis ferry"}},
			{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01Ws", "content": [{"type": "web_search_result", "url": "https://ferries.example/vis", "title": "Vis timetable", "encrypted_content": "EqgfCioIARgB", "page_age": "2 days ago"}]},
			{"type": "text", "text": "The next boat leaves at 14:30", "citations": [{"type": "web_search_result_location", "url": "https://ferries.example/vis", "title": "Vis timetable", "encrypted_index": "Eo8BCioIAhgB", "cited_text": "Split 14:30 Vis 16:50"}]},
			{"type": "text", "text": " from Split."}]`, "end_turn",
			`{"input_tokens": 5210, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 96, "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0}, "service_tier": "standard"}`)),
		read{text: "The next boat leaves at 14:30 from Split.", usage: llm.Usage{InputTokens: 5210, OutputTokens: 96, WebSearches: 1}, finish: llm.FinishStop, raw: "end_turn"}),
	Entry("a stop sequence met", whole(message(`[{"type": "text", "text": "14:30"}]`, "stop_sequence", `{"input_tokens": 30, "output_tokens": 3}`)),
		read{text: "14:30", usage: llm.Usage{InputTokens: 30, OutputTokens: 3}, finish: llm.FinishStop, raw: "stop_sequence"}),
	Entry("cut at max_tokens", whole(message(`[{"type": "text", "text": "The next boat"}]`, "max_tokens", `{"input_tokens": 30, "output_tokens": 4}`)),
		read{text: "The next boat", usage: llm.Usage{InputTokens: 30, OutputTokens: 4}, finish: llm.FinishLength, raw: "max_tokens"}),
	Entry("the context window full", whole(message(`[{"type": "text", "text": "The next boat"}]`, "model_context_window_exceeded", `{"input_tokens": 199990, "output_tokens": 10}`)),
		read{text: "The next boat", usage: llm.Usage{InputTokens: 199990, OutputTokens: 10}, finish: llm.FinishLength, raw: "model_context_window_exceeded"}),
	Entry("a refusal", whole(message(`[{"type": "text", "text": "I"}]`, "refusal", `{"input_tokens": 30, "output_tokens": 1}`)),
		read{text: "I", usage: llm.Usage{InputTokens: 30, OutputTokens: 1}, finish: llm.FinishContentFilter, raw: "refusal"}),
	Entry("a long server tool turn paused", whole(message(`[{"type": "server_tool_use", "id": "srvtoolu_02", "name": "web_search", "input": {"query": "Vis ferry"}}]`, "pause_turn", `{"input_tokens": 900, "output_tokens": 20}`)),
		read{usage: llm.Usage{InputTokens: 900, OutputTokens: 20}, finish: llm.FinishOther, raw: "pause_turn"}),
	Entry("429 rate limited", refused(429, `{"type": "error", "error": {"type": "rate_limit_error", "message": "This request would exceed the rate limit for your organization of 50 requests per minute."}, "request_id": "req_011Rate"}`),
		read{err: "Too Many Requests: "}),
	Entry("529 overloaded", refused(529, `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011Over"}`),
		read{err: "overloaded_error"}),
)

// messageStart is the message_start event of a streamed answer with
// usage as given.
func messageStart(usage string) string {
	return `{"type": "message_start", "message": {"id": "msg_01Vis", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": null, "stop_sequence": null, "usage": ` + usage + `}}`
}

var _ = DescribeTable("streamed Anthropic Messages traffic is put together as the API documents it",
	func(answer reply, want read) {
		conform(anthropicEndpoint, "$ANTHROPIC_BASE_URL/v1/messages", messagesCall, answer, want)
	},
	Entry("thinking and signature deltas, text deltas, a tool_use's input_json_delta pieces, ping between; message_delta's cumulative usage", events(
		messageStart(`{"input_tokens": 23, "cache_creation_input_tokens": 1310, "cache_read_input_tokens": 2048, "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1310}, "output_tokens": 1, "service_tier": "standard"}`),
		`{"type": "ping"}`,
		`{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants "}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "the next sailing."}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkB0c2lnbmF0dXJl"}}`,
		`{"type": "content_block_stop", "index": 0}`,
		`{"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}`,
		`{"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Let me check "}}`,
		`{"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "the timetable."}}`,
		`{"type": "content_block_stop", "index": 1}`,
		`{"type": "ping"}`,
		`{"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_01Fe", "name": "ferry_times", "input": {}}}`,
		`{"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": ""}}`,
		`{"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"port\": \"Sp"}}`,
		`{"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "lit\"}"}}`,
		`{"type": "content_block_stop", "index": 2}`,
		`{"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"input_tokens": 23, "cache_creation_input_tokens": 1310, "cache_read_input_tokens": 2048, "output_tokens": 412, "output_tokens_details": {"thinking_tokens": 301}}}`,
		`{"type": "message_stop"}`),
		read{text: "Let me check the timetable.", calls: []string{`ferry_times {"port":"Split"}`}, usage: cachedRead, finish: llm.FinishToolCalls, raw: "tool_use"}),
	Entry("a tool_use with no input deltas: its input the start's {}", events(
		messageStart(`{"input_tokens": 50, "output_tokens": 1}`),
		`{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_02", "name": "ferry_times", "input": {}}}`,
		`{"type": "content_block_stop", "index": 0}`,
		`{"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 12}}`,
		`{"type": "message_stop"}`),
		read{calls: []string{`ferry_times {}`}, usage: llm.Usage{InputTokens: 50, OutputTokens: 12}, finish: llm.FinishToolCalls, raw: "tool_use"}),
	Entry("a web search on the server: message_delta's input_tokens, grown by the results, over message_start's", events(
		messageStart(`{"input_tokens": 410, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 2}`),
		`{"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_01Ws", "name": "web_search", "input": {}}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"Split Vis ferry\"}"}}`,
		`{"type": "content_block_stop", "index": 0}`,
		`{"type": "content_block_start", "index": 1, "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01Ws", "content": [{"type": "web_search_result", "url": "https://ferries.example/vis", "title": "Vis timetable", "encrypted_content": "EqgfCioIARgB", "page_age": null}]}}`,
		`{"type": "content_block_stop", "index": 1}`,
		`{"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}`,
		`{"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "At 14:30."}}`,
		`{"type": "content_block_stop", "index": 2}`,
		`{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"input_tokens": 5210, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 96, "server_tool_use": {"web_search_requests": 1}}}`,
		`{"type": "message_stop"}`),
		read{text: "At 14:30.", usage: llm.Usage{InputTokens: 5210, OutputTokens: 96, WebSearches: 1}, finish: llm.FinishStop, raw: "end_turn"}),
	Entry("an overloaded_error event mid-stream", events(
		messageStart(`{"input_tokens": 50, "output_tokens": 1}`),
		`{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "The next"}}`,
		`{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`),
		read{err: "overloaded_error"}),
	Entry("cut before message_stop", events(
		messageStart(`{"input_tokens": 50, "output_tokens": 1}`),
		`{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "The next"}}`),
		read{err: "no message_stop"}),
)
