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

	// data is the calls each block of what the model saw draws, per
	// scenario run.
	type link struct{ Anchor, Label string }
	type message struct {
		Role, Head, Text string
		Open             bool
	}
	type seenCall struct {
		N            int
		What, System string
		SystemID     string `json:"system_id"`
		SystemAs     *link  `json:"system_as"`
		Tools        []struct{ Name, Description, Parameters string }
		ToolsID      string `json:"tools_id"`
		ToolsAs      *link  `json:"tools_as"`
		Earlier      string
		Messages     []message
	}
	data := func(html string) [][]seenCall {
		var out [][]seenCall
		for _, m := range regexp.MustCompile(`<script type="application/json" class="seen-data">([^<]*)</script>`).FindAllStringSubmatch(html, -1) {
			var calls []seenCall
			Expect(json.Unmarshal([]byte(m[1]), &calls)).To(Succeed())
			out = append(out, calls)
		}
		return out
	}

	It("gives each system prompt and tool set once, whole, and links every other call that was sent it there", func() {
		html := page()
		Expect(strings.Count(html, "You answer questions about the ocean.")).To(Equal(1))
		Expect(strings.Count(html, "Mean SST over a box.")).To(Equal(1))
		runs := data(html)
		first := runs[0][0]
		Expect(first.System).To(Equal("You answer questions about the ocean."))
		Expect(first.SystemID).To(Equal("s-v-one-s-v-one-call-1-system"))
		Expect(first.Tools[0].Parameters).To(Equal(`{"type":"object"}`))
		for _, c := range []seenCall{runs[0][1], runs[1][0]} {
			Expect(c.System).To(BeEmpty())
			Expect(c.SystemAs).To(Equal(&link{"s-v-one-s-v-one-call-1-system", "s/v/one call 1"}))
			Expect(c.ToolsAs).To(Equal(&link{"s-v-one-s-v-one-call-1-tools", "s/v/one call 1"}))
		}
		// The script draws the block that holds an anchor a link points to.
		Expect(html).To(ContainSubstring(`<details class="seen-calls" data-ids="s-v-one-s-v-one-call-1-system s-v-one-s-v-one-call-1-tools"><summary>what the model saw (2 calls)</summary>`))
		Expect(html).To(ContainSubstring(`<details class="seen-calls" data-ids=""><summary>what the model saw (1 calls)</summary>`))
	})

	It("gives only the messages a call adds to the conversation of an earlier one, with the answer, short ones open", func() {
		runs := data(page())
		Expect(runs).To(HaveLen(2))
		Expect(runs[0][0].What).To(Equal("answer m at 0 ms"))
		Expect(runs[0][0].Messages).To(Equal([]message{{Role: "user", Text: "How warm is the sea around Taiwan?", Open: true}}))
		Expect(runs[0][1].Earlier).To(Equal("the first 2 messages: as call 1"))
		Expect(runs[0][1].Messages[0]).To(Equal(message{Role: "assistant", Text: `→ ghrsst.bbox_mean {"bbox":[118,20,123.5,26.5]}`, Open: true}))
		Expect(runs[0][1].Messages[1].Role).To(Equal("tool ghrsst.bbox_mean"))
		Expect(runs[0][1].Messages[2]).To(Equal(message{Role: "answer", Text: "It is 27.4 °C.", Open: true}))
		Expect(runs[1][0].Messages).To(HaveLen(2)) // its own conversation: the question and the answer
	})

	It("folds a long tool result and cuts it, saying how much is left out", func() {
		tool := data(page())[0][1].Messages[1]
		Expect(tool.Open).To(BeFalse())
		Expect(tool.Head).To(HavePrefix("27.4 27.4"))
		Expect(tool.Head).To(HaveSuffix("…"))
		Expect(tool.Text).To(HaveSuffix("… (4000 more characters)"))
		Expect(len(tool.Text)).To(BeNumerically("<", 1100))
	})

	It("keeps the data from ending its script element", func() {
		r := &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "v", Scenarios: []report.Scenario{
			{ID: "one", Verdict: report.VerdictPass, Events: []trace.Event{call("</script><script>alert(1)</script>", system, user)}}}}}}}}
		html := string(render(report.WriteHTML, r))
		Expect(strings.Count(html, "<script")).To(Equal(2)) // the data and the page's script
		Expect(data(html)[0][0].Messages[1].Text).To(Equal("</script><script>alert(1)</script>"))
	})

	It("leaves the block out when the report kept no prompt", func() {
		Expect(string(render(report.WriteHTML, fixture()))).NotTo(ContainSubstring(`class="seen-calls"`))
	})
})
