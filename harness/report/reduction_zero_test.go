package report_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// reductionReport is one suite whose variant "whole" called a tool that
// put its payload into the model's context as it came (a token reduction
// of exactly 0%) and whose variant "none" called no tool (no reduction to
// speak of).
func reductionReport() *report.Report {
	tool := trace.Event{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "weather", RawTokens: 592, ContextTokens: 592}}
	whole := report.Scenario{ID: "weather-now", Verdict: report.VerdictPass,
		Metrics: trace.Metrics{LLMCalls: 2, ToolCalls: 1, InputTokens: 900, RawTokens: 592, ContextTokens: 592, Latency: time.Second},
		Events:  []trace.Event{tool}}
	none := report.Scenario{ID: "weather-now", Verdict: report.VerdictPass,
		Metrics: trace.Metrics{LLMCalls: 1, InputTokens: 300, Latency: time.Second}}
	variant := func(name string, sc report.Scenario) report.Variant {
		v := report.Variant{Name: name, Scenarios: []report.Scenario{sc}}
		v.Summary = report.Summarize(v.Scenarios)
		v.Trimming = report.Trimming(v.Scenarios)
		return v
	}
	return &report.Report{Mode: "replay", Suites: []report.Suite{{Name: "kura", Agent: "kura", Baseline: "whole",
		Variants: []report.Variant{variant("whole", whole), variant("none", none)}}}}
}

var _ = Describe("a token reduction of exactly 0%", func() {
	It("is 0.0% in the summary table, as in the line per variant and the payload trimming table, and — only where no tool passed a payload", func() {
		r := reductionReport()
		Expect(r.Suites[0].Variants[0].Summary.TokenReduction).To(BeZero())

		brief := string(render(report.WriteBrief, r))
		Expect(brief).To(MatchRegexp(`kura/whole +1/1 +— +0\.0% `))
		Expect(brief).To(MatchRegexp(`kura/none +1/1 +— +— `))

		md := string(render(report.WriteMarkdown, r))
		Expect(md).To(ContainSubstring("| whole | weather | 1 | 592 | 592 | 0.0% |"))
		Expect(md).To(ContainSubstring("| whole | 1 | 1/1 100.0% | — | 0.0% |"))
		Expect(md).To(ContainSubstring("| none | 1 | 1/1 100.0% | — | — |"))
		Expect(string(render(report.WriteText, r))).To(MatchRegexp(`\nwhole +1 +1/1 100\.0% +— +0\.0%\n`))
	})
})
