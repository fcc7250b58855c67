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
			msg, got := wire.Request{Sampling: llm.Sampling{Stop: stop}}.StopAt(answer)
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

var _ = Describe("a token limit", func() {
	tool := []llm.ToolCall{{ID: "call_1", Name: "search", Arguments: json.RawMessage(`{"q": "tides"}`)}}

	DescribeTable("ends the answer where a model given it stops",
		func(limit int, msg llm.Message, out int, content string, calls, reported int, cut bool) {
			got, n, was, err := wire.Request{MaxTokens: limit}.LimitAt(msg, out)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Content).To(Equal(content))
			Expect(got.ToolCalls).To(HaveLen(calls))
			Expect(n).To(Equal(reported))
			Expect(was).To(Equal(cut))
		},
		Entry("none given", 0, llm.Message{Content: "The tide is high."}, 5, "The tide is high.", 0, 5, false),
		Entry("an answer that fits", 5, llm.Message{Content: "The tide is high."}, 5, "The tide is high.", 0, 5, false),
		Entry("text over it: its first tokens", 3, llm.Message{Content: "The tide is high."}, 5, "The tide is", 0, 3, true),
		Entry("a character the last token would split is left out", 2, llm.Message{Content: "ok 🌍"}, 4, "ok ", 0, 2, true),
		Entry("text that fits, then calls that do not: the calls never made", 6, llm.Message{Content: "Looking.", ToolCalls: tool}, 12, "Looking.", 0, 6, true),
	)
})
