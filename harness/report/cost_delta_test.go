package report_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("the dollar difference of a variant against the baseline", func() {
	// costs builds a report of two variants, base and head, whose scenarios
	// cost what is given: the spend table's mean is each one's mean.
	costs := func(base, head []float64) *report.Report {
		v := func(name string, cs []float64) report.Variant {
			var scs []report.Scenario
			for i, c := range cs {
				scs = append(scs, report.Scenario{ID: string(rune('a' + i)), Verdict: report.VerdictPass,
					Metrics: trace.Metrics{LLMCalls: 1, PricedCalls: 1, CostUSD: c}})
			}
			return report.Variant{Name: name, Scenarios: scs, Summary: report.Summarize(scs)}
		}
		return &report.Report{SchemaVersion: report.SchemaVersion, Mode: "replay", Suites: []report.Suite{{Name: "s",
			Baseline: "base", Variants: []report.Variant{v("base", base), v("head", head)}}}}
	}
	DescribeTable("is said as the change a reader can see, never a float's rounding error",
		func(base, head []float64, want string) {
			var buf bytes.Buffer
			Expect(report.WriteText(&buf, costs(base, head))).To(Succeed())
			Expect(buf.String()).To(ContainSubstring(want))
			Expect(buf.String()).NotTo(MatchRegexp(`\$0\.0{12,}`), "a difference no price table can make")
		},
		// The same calls priced in another order (a streamed variant of the same
		// conversation, whose per-scenario token counts moved by two tokens
		// between scenarios) sum to a mean a few units of the last place apart.
		Entry("equal means summed in another order", []float64{0.000179, 0.000260, 0.0000836},
			[]float64{0.000180, 0.000259, 0.0000836}, "($0, ±0.0%)"),
		Entry("a real difference keeps its sign and size", []float64{0.000174}, []float64{0.000190},
			"(+$0.0000160, +9.2%)"),
		Entry("a real saving too", []float64{0.002}, []float64{0.0015}, "(−$0.000500, −25.0%)"),
	)
})
