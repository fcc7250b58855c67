package wire_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("Ollama's native chat read from the wire", func() {
	// tideTalk is an /api/chat conversation in which the model called two
	// tools at once and got both results back.
	const tideTalk = `{"model": "qwen3:14b", "stream": false,
		"messages": [
			{"role": "system", "content": "You keep a harbour log."},
			{"role": "user", "content": "High tide and wind at Brest?", "images": ["aGVsbG8="]},
			{"role": "assistant", "content": "", "thinking": "Two look-ups.", "tool_calls": [
				{"function": {"name": "tide_table", "arguments": {"port": "Brest"}}},
				{"function": {"name": "wind_now", "arguments": {"port": "Brest", "unit": "kn"}}}]},
			{"role": "tool", "tool_name": "wind_now", "content": "NW 14 kn"},
			{"role": "tool", "tool_name": "tide_table", "content": "high water 14:52"}],
		"tools": [{"type": "function", "function": {"name": "tide_table", "description": "Tides of a port.",
			"parameters": {"type": "object", "properties": {"port": {"type": "string"}}}}},
			{"type": "function", "function": {"name": "wind_now", "description": "Wind at a port."}}],
		"options": {"temperature": 0.2, "num_predict": 300, "stop": ["<end>"], "num_ctx": 8192}}`

	It("reads messages, calls numbered by place, results paired by tool_name, tools and options", func() {
		r, err := wire.Decode(wire.Ollama, "/api/chat", []byte(tideTalk))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Model).To(Equal("qwen3:14b"))
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleSystem, Content: "You keep a harbour log."},
			{Role: llm.RoleUser, Content: "High tide and wind at Brest?"},
			{Role: llm.RoleAssistant, Calls: 2},
			{Role: llm.RoleTool, Content: "NW 14 kn", ID: wire.CallID(2), Name: "wind_now"},
			{Role: llm.RoleTool, Content: "high water 14:52", ID: wire.CallID(1), Name: "tide_table"},
		}))
		Expect(r.System()).To(Equal("You keep a harbour log."))
		calls := r.Messages[2].ToolCalls
		Expect(calls[0].ID).To(Equal(wire.CallID(1)))
		Expect(calls[1].Arguments).To(MatchJSON(`{"port": "Brest", "unit": "kn"}`))
		Expect(r.Tools).To(HaveLen(2))
		Expect(r.Tools[0].Parameters).To(MatchJSON(`{"type": "object", "properties": {"port": {"type": "string"}}}`))
		Expect(r.MaxTokens).To(Equal(300))
		Expect(r.Stop).To(Equal([]string{"<end>"}))
		Expect(r.Output).To(BeEmpty())
	})

	It("reads a completion (/api/generate) as a system and a user message, and its path as Ollama's", func() {
		d, model := wire.Of("/api/generate")
		Expect(model).To(BeTrue())
		Expect(d).To(Equal(wire.Ollama))
		r, err := wire.Decode(wire.Ollama, "/api/generate", []byte(`{"model": "gemma3:4b", "system": "You keep a harbour log.", "prompt": "High tide at Brest?", "options": {"num_predict": 80}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Model).To(Equal("gemma3:4b"))
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleSystem, Content: "You keep a harbour log."},
			{Role: llm.RoleUser, Content: "High tide at Brest?"},
		}))
		Expect(r.MaxTokens).To(Equal(80))
	})

	DescribeTable("reads what a request asks of its answer",
		func(body string, want wire.Request) {
			r, err := wire.Decode(wire.Ollama, "/api/chat", []byte(body))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Output).To(Equal(want.Output))
			Expect(r.Shape).To(Equal(want.Shape))
			if want.Schema == nil {
				Expect(r.Schema).To(BeNil())
			} else {
				Expect(r.Schema).To(MatchJSON(want.Schema))
			}
			Expect(r.MaxTokens).To(Equal(want.MaxTokens))
		},
		Entry("format json is JSON mode", `{"model": "m", "format": "json", "messages": []}`, wire.Request{Output: llm.OutputJSON}),
		Entry("a schema as format is JSON with that schema, its title the shape",
			`{"model": "m", "format": {"title": "Berth", "type": "object"}, "messages": []}`,
			wire.Request{Output: llm.OutputJSON, Shape: "Berth", Schema: json.RawMessage(`{"title": "Berth", "type": "object"}`)}),
		Entry("num_predict -1 is no limit", `{"model": "m", "options": {"num_predict": -1}, "messages": []}`, wire.Request{}),
	)

	It("pairs a tool message without tool_name with the earliest unanswered call, as older clients send them", func() {
		r, err := wire.Decode(wire.Ollama, "/api/chat", []byte(`{"model": "m", "messages": [
			{"role": "user", "content": "Moorings free?"},
			{"role": "assistant", "content": "Checking.", "tool_calls": [{"function": {"name": "moorings", "arguments": null}}]},
			{"role": "tool", "content": "3 free"}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Messages[1].ToolCalls[0].Arguments).To(MatchJSON(`{}`))
		Expect(saidOf(r.Messages)[2]).To(Equal(said{Role: llm.RoleTool, Content: "3 free", ID: wire.CallID(1), Name: "moorings"}))
	})

	It("refuses a format that is neither json nor a schema", func() {
		_, err := wire.Decode(wire.Ollama, "/api/chat", []byte(`{"model": "m", "format": "yaml", "messages": []}`))
		Expect(err).To(MatchError(ContainSubstring("format")))
	})

	DescribeTable("reads an answer, whole or streamed, as the clients put it together",
		func(body string, want llm.Response) {
			got, err := wire.ReadOllama([]byte(body))
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Message.Content).To(Equal(want.Message.Content))
			Expect(got.Usage).To(Equal(want.Usage))
			Expect(got.FinishReason).To(Equal(want.FinishReason))
			Expect(got.RawFinishReason).To(Equal(want.RawFinishReason))
			Expect(got.Message.ToolCalls).To(HaveLen(len(want.Message.ToolCalls)))
			for i, c := range want.Message.ToolCalls {
				Expect(got.Message.ToolCalls[i].Name).To(Equal(c.Name))
				Expect(got.Message.ToolCalls[i].Arguments).To(MatchJSON(c.Arguments))
			}
		},
		Entry("whole", `{"model": "qwen3:14b", "created_at": "2026-03-02T08:00:00.1Z",
			"message": {"role": "assistant", "content": "High water 14:52."}, "done": true, "done_reason": "stop",
			"total_duration": 912000000, "prompt_eval_count": 61, "eval_count": 9}`,
			llm.Response{Message: llm.Message{Content: "High water 14:52."}, Usage: llm.Usage{InputTokens: 61, OutputTokens: 9},
				FinishReason: llm.FinishStop, RawFinishReason: "stop"}),
		Entry("streamed, with a call", `{"model": "qwen3:14b", "message": {"role": "assistant", "content": "Let me "}, "done": false}
{"model": "qwen3:14b", "message": {"role": "assistant", "content": "look."}, "done": false}
{"model": "qwen3:14b", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "tide_table", "arguments": {"port": "Brest"}}}]}, "done": false}
{"model": "qwen3:14b", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "prompt_eval_count": 40, "eval_count": 17}
`,
			llm.Response{Message: llm.Message{Content: "Let me look.", ToolCalls: []llm.ToolCall{{Name: "tide_table", Arguments: json.RawMessage(`{"port": "Brest"}`)}}},
				Usage: llm.Usage{InputTokens: 40, OutputTokens: 17}, FinishReason: llm.FinishToolCalls, RawFinishReason: "stop"}),
		Entry("a completion's, streamed: its text in response", `{"model": "m", "response": "High ", "done": false}
{"model": "m", "response": "water.", "done": false}
{"model": "m", "response": "", "done": true, "done_reason": "stop", "context": [1, 2, 3], "prompt_eval_count": 12, "eval_count": 3}
`,
			llm.Response{Message: llm.Message{Content: "High water."}, Usage: llm.Usage{InputTokens: 12, OutputTokens: 3},
				FinishReason: llm.FinishStop, RawFinishReason: "stop"}),
		Entry("cut at num_predict", `{"model": "m", "message": {"role": "assistant", "content": "High wa"}, "done": true, "done_reason": "length", "prompt_eval_count": 5, "eval_count": 2}`,
			llm.Response{Message: llm.Message{Content: "High wa"}, Usage: llm.Usage{InputTokens: 5, OutputTokens: 2},
				FinishReason: llm.FinishLength, RawFinishReason: "length"}),
	)

	DescribeTable("says why it cannot read an answer",
		func(body, want string) {
			_, err := wire.ReadOllama([]byte(body))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("an error line in a stream", `{"model": "m", "message": {"content": "Hi"}, "done": false}
{"error": "model runner has unexpectedly stopped"}`, "unexpectedly stopped"),
		Entry("a stream cut before its done chunk", `{"model": "m", "message": {"content": "Hi"}, "done": false}`, "before its done chunk"),
		Entry("a line that is not JSON", `{"model": "m", "message": {"content": "Hi`, "ollama answer"),
	)
})
