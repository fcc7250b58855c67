package report_test

import (
	"bytes"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// measuredRun is a passing run of 1,000 input tokens, 2 model calls, 2 s
// and $0.01.
func measuredRun(id string) report.Scenario {
	sc := scenarioOf(id, report.VerdictPass, "tool:a", 1000, 2, 2*time.Second, "ok", "a")
	sc.Metrics.CostUSD, sc.Metrics.PricedCalls = 0.01, 2
	return sc
}

// unmeasuredRun is a run that stopped at a cassette miss (or an error):
// whatever it counted before is part of a run, here nothing.
func unmeasuredRun(id, verdict string) report.Scenario {
	sc := scenarioOf(id, verdict, "", 0, 0, 0, "")
	sc.Error = "cassette has no match"
	return sc
}

var _ = Describe("runs that were not measured", func() {
	DescribeTable("are left out of a summary's means, percentiles and totals, and counted apart",
		func(verdict string) {
			s := report.Summarize([]report.Scenario{measuredRun("a"), unmeasuredRun("b", verdict)})
			Expect(s.InputTokensMean).To(Equal(1000.0), "not (1000 + 0) / 2")
			Expect(s.LLMCallsMean).To(Equal(2.0))
			Expect(s.LatencyMean).To(Equal(2000.0))
			Expect(s.LatencyP50).To(Equal(2000.0), "no 0 ms at the bottom of the ranks")
			Expect(s.Cost.Mean).To(Equal(0.01))
			Expect(s.Cost.Total).To(Equal(0.01))
			Expect(s.Cost.Unmeasured).To(Equal(1))
			Expect(s.Incomplete).To(Equal(1))
			Expect(s.Measured()).To(Equal(1))
			Expect(s.Cost.Whole()).To(BeFalse(), "a cost over fewer runs is set against no other")
		},
		Entry("a stale run", report.VerdictStale),
		Entry("an errored run", report.VerdictError),
	)

	It("leaves a summary of none measured with no figure, not 0 in 0 ms for $0", func() {
		s := report.Summarize([]report.Scenario{unmeasuredRun("a", report.VerdictStale)})
		Expect(s.Measured()).To(Equal(0))
		Expect(s.InputTokensMean).To(BeZero())
		Expect(s.Cost.Short()).To(Equal("—"))
		Expect(s.Cost.Format(s.Cost.Mean)).To(Equal("not measured"))
		var buf bytes.Buffer
		Expect(report.WriteJSON(&buf, &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "v", Summary: s}}}}})).
			To(Succeed(), "no NaN from a mean of nothing")
	})

	It("leaves a stale or errored sample out of a sampled scenario's means", func() {
		sc := report.Sample([]report.Scenario{measuredRun("a"), unmeasuredRun("a", report.VerdictError), measuredRun("a")}, 0.5)
		Expect(sc.Sampling.Metrics[report.MetricInputTokens].Mean).To(Equal(1000.0))
		Expect(sc.Sampling.Unmeasured()).To(Equal(1))
		s := report.Summarize([]report.Scenario{sc})
		Expect(s.InputTokensMean).To(Equal(1000.0))
		Expect(s.CI[report.MetricInputTokens].Mean).To(Equal(1000.0))
		Expect(s.Incomplete).To(Equal(1))
	})

	Describe("in a comparison", func() {
		// head's second scenario is stale: its figures were never measured
		base := &report.Variant{Name: "old", Scenarios: []report.Scenario{measuredRun("a"), measuredRun("b")}}
		head := &report.Variant{Name: "new", Scenarios: []report.Scenario{measuredRun("a"), unmeasuredRun("b", report.VerdictStale)}}
		c := report.CompareVariants("s", base, head, "old", "new")

		It("gives no change of tokens, latency or cost between sides that measured different runs", func() {
			var buf bytes.Buffer
			Expect(report.WriteComparisonText(&buf, []report.Comparison{c}, report.CompareFilter{})).To(Succeed())
			text := buf.String()
			Expect(text).NotTo(ContainSubstring("-50.0%"), "a stale run is no saving")
			Expect(text).To(MatchRegexp(`input tokens \(mean\)\s+1000\s+1000\s+— \(not comparable\)`))
			Expect(text).To(MatchRegexp(`latency mean \(ms\)\s+2000\s+2000\s+— \(not comparable\)`))
			Expect(text).To(MatchRegexp(`cost per run mean \(USD\)\s+\$0\.0100\s+\$0\.0100\s+— \(runs not measured\)`))
			Expect(text).To(ContainSubstring("not comparable: head: 1 of 2 runs stale or errored, not measured"))
			Expect(text).To(ContainSubstring("1000 → —"), "the stale side of a row has no figure")
			Expect(text).To(ContainSubstring("b: head's run was stale, so its tokens, calls and latency are not compared"))
		})

		It("says so in the pull-request comment, and shows no saving there either", func() {
			var buf bytes.Buffer
			Expect(report.WriteComparisonMarkdown(&buf, []report.Comparison{c}, "")).To(Succeed())
			md := buf.String()
			Expect(md).To(HavePrefix("**testbed compare: 1 scenarios regressed, but 1 scenarios were stale or errored on a side and their tokens and latency not compared in 1 comparisons**"))
			Expect(md).NotTo(ContainSubstring("-50.0%"))
			Expect(md).To(ContainSubstring("| 1,000 → 1,000 (not comparable: head: 1 of 2 runs stale or errored, not measured) | 2,000 ms → 2,000 ms (not comparable) |"))
			Expect(md).To(ContainSubstring("| b | PASS → STALE | tool:a → | a → | 1000 → — | 2 → — | 2000 ms → — |"))
			renders(md, 2)
		})

		It("holds no scenario regressed by a figure its base never measured", func() {
			c := report.CompareVariants("s", head, base, "new", "old")
			Expect(c.Rows[1].ID).To(Equal("b"))
			Expect(c.Rows[1].Regressed).To(BeFalse(), "1000 tokens against a stale run's 0 is no rise")
			Expect(c.Rows[1].Base.Unmeasured).To(Equal(1))
		})

		It("names the count unmeasured_runs in the JSON, as every other count of runs left out is named", func() {
			js, err := json.Marshal(c.Rows[1].Head)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(js)).To(ContainSubstring(`"unmeasured_runs":1`))
			Expect(string(js)).NotTo(ContainSubstring(`"unmeasured":`), "the report's unmeasured is a flag, not a count")
		})
	})

	It("is not judged by the gate's figures over the runs, as thresholds are not", func() {
		rep := func(v *report.Variant) *report.Report {
			v.Summary = report.Summarize(v.Scenarios)
			return &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{*v}}}}
		}
		base := rep(&report.Variant{Name: "v", Scenarios: []report.Scenario{measuredRun("a"), measuredRun("b")}})
		slower := measuredRun("a")
		slower.Metrics.Latency = 3 * time.Second
		head := rep(&report.Variant{Name: "v", Scenarios: []report.Scenario{slower, unmeasuredRun("b", report.VerdictStale)}})
		regs := report.Regressions(base, head, map[string]map[string]float64{"s": {"input_tokens_mean": 0.01, "pass_rate": 0}})
		var details []string
		for _, g := range regs {
			details = append(details, g.Metric+": "+g.Detail)
		}
		Expect(details).To(ContainElement("input_tokens_mean: not evaluated: 1 of 2 runs are stale or errored now, so input_tokens_mean was not measured; fix them first"))
		Expect(details).To(ContainElement("pass_rate: "), "the pass rate counts the stale run as a failure")
		Expect(details).To(ContainElement("verdict: pass → stale"))
	})

	It("are shown as no figure in the line per suite and variant, and counted under it", func() {
		v := report.Variant{Name: "v", Scenarios: []report.Scenario{unmeasuredRun("a", report.VerdictStale)}}
		v.Summary = report.Summarize(v.Scenarios)
		half := report.Variant{Name: "w", Scenarios: []report.Scenario{measuredRun("a"), unmeasuredRun("b", report.VerdictError)}}
		half.Summary = report.Summarize(half.Scenarios)
		r := &report.Report{Mode: "replay", Suites: []report.Suite{{Name: "s", Variants: []report.Variant{v, half}}}}
		brief := string(render(report.WriteBrief, r))
		Expect(brief).To(MatchRegexp(`s/v\s+0/1 ✗\s+0\.0%\s+—\s+—\s+—\s+—\s+—`))
		Expect(brief).To(ContainSubstring("⚠ s/v: no run measured (1 of 1 run stale or errored): no tokens, latency or cost to show"))
		Expect(brief).To(ContainSubstring("⚠ s/w: tokens, latency and cost over 1 of 2 runs; 1 stale or errored, not measured"))
		Expect(brief).To(MatchRegexp(`s/w\s+1/2 ✗\s+50\.0%\s+—\s+1,000\s+2,000 ms\s+2,000 ms\s+\$0\.0100`))
	})
})
