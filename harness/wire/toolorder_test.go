package wire_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("SortToolResults", func() {
	sorted := func(body string) string {
		var v any
		Expect(json.Unmarshal([]byte(body), &v)).To(Succeed())
		wire.SortToolResults(v)
		out, err := wire.MarshalPlain(v)
		Expect(err).NotTo(HaveOccurred())
		return string(out)
	}

	DescribeTable("makes one turn's tool results in another order the same request, in each dialect",
		func(inOrder, swapped string) {
			Expect(inOrder).NotTo(Equal(swapped))
			Expect(sorted(swapped)).To(Equal(sorted(inOrder)))
		},
		Entry("Chat Completions: tool messages",
			`{"messages": [{"role": "user", "content": "Oslo and Lima"}, {"role": "assistant", "tool_calls": [{"id": "c1"}, {"id": "c2"}]},
				{"role": "tool", "tool_call_id": "c1", "content": "-3 C"}, {"role": "tool", "tool_call_id": "c2", "content": "19 C"}]}`,
			`{"messages": [{"role": "user", "content": "Oslo and Lima"}, {"role": "assistant", "tool_calls": [{"id": "c1"}, {"id": "c2"}]},
				{"role": "tool", "tool_call_id": "c2", "content": "19 C"}, {"role": "tool", "tool_call_id": "c1", "content": "-3 C"}]}`),
		Entry("Responses: function_call_output items",
			`{"input": [{"type": "function_call", "call_id": "c1"}, {"type": "function_call", "call_id": "c2"},
				{"type": "function_call_output", "call_id": "c1", "output": "-3 C"}, {"type": "function_call_output", "call_id": "c2", "output": "19 C"}]}`,
			`{"input": [{"type": "function_call", "call_id": "c1"}, {"type": "function_call", "call_id": "c2"},
				{"type": "function_call_output", "call_id": "c2", "output": "19 C"}, {"type": "function_call_output", "call_id": "c1", "output": "-3 C"}]}`),
		Entry("Anthropic: tool_result blocks of one user message",
			`{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "-3 C"}, {"type": "tool_result", "tool_use_id": "t2", "content": "19 C"}]}]}`,
			`{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "19 C"}, {"type": "tool_result", "tool_use_id": "t1", "content": "-3 C"}]}]}`),
		Entry("Gemini: functionResponse parts",
			`{"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "oslo", "response": {"t": -3}}}, {"functionResponse": {"name": "lima", "response": {"t": 19}}}]}]}`,
			`{"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "lima", "response": {"t": 19}}}, {"functionResponse": {"name": "oslo", "response": {"t": -3}}}]}]}`),
		Entry("Gemini's Interactions API: function_result steps",
			`{"input": [{"type": "function_call", "id": "f1"}, {"type": "function_call", "id": "f2"},
				{"type": "function_result", "call_id": "f1", "result": "-3 C"}, {"type": "function_result", "call_id": "f2", "result": "19 C"}]}`,
			`{"input": [{"type": "function_call", "id": "f1"}, {"type": "function_call", "id": "f2"},
				{"type": "function_result", "call_id": "f2", "result": "19 C"}, {"type": "function_result", "call_id": "f1", "result": "-3 C"}]}`),
		Entry("Ollama's chat: tool messages named by their tool",
			`{"messages": [{"role": "tool", "tool_name": "oslo", "content": "-3 C"}, {"role": "tool", "tool_name": "lima", "content": "19 C"}]}`,
			`{"messages": [{"role": "tool", "tool_name": "lima", "content": "19 C"}, {"role": "tool", "tool_name": "oslo", "content": "-3 C"}]}`),
	)

	DescribeTable("moves nothing but tool results, nor one across another message",
		func(body string) {
			var v any
			Expect(json.Unmarshal([]byte(body), &v)).To(Succeed())
			plain, _ := wire.MarshalPlain(v)
			Expect(sorted(body)).To(Equal(string(plain)))
		},
		Entry("user messages in any order stay as they are",
			`{"messages": [{"role": "user", "content": "b"}, {"role": "user", "content": "a"}]}`),
		Entry("two tool results with a message between them",
			`{"messages": [{"role": "tool", "tool_call_id": "c2", "content": "b"}, {"role": "assistant", "content": "x"}, {"role": "tool", "tool_call_id": "c1", "content": "a"}]}`),
		Entry("a text block beside a tool result",
			`{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2"}, {"type": "text", "text": "and?"}, {"type": "tool_result", "tool_use_id": "t1"}]}]}`),
	)
})
