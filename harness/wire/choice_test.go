package wire_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("an OpenAI tool_choice", func() {
	// The tools offered: a function, a custom tool (called with free
	// text), and, over the Responses API, its built-in apply_patch and a
	// hosted web search.
	const (
		chatTools      = `[{"type": "function", "function": {"name": "fare", "parameters": {"type": "object"}}}, {"type": "custom", "custom": {"name": "apply_patch"}}]`
		responsesTools = `[{"type": "function", "name": "fare", "parameters": {"type": "object"}}, {"type": "custom", "name": "edit_fares"}, {"type": "apply_patch"}, {"type": "web_search"}]`
	)

	DescribeTable("is read as what it lets the answer call",
		func(d wire.Dialect, choice string, want wire.Choice, offered []string) {
			path, body := "/v1/chat/completions", `{"model": "gpt-5", "messages": [{"role": "user", "content": "Raise the Vis fare."}], "tools": `+chatTools+`, "tool_choice": `+choice+`}`
			if d == wire.Responses {
				path, body = "/v1/responses", `{"model": "gpt-5", "input": "Raise the Vis fare.", "tools": `+responsesTools+`, "tool_choice": `+choice+`}`
			}
			r, err := wire.Decode(d, path, []byte(body))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Choice).To(Equal(want))
			var names []string
			for _, t := range r.Offered().Tools {
				names = append(names, t.Name)
			}
			Expect(names).To(Equal(offered), "the tools the answer may call")
		},
		Entry("Chat Completions, a forced function", wire.Chat, `{"type": "function", "function": {"name": "fare"}}`,
			wire.Choice{Required: true, Only: []string{"fare"}}, []string{"fare"}),
		Entry("Chat Completions, a forced custom tool", wire.Chat, `{"type": "custom", "custom": {"name": "apply_patch"}}`,
			wire.Choice{Required: true, Only: []string{"apply_patch"}}, []string{"apply_patch"}),
		Entry("Chat Completions, allowed_tools naming a custom tool, required", wire.Chat,
			`{"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "custom", "custom": {"name": "apply_patch"}}]}}`,
			wire.Choice{Required: true, Only: []string{"apply_patch"}}, []string{"apply_patch"}),
		Entry("Chat Completions, allowed_tools naming both, auto", wire.Chat,
			`{"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "fare"}}, {"type": "custom", "custom": {"name": "apply_patch"}}]}}`,
			wire.Choice{Only: []string{"fare", "apply_patch"}}, []string{"fare", "apply_patch"}),
		Entry("Responses, a forced function", wire.Responses, `{"type": "function", "name": "fare"}`,
			wire.Choice{Required: true, Only: []string{"fare"}}, []string{"fare"}),
		Entry("Responses, a forced custom tool", wire.Responses, `{"type": "custom", "name": "edit_fares"}`,
			wire.Choice{Required: true, Only: []string{"edit_fares"}}, []string{"edit_fares"}),
		Entry("Responses, apply_patch forced", wire.Responses, `{"type": "apply_patch"}`,
			wire.Choice{Required: true, Only: []string{"apply_patch"}}, []string{"apply_patch"}),
		Entry("Responses, allowed_tools, required, a hosted tool among them left out", wire.Responses,
			`{"type": "allowed_tools", "mode": "required", "tools": [{"type": "custom", "name": "edit_fares"}, {"type": "web_search"}]}`,
			wire.Choice{Required: true, Only: []string{"edit_fares"}}, []string{"edit_fares"}),
		Entry("Responses, a hosted tool forced: no narrowing", wire.Responses, `{"type": "web_search"}`,
			wire.Choice{}, []string{"fare", "edit_fares", "apply_patch"}),
	)
})
