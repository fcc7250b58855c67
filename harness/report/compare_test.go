package report_test

import (
	"bytes"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

func scenarioOf(id, verdict, route string, in, llm int, latency time.Duration, answer string, tools ...string) report.Scenario {
	sc := report.Scenario{ID: id, Verdict: verdict, Route: route, ExpectedRoute: "tool:a", Answer: []string{answer},
		Metrics: trace.Metrics{InputTokens: in, LLMCalls: llm, Latency: latency}}
	for _, t := range tools {
		sc.Events = append(sc.Events, trace.Event{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: t}})
	}
	return sc
}

var _ = Describe("CompareVariants", func() {
	base := &report.Variant{Name: "old", Scenarios: []report.Scenario{
		scenarioOf("same", "pass", "tool:a", 100, 1, time.Second, "ok", "a"),
		scenarioOf("cheaper", "pass", "tool:a", 500, 2, 2*time.Second, "line one\nline two", "a", "b"),
		scenarioOf("worse", "pass", "tool:a", 100, 1, time.Second, "fine", "a"),
		scenarioOf("only-in-base", "pass", "tool:a", 1, 1, time.Second, "x"),
	}}
	head := &report.Variant{Name: "new", Scenarios: []report.Scenario{
		scenarioOf("worse", "fail", "code", 100, 1, time.Second, "fine", "c"),
		scenarioOf("same", "pass", "tool:a", 100, 1, time.Second, "ok", "a"),
		scenarioOf("cheaper", "pass", "tool:a", 300, 1, time.Second, "line one\nline 2", "a"),
	}}
	c := report.CompareVariants("s", base, head, "old", "new")

	It("pairs the scenarios both ran, in base's order", func() {
		var ids []string
		for _, r := range c.Rows {
			ids = append(ids, r.ID)
		}
		Expect(ids).To(Equal([]string{"same", "cheaper", "worse"}))
		Expect(c.BaseSummary.Scenarios).To(Equal(3))
		Expect(c.HeadSummary.PassRate).To(BeNumerically("~", 2.0/3, 1e-9))
	})

	It("marks what changed and what regressed", func() {
		Expect(c.Rows[0].Changed).To(BeFalse())
		Expect(c.Rows[1].Changed).To(BeTrue())
		Expect(c.Rows[1].Regressed).To(BeFalse(), "cheaper in every way")
		Expect(c.Rows[1].AnswerDiff).To(Equal(`line 2: "line two" → "line 2"`))
		Expect(c.Rows[1].Head.Tools).To(Equal([]string{"a"}))
		Expect(c.Rows[2].Regressed).To(BeTrue(), "a pass became a fail and the route went wrong")
	})

	It("renders the summary and rows as text, with the filters", func() {
		var all, regress bytes.Buffer
		Expect(report.WriteComparisonText(&all, []report.Comparison{c}, report.CompareFilter{})).To(Succeed())
		Expect(all.String()).To(ContainSubstring("s: old → new (3 scenarios both ran)"))
		Expect(all.String()).To(ContainSubstring("500 → 300 (-200, -40.0%)"))
		Expect(all.String()).To(ContainSubstring("PASS → FAIL"))
		Expect(all.String()).To(ContainSubstring("tool:a → code"))
		Expect(report.WriteComparisonText(&regress, []report.Comparison{c}, report.CompareFilter{Regressions: true})).To(Succeed())
		Expect(regress.String()).To(ContainSubstring("▲ worse"))
		Expect(regress.String()).NotTo(ContainSubstring("cheaper"))
	})

	It("gives no cost difference between sides that priced only some of their calls", func() {
		priced := func(sc report.Scenario, usd float64, priced, unpriced int) report.Scenario {
			sc.Metrics.CostUSD, sc.Metrics.PricedCalls, sc.Metrics.UnpricedCalls = usd, priced, unpriced
			sc.Metrics.LLMCalls = priced + unpriced
			return sc
		}
		b := &report.Variant{Name: "old", Scenarios: []report.Scenario{priced(scenarioOf("a", "pass", "tool:a", 100, 1, time.Second, "ok"), 0.004, 2, 0)}}
		h := &report.Variant{Name: "new", Scenarios: []report.Scenario{priced(scenarioOf("a", "pass", "tool:a", 100, 1, time.Second, "ok"), 0.0001, 1, 1)}}
		var buf bytes.Buffer
		Expect(report.WriteComparisonText(&buf, []report.Comparison{report.CompareVariants("s", b, h, "old", "new")}, report.CompareFilter{})).To(Succeed())
		Expect(buf.String()).To(MatchRegexp(`cost per run mean \(USD\)\s+\$0\.00400\s+\$0\.000100 \(\+1 unpriced\)\s+— \(some calls unpriced\)`))
		Expect(buf.String()).NotTo(ContainSubstring("-97.5%"), "a cost that fell because a call lost its price is no saving")
	})

	It("shows a side that streamed no call as not streamed, not as a time to first token of 0", func() {
		streamed := func(sc report.Scenario) report.Scenario {
			sc.Metrics.Streams = []trace.StreamCall{{Stream: trace.Stream{Events: 5, TokenEvents: 3, FirstToken: 222 * time.Millisecond, Duration: time.Second}, Output: 20}}
			return sc
		}
		b := &report.Variant{Name: "whole", Scenarios: []report.Scenario{scenarioOf("a", "pass", "tool:a", 100, 1, time.Second, "ok")}}
		h := &report.Variant{Name: "streamed", Scenarios: []report.Scenario{streamed(scenarioOf("a", "pass", "tool:a", 100, 1, time.Second, "ok"))}}
		var buf bytes.Buffer
		Expect(report.WriteComparisonText(&buf, []report.Comparison{report.CompareVariants("s", b, h, "whole", "streamed")}, report.CompareFilter{})).To(Succeed())
		Expect(buf.String()).To(MatchRegexp(`time to first token mean \(ms\)\s+— \(not streamed\)\s+222\s+—`))
		Expect(buf.String()).NotTo(ContainSubstring("+222"))
	})

	It("renders JSON with only the kept rows", func() {
		var buf bytes.Buffer
		Expect(report.WriteComparisonJSON(&buf, []report.Comparison{c}, report.CompareFilter{Changed: true})).To(Succeed())
		var out struct {
			SchemaVersion int                 `json:"schemaVersion"`
			Comparisons   []report.Comparison `json:"comparisons"`
		}
		Expect(json.Unmarshal(buf.Bytes(), &out)).To(Succeed())
		Expect(out.SchemaVersion).To(Equal(report.SchemaVersion))
		Expect(out.Comparisons[0].Rows).To(HaveLen(2))
	})
})

var _ = Describe("Compare", func() {
	It("pairs the suites and variants two reports share", func() {
		a := &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "v"}, {Name: "w"}}}, {Name: "t"}}}
		b := &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "w"}}}}}
		cs := report.Compare(a, b, "a.json", "b.json")
		Expect(cs).To(HaveLen(1))
		Expect(cs[0].Base).To(Equal("a.json:w"))
		Expect(cs[0].Head).To(Equal("b.json:w"))
	})
})
