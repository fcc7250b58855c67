package report_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// comparedText is the text comparison of two one-scenario variants whose
// runs put raw and context tokens of tool payloads into the model's context.
func comparedText(baseRaw, baseContext, headRaw, headContext int) string {
	variant := func(name string, raw, context int) *report.Variant {
		sc := report.Scenario{ID: "ask", Verdict: report.VerdictPass,
			Metrics: trace.Metrics{LLMCalls: 1, InputTokens: 500, RawTokens: raw, ContextTokens: context, Latency: time.Second}}
		v := &report.Variant{Name: name, Scenarios: []report.Scenario{sc}}
		v.Summary = report.Summarize(v.Scenarios)
		return v
	}
	var out strings.Builder
	c := report.CompareVariants("s", variant("old", baseRaw, baseContext), variant("new", headRaw, headContext), "old", "new")
	Expect(report.WriteComparisonText(&out, []report.Comparison{c}, report.CompareFilter{})).To(Succeed())
	return out.String()
}

var _ = Describe("the token reduction of a comparison", func() {
	It("is a row only when a side's tools passed a payload, and — for a side whose tools passed none, as the report's tables say", func() {
		Expect(comparedText(0, 0, 0, 0)).NotTo(ContainSubstring("token reduction"), "neither side has a reduction: not 0.0 → 0.0")
		Expect(comparedText(200, 200, 200, 200)).To(MatchRegexp(`token reduction \(%\) +0\.0 +0\.0 +=`), "payloads put whole into the context: 0%")
		Expect(comparedText(200, 50, 0, 0)).To(MatchRegexp(`token reduction \(%\) +75\.0 +— +—`))
	})
})
