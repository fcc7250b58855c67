package wire_test

import (
	"bytes"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/wire"
)

// An older @anthropic-ai/sdk (0.30.1) sent its bodies indented, a newer
// one (1.14.0) compact: the same conversation, which a replay matches
// either way. Written here in our own words, with the shapes of each API.
var _ = Describe("a tool call's object arguments and results, indented by one client and not by another", func() {
	// indented is body as an SDK that indents its JSON sends it.
	indented := func(body string) []byte {
		GinkgoHelper()
		var b bytes.Buffer
		Expect(json.Indent(&b, []byte(body), "", "  ")).To(Succeed())
		return b.Bytes()
	}
	// counted is the input tokens counted for a body of dialect d sent to path.
	counted := func(d wire.Dialect, path string, body []byte) (llm.Request, int) {
		GinkgoHelper()
		req, err := wire.Decode(d, path, body)
		Expect(err).NotTo(HaveOccurred())
		c, err := tokens.New("o200k_base")
		Expect(err).NotTo(HaveOccurred())
		return llm.Request{Messages: req.Messages, Tools: req.Tools}, c.Request(llm.Request{Messages: req.Messages, Tools: req.Tools}).Total()
	}

	DescribeTable("are read compact, and counted the same",
		func(d wire.Dialect, path, body string) {
			compact, n := counted(d, path, []byte(body))
			pretty, m := counted(d, path, indented(body))
			Expect(m).To(Equal(n))
			var calls []llm.ToolCall
			for _, msg := range pretty.Messages {
				calls = append(calls, msg.ToolCalls...)
			}
			Expect(calls).To(HaveLen(1))
			Expect(string(calls[0].Arguments)).To(Equal(`{"city":"Oslo","days":2}`))
			Expect(pretty.Messages).To(Equal(compact.Messages))
		},
		Entry("Anthropic's tool_use input", wire.Anthropic, "/v1/messages",
			`{"model":"claude-haiku-4-5","max_tokens":256,"messages":[{"role":"user","content":"Weather in Oslo for two days?"},`+
				`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"forecast","input":{"city":"Oslo","days":2}}]},`+
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"rain"}]}]}`),
		Entry("Gemini's functionCall args", wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent",
			`{"contents":[{"role":"user","parts":[{"text":"Weather in Oslo for two days?"}]},`+
				`{"role":"model","parts":[{"functionCall":{"name":"forecast","args":{"city":"Oslo","days":2}}}]},`+
				`{"role":"user","parts":[{"functionResponse":{"name":"forecast","response":{"text":"rain"}}}]}]}`),
		Entry("the Interactions API's function_call arguments", wire.Interactions, "/v1beta/interactions",
			`{"model":"gemini-3.5-flash","input":[{"type":"user_input","content":[{"type":"text","text":"Weather in Oslo for two days?"}]},`+
				`{"type":"function_call","id":"c1","name":"forecast","arguments":{"city":"Oslo","days":2}},`+
				`{"type":"function_result","call_id":"c1","name":"forecast","result":{"sky":"rain"}}]}`),
		Entry("Ollama's arguments", wire.Ollama, "/api/chat",
			`{"model":"qwen3:14b","messages":[{"role":"user","content":"Weather in Oslo for two days?"},`+
				`{"role":"assistant","content":"","tool_calls":[{"function":{"name":"forecast","arguments":{"city":"Oslo","days":2}}}]},`+
				`{"role":"tool","tool_name":"forecast","content":"rain"}]}`),
	)
})
