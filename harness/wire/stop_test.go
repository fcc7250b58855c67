package wire_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("stop sequences", func() {
	answer := llm.Message{Role: llm.RoleAssistant, Content: "Thought: look it up\nAction: search\nObservation: none",
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{}`)}}}

	DescribeTable("end the answer where the first sequence it writes starts",
		func(stop []string, content, met string, calls int) {
			msg, got := wire.Request{Stop: stop}.StopAt(answer)
			Expect(msg.Content).To(Equal(content))
			Expect(got).To(Equal(met))
			Expect(msg.ToolCalls).To(HaveLen(calls))
		},
		Entry("none given", nil, answer.Content, "", 1),
		Entry("none met", []string{"Final Answer:"}, answer.Content, "", 1),
		Entry("one met: the sequence left out, the calls after the text never made", []string{"\nObservation:"},
			"Thought: look it up\nAction: search", "\nObservation:", 0),
		Entry("the earliest of two, whatever their order", []string{"Observation:", "Action:"}, "Thought: look it up\n", "Action:", 0),
		Entry("an empty sequence is no sequence", []string{""}, answer.Content, "", 1),
	)

	DescribeTable("are read from each dialect's own field",
		func(d wire.Dialect, path, body string) {
			req, err := wire.Decode(d, path, []byte(body))
			Expect(err).NotTo(HaveOccurred())
			Expect(req.Stop).To(Equal([]string{"\nObservation:"}))
		},
		Entry("Chat, a string", wire.Chat, "/v1/chat/completions", `{"model": "m", "stop": "\nObservation:", "messages": [{"role": "user", "content": "hi"}]}`),
		Entry("Chat, an array", wire.Chat, "/v1/chat/completions", `{"model": "m", "stop": ["\nObservation:"], "messages": [{"role": "user", "content": "hi"}]}`),
		Entry("Anthropic", wire.Anthropic, "/v1/messages", `{"model": "m", "max_tokens": 9, "stop_sequences": ["\nObservation:"], "messages": [{"role": "user", "content": "hi"}]}`),
		Entry("Gemini", wire.Gemini, "/v1beta/models/m:generateContent", `{"generationConfig": {"stopSequences": ["\nObservation:"]}, "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}`),
		Entry("Gemini, snake_case", wire.Gemini, "/v1beta/models/m:generateContent", `{"generation_config": {"stop_sequences": ["\nObservation:"]}, "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}`),
	)
})
