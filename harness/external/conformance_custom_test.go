package external_test

import (
	"net/http"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// OpenAI's custom tools (type custom): the model calls them with free
// text (input), not JSON arguments, in either API. A call's input is read
// as its arguments, a JSON string.

// inTurn answers the n-th request with the n-th reply, the last one after.
type inTurn struct {
	mu      sync.Mutex
	n       int
	replies []reply
}

func (a *inTurn) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	next := a.replies[min(a.n, len(a.replies)-1)]
	a.n++
	a.mu.Unlock()
	return next.RoundTrip(r)
}

// The patch the examples' model writes with apply_patch.
const (
	patch     = `*** Begin Patch\n*** Update File: fares.txt\n-Vis 5.90\n+Vis 6.20\n*** End Patch`
	patchRead = `apply_patch "*** Begin Patch\n*** Update File: fares.txt\n-Vis 5.90\n+Vis 6.20\n*** End Patch"`
	// customTool is the apply_patch tool, as the Responses API takes it.
	customTool = `{"type": "custom", "name": "apply_patch", "description": "Edit files with a patch.", "format": {"type": "grammar", "syntax": "lark", "definition": "start: /[\\s\\S]+/"}}`
	// customCallItem is its call, as an output item and an input item.
	customCallItem = `{"id": "ctc_01", "type": "custom_tool_call", "status": "completed", "call_id": "call_p1", "name": "apply_patch", "input": "` + patch + `"}`
	// chatCustomCall is a Chat Completions answer calling it.
	chatCustomCall = `{"id": "chatcmpl-p1", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-2025-08-07",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": null, "annotations": [],
			"tool_calls": [{"id": "call_p1", "type": "custom", "custom": {"name": "apply_patch", "input": "` + patch + `"}}]}, "logprobs": null, "finish_reason": "tool_calls"}],
		"usage": {"prompt_tokens": 500, "completion_tokens": 60, "total_tokens": 560}}`
)

var _ = DescribeTable("a custom tool call is read as a tool call, its input the arguments",
	func(url, request string, answer reply) {
		conform(openAIEndpoint, url, request, answer, read{calls: []string{patchRead}, usage: llm.Usage{InputTokens: 500, OutputTokens: 60}, finish: llm.FinishToolCalls, raw: map[string]string{
			"$OPENAI_BASE_URL/responses": "completed", "$OPENAI_BASE_URL/chat/completions": "tool_calls"}[url]})
	},
	Entry("Responses, whole", "$OPENAI_BASE_URL/responses", `{"model": "gpt-5", "input": "Raise the Vis fare to 6.20.", "tools": [`+customTool+`]}`,
		whole(response("completed", `[`+customCallItem+`]`, `{"input_tokens": 500, "output_tokens": 60, "total_tokens": 560}`, done))),
	Entry("Responses, streamed", "$OPENAI_BASE_URL/responses", `{"model": "gpt-5", "stream": true, "input": "Raise the Vis fare to 6.20.", "tools": [`+customTool+`]}`,
		events(streamCreated,
			`{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "ctc_01", "type": "custom_tool_call", "status": "in_progress", "call_id": "call_p1", "name": "apply_patch", "input": ""}}`,
			`{"type": "response.custom_tool_call_input.delta", "sequence_number": 2, "item_id": "ctc_01", "output_index": 0, "delta": "*** Begin Patch\n"}`,
			`{"type": "response.custom_tool_call_input.delta", "sequence_number": 3, "item_id": "ctc_01", "output_index": 0, "delta": "*** Update File: fares.txt\n-Vis 5.90\n+Vis 6.20\n*** End Patch"}`,
			`{"type": "response.custom_tool_call_input.done", "sequence_number": 4, "item_id": "ctc_01", "output_index": 0, "input": "`+patch+`"}`,
			`{"type": "response.output_item.done", "sequence_number": 5, "output_index": 0, "item": `+customCallItem+`}`,
			`{"type": "response.completed", "sequence_number": 6, "response": `+response("completed", `[`+customCallItem+`]`, `{"input_tokens": 500, "output_tokens": 60, "total_tokens": 560}`, done)+`}`)),
	Entry("Chat Completions, whole", "$OPENAI_BASE_URL/chat/completions",
		`{"model": "gpt-5", "messages": [{"role": "user", "content": "Raise the Vis fare to 6.20."}], "tools": [{"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files with a patch."}}]}`,
		whole(chatCustomCall)),
	// openai-node's ChatCompletionChunk.Choice.Delta.ToolCall has custom
	// (name, input) beside function, and its ChatCompletionStream appends
	// the pieces of custom.input; openai-go's and openai-python's chunk
	// types have no custom member yet.
	Entry("Chat Completions, streamed: the call's first delta with its id, type custom and name, then its input in pieces by index", "$OPENAI_BASE_URL/chat/completions",
		`{"model": "gpt-5", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "Raise the Vis fare to 6.20."}], "tools": [{"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files with a patch."}}]}`,
		chunks("data: [DONE]",
			chatChunk(`[{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "call_p1", "type": "custom", "custom": {"name": "apply_patch", "input": ""}}]}, "finish_reason": null}]`, `null`),
			chatChunk(`[{"index": 0, "delta": {"tool_calls": [{"index": 0, "custom": {"input": "*** Begin Patch\n*** Update File: fares.txt\n"}}]}, "finish_reason": null}]`, `null`),
			chatChunk(`[{"index": 0, "delta": {"tool_calls": [{"index": 0, "custom": {"input": "-Vis 5.90\n+Vis 6.20\n*** End Patch"}}]}, "finish_reason": null}]`, `null`),
			chatChunk(`[{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]`, `null`),
			chatChunk(`[]`, `{"prompt_tokens": 500, "completion_tokens": 60, "total_tokens": 560}`))),
)

var _ = DescribeTable("a custom tool, its call sent back and the call's output are read as the tool offered, the call and its result",
	func(url, first, second string, answers ...reply) {
		tr := runOver(&inTurn{replies: answers}, openAIEndpoint, nil,
			`curl -s -X POST "`+url+`" -H 'Content-Type: application/json' -d '`+first+`' >/dev/null
			curl -s -X POST "`+url+`" -H 'Content-Type: application/json' -d '`+second+`' >/dev/null`)
		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.calls[0].Tools).To(ConsistOf(HaveField("Name", "apply_patch")), "the custom tool is offered")
		Expect(tr.calls[0].Tools[0].Description).To(Equal("Edit files with a patch."))
		Expect(tr.calls[1].Messages).To(ContainElement(And(HaveField("Role", llm.RoleTool), HaveField("ToolCallID", "call_p1"), HaveField("Content", "Done. fares.txt updated."))))
		Expect(tr.tools).To(Equal([]string{patchRead[:len("apply_patch ")] + `"*** Begin Patch\n*** Update File: fares.txt\n-Vis 5.90\n+Vis 6.20\n*** End Patch"` +
			" raw=Done. fares.txt updated. context=Done. fares.txt updated."}), "the call answered, no error")
	},
	Entry("Responses: custom_tool_call and custom_tool_call_output items", "$OPENAI_BASE_URL/responses",
		`{"model": "gpt-5", "input": "Raise the Vis fare to 6.20.", "tools": [`+customTool+`]}`,
		`{"model": "gpt-5", "input": [{"role": "user", "content": "Raise the Vis fare to 6.20."}, `+customCallItem+`, {"type": "custom_tool_call_output", "call_id": "call_p1", "output": "Done. fares.txt updated."}], "tools": [`+customTool+`]}`,
		whole(response("completed", `[`+customCallItem+`]`, `{"input_tokens": 500, "output_tokens": 60, "total_tokens": 560}`, done)),
		whole(response("completed", `[`+messageItem+`]`, `{"input_tokens": 580, "output_tokens": 12, "total_tokens": 592}`, done))),
	Entry("Chat Completions: a custom tool call in the assistant message, a tool message after", "$OPENAI_BASE_URL/chat/completions",
		`{"model": "gpt-5", "messages": [{"role": "user", "content": "Raise the Vis fare to 6.20."}], "tools": [{"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files with a patch."}}]}`,
		`{"model": "gpt-5", "messages": [{"role": "user", "content": "Raise the Vis fare to 6.20."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "call_p1", "type": "custom", "custom": {"name": "apply_patch", "input": "`+patch+`"}}]},
			{"role": "tool", "tool_call_id": "call_p1", "content": "Done. fares.txt updated."}], "tools": [{"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files with a patch."}}]}`,
		whole(`{"id": "chatcmpl-p1", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-2025-08-07",
			"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_p1", "type": "custom", "custom": {"name": "apply_patch", "input": "`+patch+`"}}]}, "finish_reason": "tool_calls"}],
			"usage": {"prompt_tokens": 500, "completion_tokens": 60, "total_tokens": 560}}`),
		whole(`{"id": "chatcmpl-p2", "object": "chat.completion", "created": 1767225600, "model": "gpt-5-2025-08-07",
			"choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 580, "completion_tokens": 2, "total_tokens": 582}}`)),
)

var _ = DescribeTable("a custom tool's call that the request forced, to which no result came back, is the answer in the tool's grammar, not a tool call",
	func(url, request string, answer reply) {
		tr := runOver(answer, openAIEndpoint, nil, `curl -s -X POST "`+url+`" -H 'Content-Type: application/json' -d '`+request+`' >/dev/null`)
		Expect(tr.calls).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls).To(ConsistOf(HaveField("Name", "apply_patch")), "the call is read")
		Expect(tr.tools).To(BeEmpty(), "as a forced function's call is (structured output through a tool)")
	},
	Entry("Chat Completions, tool_choice naming the custom tool", "$OPENAI_BASE_URL/chat/completions",
		`{"model": "gpt-5", "messages": [{"role": "user", "content": "Raise the Vis fare to 6.20."}], "tools": [{"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files with a patch."}}],
			"tool_choice": {"type": "custom", "custom": {"name": "apply_patch"}}}`,
		whole(chatCustomCall)),
	Entry("Chat Completions, allowed_tools of the custom tool alone, required", "$OPENAI_BASE_URL/chat/completions",
		`{"model": "gpt-5", "messages": [{"role": "user", "content": "Raise the Vis fare to 6.20."}], "tools": [{"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files with a patch."}}],
			"tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "custom", "custom": {"name": "apply_patch"}}]}}}`,
		whole(chatCustomCall)),
	Entry("Responses, tool_choice naming the custom tool", "$OPENAI_BASE_URL/responses",
		`{"model": "gpt-5", "input": "Raise the Vis fare to 6.20.", "tools": [`+customTool+`], "tool_choice": {"type": "custom", "name": "apply_patch"}}`,
		whole(response("completed", `[`+customCallItem+`]`, `{"input_tokens": 500, "output_tokens": 60, "total_tokens": 560}`, done))),
)
