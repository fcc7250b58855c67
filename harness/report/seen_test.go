package report_test

import (
	"encoding/json"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("what the model saw, in the HTML page", func() {
	system := llm.Message{Role: "system", Content: "You answer questions about the ocean."}
	tools := []llm.Tool{{Name: "ghrsst.bbox_mean", Description: "Mean SST over a box.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	user := llm.Message{Role: "user", Content: "How warm is the sea around Taiwan?"}
	asked := llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{Name: "ghrsst.bbox_mean", Arguments: json.RawMessage(`{"bbox":[118,20,123.5,26.5]}`)}}}
	result := llm.Message{Role: "tool", Name: "ghrsst.bbox_mean", Content: strings.Repeat("27.4 ", 1000)}
	call := func(text string, msgs ...llm.Message) trace.Event {
		return trace.Event{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "answer", Model: "m", Text: text,
			Prompt: &trace.Prompt{Messages: msgs, Tools: tools}}}
	}
	page := func() string {
		r := &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "v", Scenarios: []report.Scenario{
			{ID: "one", Verdict: report.VerdictPass, Events: []trace.Event{
				call("", system, user), call("It is 27.4 °C.", system, user, asked, result)}},
			{ID: "two", Verdict: report.VerdictPass, Events: []trace.Event{call("Warm.", system, user)}},
		}}}}}}
		return string(render(report.WriteHTML, r))
	}

	It("shows each system prompt and tool set once, linked from every other call that was sent it", func() {
		html := page()
		Expect(strings.Count(html, "You answer questions about the ocean.")).To(Equal(1))
		Expect(strings.Count(html, "Mean SST over a box.")).To(Equal(1))
		Expect(html).To(ContainSubstring(`<details id="s-v-one-s-v-one-call-1-system"><summary>system prompt</summary>`))
		Expect(strings.Count(html, `system prompt: as <a href="#s-v-one-s-v-one-call-1-system">s/v/one call 1</a>`)).To(Equal(2))
		Expect(strings.Count(html, `tool definitions: as <a href="#s-v-one-s-v-one-call-1-tools">s/v/one call 1</a>`)).To(Equal(2))
	})

	It("shows only the messages a call adds to the conversation of an earlier one, short ones open", func() {
		html := page()
		Expect(html).To(ContainSubstring("<p>the first 2 messages: as call 1</p>"))
		Expect(strings.Count(html, "How warm is the sea around Taiwan?")).To(Equal(2)) // call 1 of each run
		Expect(html).To(MatchRegexp(`<details open><summary><span class="msg-role">assistant</span></summary><pre>→ ghrsst.bbox_mean {&#34;bbox&#34;:\[118,20,123.5,26.5\]}</pre>`))
		Expect(html).To(ContainSubstring(`<details open><summary><span class="msg-role">answer</span></summary><pre>It is 27.4 °C.</pre>`))
	})

	It("folds a long tool result and cuts it, saying how much is left out", func() {
		m := regexp.MustCompile(`<details><summary><span class="msg-role">tool ghrsst.bbox_mean</span> 27.4 27.4[^<]*…</summary><pre>(27.4 )+… \(3000 more characters\)</pre>`).FindString(page())
		Expect(m).NotTo(BeEmpty())
		Expect(len(m)).To(BeNumerically("<", 2300))
	})

	It("leaves the block out when the report kept no prompt", func() {
		Expect(string(render(report.WriteHTML, fixture()))).NotTo(ContainSubstring("what the model saw"))
	})
})
