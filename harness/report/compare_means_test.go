package report_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// sampledVariant is one scenario sampled once per entry of calls, each
// sample making that many LLM calls of 975 input tokens each in latency.
func sampledVariant(name string, calls []int, latency []time.Duration) *report.Variant {
	var runs []report.Scenario
	for i, n := range calls {
		runs = append(runs, report.Scenario{ID: "strait", Verdict: report.VerdictPass,
			Metrics: trace.Metrics{LLMCalls: n, InputTokens: 975 * n, OutputTokens: 73, Latency: latency[i]}})
	}
	v := &report.Variant{Name: name, Scenarios: []report.Scenario{report.Sample(runs, 1)}}
	v.Summary = report.Summarize(v.Scenarios)
	return v
}

var _ = Describe("a sampled scenario compared step by step in the HTML page", func() {
	It("sets the samples' means side by side and their difference, as its noise does, not the difference of rounded means", func() {
		ms := time.Millisecond
		base := sampledVariant("single-pass", []int{1, 1, 1, 1, 1}, []time.Duration{2300 * ms, 2400 * ms, 2350 * ms, 2380 * ms, 2365 * ms})
		head := sampledVariant("terse-router", []int{1, 1, 2, 1, 1}, []time.Duration{2500 * ms, 2536 * ms, 2540 * ms, 2550 * ms, 2555400 * time.Microsecond})
		c := report.CompareVariants("odbchat-sampled", base, head, "single-pass", "terse-router")
		var out strings.Builder
		Expect(report.WriteComparisonHTML(&out, []report.Comparison{c}, report.CompareFilter{})).To(Succeed())
		page := out.String()
		// 1 → 1.2 LLM calls a run: not "1 1 =", which said no change
		Expect(page).To(MatchRegexp(`<td>LLM calls</td>\s*<td[^>]*>1\.00</td>\s*<td[^>]*>1\.20</td>\s*<td[^>]*>(\+|&#43;)0\.20 \((\+|&#43;)20\.0%\)</td>`))
		// 2359 → 2536.28 ms: +177.28, shown +177, as the note's +177.3
		Expect(page).To(MatchRegexp(`<td>latency \(ms\)</td>\s*<td[^>]*>2359</td>\s*<td[^>]*>2536</td>\s*<td[^>]*>(\+|&#43;)177 \((\+|&#43;)7\.5%\)</td>`))
	})
})

var _ = Describe("a sampled scenario's row in the text and JSON comparisons", func() {
	ms := time.Millisecond
	compared := func() report.Comparison {
		base := sampledVariant("single-pass", []int{1, 1, 1, 1, 1}, []time.Duration{2300 * ms, 2400 * ms, 2350 * ms, 2380 * ms, 2365 * ms})
		head := sampledVariant("terse-router", []int{1, 1, 2, 1, 1}, []time.Duration{2500 * ms, 2536 * ms, 2540 * ms, 2550 * ms, 2555400 * time.Microsecond})
		return report.CompareVariants("odbchat-sampled", base, head, "single-pass", "terse-router")
	}

	It("gives the samples' means in the row, not whole numbers that hide a change", func() {
		var out strings.Builder
		Expect(report.WriteComparisonText(&out, []report.Comparison{compared()}, report.CompareFilter{})).To(Succeed())
		// 1 → 1.2 calls a run and 975 → 1170 input tokens: not "1" (no change)
		Expect(out.String()).To(ContainSubstring("1.00 → 1.20 (+0.20, +20.0%)"))
		Expect(out.String()).To(ContainSubstring("975 → 1170 (+195, +20.0%)"))
		Expect(out.String()).To(ContainSubstring("2359 → 2536 ms (+7.5%)"))
	})

	It("keeps the means unrounded in the JSON, and marks the row changed", func() {
		c := compared()
		Expect(c.Rows).To(HaveLen(1))
		Expect(c.Rows[0].Head.LLMCalls).To(BeNumerically("~", 1.2, 1e-9))
		Expect(c.Rows[0].Head.InputTokens).To(BeNumerically("~", 1170, 1e-9))
		Expect(c.Rows[0].Changed).To(BeTrue())
		var out strings.Builder
		Expect(report.WriteComparisonJSON(&out, []report.Comparison{c}, report.CompareFilter{})).To(Succeed())
		Expect(out.String()).To(ContainSubstring(`"llm_calls": 1.2`))
	})
})
