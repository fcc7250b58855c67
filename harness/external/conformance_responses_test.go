package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// responsesCall is a Responses API request offering the ferry tools and
// web search.
const responsesCall = `{"model": "gpt-5-mini", "instructions": "You plan ferry trips.", "input": "Next boat to Vis, and the fare?", "reasoning": {"effort": "low", "summary": "auto"},
	"tools": [{"type": "function", "name": "ferry_times", "parameters": {"type": "object", "properties": {"port": {"type": "string"}}}, "strict": false},
	{"type": "function", "name": "fare", "parameters": {"type": "object", "properties": {"route": {"type": "string"}}}, "strict": false}, {"type": "web_search"}]}`

// response is a Responses API response of the given status, output,
// usage and what went wrong (done: nothing), as whole answers and the
// stream's events carry it.
func response(status, output, usage, wrong string) string {
	return `{"id": "resp_68a1", "object": "response", "created_at": 1767225600, "status": "` + status + `", "background": false,
		"instructions": "You plan ferry trips.", "max_output_tokens": null, "model": "gpt-5-mini-2025-08-07", "output": ` + output + `, "parallel_tool_calls": true,
		"previous_response_id": null, "reasoning": {"effort": "low", "summary": "auto"}, "store": true, "temperature": 1.0, "text": {"format": {"type": "text"}, "verbosity": "medium"},
		"tool_choice": "auto", "tools": [], "top_p": 1.0, "truncation": "disabled", "usage": ` + usage + `, "user": null, "metadata": {}, ` + wrong + `}`
}

// The output items of the examples.
const (
	reasoningItem = `{"id": "rs_01", "type": "reasoning", "summary": [{"type": "summary_text", "text": "**Checking the timetable** The user wants the next sailing."}]}`
	messageItem   = `{"id": "msg_01", "type": "message", "status": "completed", "role": "assistant",
		"content": [{"type": "output_text", "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 9, "url": "https://ferries.example/vis", "title": "Vis timetable"}], "logprobs": [], "text": "The 14:30 from Split; 6.20 EUR."}]}`
	callItems = `{"id": "fc_01", "type": "function_call", "status": "completed", "arguments": "{\"port\":\"Split\"}", "call_id": "call_r1", "name": "ferry_times"},
		{"id": "fc_02", "type": "function_call", "status": "completed", "arguments": "{\"route\":\"Split-Vis\"}", "call_id": "call_r2", "name": "fare"}`
	searchItem = `{"id": "ws_01", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "Split Vis ferry timetable", "sources": [{"type": "url", "url": "https://ferries.example/vis"}]}}`
	// done is what went wrong with a response that went right.
	done = `"error": null, "incomplete_details": null`
	// responsesUsage is a usage with cached input and reasoning output.
	responsesUsage = `{"input_tokens": 3120, "input_tokens_details": {"cached_tokens": 2944}, "output_tokens": 388, "output_tokens_details": {"reasoning_tokens": 320}, "total_tokens": 3508}`
)

// responsesRead is what responsesUsage reads as; searchedRead, beside
// one web_search_call item, billed per search.
var (
	responsesRead = llm.Usage{InputTokens: 3120, OutputTokens: 388, ReasoningTokens: 320, CacheReadTokens: 2944}
	searchedRead  = llm.Usage{InputTokens: 3120, OutputTokens: 388, ReasoningTokens: 320, CacheReadTokens: 2944, WebSearches: 1}
)

var _ = DescribeTable("Responses API traffic is read as the API documents it",
	func(answer reply, want read) {
		conform(openAIEndpoint, "$OPENAI_BASE_URL/responses", responsesCall, answer, want)
	},
	Entry("a reasoning item with its summary, then the message: the message's text, cached and reasoning tokens",
		whole(response("completed", `[`+reasoningItem+`, `+messageItem+`]`, responsesUsage, done)),
		read{text: "The 14:30 from Split; 6.20 EUR.", usage: responsesRead, finish: llm.FinishStop, raw: "completed"}),
	Entry("two function calls, by call_id", whole(response("completed", `[`+reasoningItem+`, `+callItems+`]`, responsesUsage, done)),
		read{calls: []string{`ferry_times {"port":"Split"}`, `fare {"route":"Split-Vis"}`}, usage: responsesRead, finish: llm.FinishToolCalls, raw: "completed"}),
	Entry("a hosted web search, then the message: the search left out", whole(response("completed", `[`+searchItem+`, `+messageItem+`]`, responsesUsage, done)),
		read{text: "The 14:30 from Split; 6.20 EUR.", usage: searchedRead, finish: llm.FinishStop, raw: "completed"}),
	Entry("cut at max_output_tokens", whole(response("incomplete", `[`+reasoningItem+`, {"id": "msg_02", "type": "message", "status": "incomplete", "role": "assistant", "content": [{"type": "output_text", "annotations": [], "text": "The 14:30"}]}]`,
		responsesUsage, `"error": null, "incomplete_details": {"reason": "max_output_tokens"}`)),
		read{text: "The 14:30", usage: responsesRead, finish: llm.FinishLength, raw: "incomplete: max_output_tokens"}),
	Entry("a refusal part, left out", whole(response("completed", `[{"id": "msg_03", "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "refusal", "refusal": "I can not help with that."}]}]`,
		`{"input_tokens": 40, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 49}`, done)),
		read{usage: llm.Usage{InputTokens: 40, OutputTokens: 9}, finish: llm.FinishStop, raw: "completed"}),
	Entry("429 rate limited", refused(429, `{"error": {"message": "Rate limit reached for gpt-5-mini on requests per min (RPM): Limit 500, Used 500, Requested 1.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`),
		read{err: "Too Many Requests: "}),
)

// The events of a streamed response that answers with reasoning, then
// text; sequence numbers in order.
var (
	streamCreated    = `{"type": "response.created", "sequence_number": 0, "response": ` + response("in_progress", `[]`, `null`, done) + `}`
	streamInProgress = `{"type": "response.in_progress", "sequence_number": 1, "response": ` + response("in_progress", `[]`, `null`, done) + `}`
	streamReasoning  = []string{
		`{"type": "response.output_item.added", "sequence_number": 2, "output_index": 0, "item": {"id": "rs_01", "type": "reasoning", "summary": []}}`,
		`{"type": "response.reasoning_summary_part.added", "sequence_number": 3, "item_id": "rs_01", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}`,
		`{"type": "response.reasoning_summary_text.delta", "sequence_number": 4, "item_id": "rs_01", "output_index": 0, "summary_index": 0, "delta": "**Checking the timetable** The user wants the next sailing.", "obfuscation": "x1"}`,
		`{"type": "response.reasoning_summary_text.done", "sequence_number": 5, "item_id": "rs_01", "output_index": 0, "summary_index": 0, "text": "**Checking the timetable** The user wants the next sailing."}`,
		`{"type": "response.reasoning_summary_part.done", "sequence_number": 6, "item_id": "rs_01", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": "**Checking the timetable** The user wants the next sailing."}}`,
		`{"type": "response.output_item.done", "sequence_number": 7, "output_index": 0, "item": ` + reasoningItem + `}`,
	}
)

var _ = DescribeTable("streamed Responses API traffic is put together as the API documents it",
	func(answer reply, want read) {
		conform(openAIEndpoint, "$OPENAI_BASE_URL/responses", responsesCall, answer, want)
	},
	Entry("reasoning with its summary, then text deltas, to response.completed", events(append(append([]string{streamCreated, streamInProgress}, streamReasoning...),
		`{"type": "response.output_item.added", "sequence_number": 8, "output_index": 1, "item": {"id": "msg_01", "type": "message", "status": "in_progress", "role": "assistant", "content": []}}`,
		`{"type": "response.content_part.added", "sequence_number": 9, "item_id": "msg_01", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}}`,
		`{"type": "response.output_text.delta", "sequence_number": 10, "item_id": "msg_01", "output_index": 1, "content_index": 0, "delta": "The 14:30 from Split;", "logprobs": [], "obfuscation": "a"}`,
		`{"type": "response.output_text.delta", "sequence_number": 11, "item_id": "msg_01", "output_index": 1, "content_index": 0, "delta": " 6.20 EUR.", "logprobs": [], "obfuscation": "b"}`,
		`{"type": "response.output_text.annotation.added", "sequence_number": 12, "item_id": "msg_01", "output_index": 1, "content_index": 0, "annotation_index": 0, "annotation": {"type": "url_citation", "start_index": 0, "end_index": 9, "url": "https://ferries.example/vis", "title": "Vis timetable"}}`,
		`{"type": "response.output_text.done", "sequence_number": 13, "item_id": "msg_01", "output_index": 1, "content_index": 0, "text": "The 14:30 from Split; 6.20 EUR.", "logprobs": []}`,
		`{"type": "response.content_part.done", "sequence_number": 14, "item_id": "msg_01", "output_index": 1, "content_index": 0, "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": "The 14:30 from Split; 6.20 EUR."}}`,
		`{"type": "response.output_item.done", "sequence_number": 15, "output_index": 1, "item": `+messageItem+`}`,
		`{"type": "response.completed", "sequence_number": 16, "response": `+response("completed", `[`+reasoningItem+`, `+messageItem+`]`, responsesUsage, done)+`}`)...),
		read{text: "The 14:30 from Split; 6.20 EUR.", usage: responsesRead, finish: llm.FinishStop, raw: "completed"}),
	Entry("function call arguments in deltas", events(streamCreated,
		`{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "fc_01", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_r1", "name": "ferry_times"}}`,
		`{"type": "response.function_call_arguments.delta", "sequence_number": 2, "item_id": "fc_01", "output_index": 0, "delta": "{\"port\":", "obfuscation": "c"}`,
		`{"type": "response.function_call_arguments.delta", "sequence_number": 3, "item_id": "fc_01", "output_index": 0, "delta": "\"Split\"}", "obfuscation": "d"}`,
		`{"type": "response.function_call_arguments.done", "sequence_number": 4, "item_id": "fc_01", "output_index": 0, "name": "ferry_times", "arguments": "{\"port\":\"Split\"}"}`,
		`{"type": "response.output_item.done", "sequence_number": 5, "output_index": 0, "item": {"id": "fc_01", "type": "function_call", "status": "completed", "arguments": "{\"port\":\"Split\"}", "call_id": "call_r1", "name": "ferry_times"}}`,
		`{"type": "response.completed", "sequence_number": 6, "response": `+response("completed", `[{"id": "fc_01", "type": "function_call", "status": "completed", "arguments": "{\"port\":\"Split\"}", "call_id": "call_r1", "name": "ferry_times"}]`,
			`{"input_tokens": 300, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 22, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 322}`, done)+`}`),
		read{calls: []string{`ferry_times {"port":"Split"}`}, usage: llm.Usage{InputTokens: 300, OutputTokens: 22}, finish: llm.FinishToolCalls, raw: "completed"}),
	Entry("a hosted web search's events, then text", events(streamCreated,
		`{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "ws_01", "type": "web_search_call", "status": "in_progress"}}`,
		`{"type": "response.web_search_call.in_progress", "sequence_number": 2, "output_index": 0, "item_id": "ws_01"}`,
		`{"type": "response.web_search_call.searching", "sequence_number": 3, "output_index": 0, "item_id": "ws_01"}`,
		`{"type": "response.web_search_call.completed", "sequence_number": 4, "output_index": 0, "item_id": "ws_01"}`,
		`{"type": "response.output_item.done", "sequence_number": 5, "output_index": 0, "item": `+searchItem+`}`,
		`{"type": "response.output_item.added", "sequence_number": 6, "output_index": 1, "item": {"id": "msg_01", "type": "message", "status": "in_progress", "role": "assistant", "content": []}}`,
		`{"type": "response.output_text.delta", "sequence_number": 7, "item_id": "msg_01", "output_index": 1, "content_index": 0, "delta": "The 14:30 from Split; 6.20 EUR.", "logprobs": []}`,
		`{"type": "response.output_item.done", "sequence_number": 8, "output_index": 1, "item": `+messageItem+`}`,
		`{"type": "response.completed", "sequence_number": 9, "response": `+response("completed", `[`+searchItem+`, `+messageItem+`]`, responsesUsage, done)+`}`),
		read{text: "The 14:30 from Split; 6.20 EUR.", usage: searchedRead, finish: llm.FinishStop, raw: "completed"}),
	Entry("response.incomplete at max_output_tokens", events(streamCreated,
		`{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "msg_02", "type": "message", "status": "in_progress", "role": "assistant", "content": []}}`,
		`{"type": "response.output_text.delta", "sequence_number": 2, "item_id": "msg_02", "output_index": 0, "content_index": 0, "delta": "The 14:30", "logprobs": []}`,
		`{"type": "response.incomplete", "sequence_number": 3, "response": `+response("incomplete", `[{"id": "msg_02", "type": "message", "status": "incomplete", "role": "assistant", "content": [{"type": "output_text", "annotations": [], "text": "The 14:30"}]}]`,
			responsesUsage, `"error": null, "incomplete_details": {"reason": "max_output_tokens"}`)+`}`),
		read{text: "The 14:30", usage: responsesRead, finish: llm.FinishLength, raw: "incomplete: max_output_tokens"}),
	Entry("response.failed", events(streamCreated,
		`{"type": "response.failed", "sequence_number": 1, "response": `+response("failed", `[]`, `null`, `"error": {"code": "server_error", "message": "The model failed to generate a response."}, "incomplete_details": null`)+`}`),
		read{err: "server_error"}),
	Entry("an error event", events(streamCreated,
		`{"type": "error", "sequence_number": 1, "code": "rate_limit_exceeded", "message": "Rate limit reached for gpt-5-mini.", "param": null}`),
		read{err: "rate_limit_exceeded"}),
	Entry("cut before its terminal event", events(streamCreated,
		`{"type": "response.output_text.delta", "sequence_number": 1, "item_id": "msg_02", "output_index": 0, "content_index": 0, "delta": "The 14:30", "logprobs": []}`),
		read{err: "without response.completed"}),
)
