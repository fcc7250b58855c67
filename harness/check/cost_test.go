package check_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("cost thresholds", func() {
	priced := report.Summary{Scenarios: 4, Passed: 4, PassRate: 1, LLMCallsMean: 2,
		Cost: report.Spend{Mean: 0.0015, P95: 0.0031, Total: 0.006, Priced: 8}}
	judge := func(expr string, s report.Summary, base *report.Summary) report.Threshold {
		GinkgoHelper()
		th, err := scenario.ParseThreshold(expr)
		Expect(err).NotTo(HaveOccurred())
		return check.Thresholds([]scenario.Threshold{th}, s, base)[0]
	}

	DescribeTable("compare the dollars per scenario run and in all",
		func(expr string, pass bool, detail string) {
			got := judge(expr, priced, nil)
			Expect(got.Pass).To(Equal(pass))
			Expect(got.NotEvaluated).To(BeFalse())
			Expect(got.Detail).To(Equal(detail))
		},
		Entry(nil, "cost_mean < $0.002", true, ""),
		Entry(nil, "cost_p95 < $0.002", false, "cost_p95 = 0.0031 USD, want < 0.002 USD"),
		Entry(nil, "cost_total <= 0.006", true, ""),
	)

	It("is not evaluated, and fails, when no call was priced", func() {
		unpriced := priced
		unpriced.Cost = report.Spend{Unpriced: 8}
		got := judge("cost_mean < $0.002", unpriced, nil)
		Expect(got.Pass).To(BeFalse())
		Expect(got.NotEvaluated).To(BeTrue())
		Expect(got.Detail).To(ContainSubstring("none of the 8 model calls was priced"))
		got = judge("cost_mean <= baseline", priced, &unpriced)
		Expect(got.NotEvaluated).To(BeTrue(), "nor against a baseline with nothing priced")
	})

	It("is not evaluated, and fails, when only some calls were priced: the figure would be a lower bound", func() {
		partial := priced
		partial.Cost = report.Spend{Mean: 0.0001, Priced: 2, Unpriced: 6}
		got := judge("cost_mean < $0.002", partial, nil)
		Expect(got.Pass).To(BeFalse(), "a mean of the priced calls alone is below any cap")
		Expect(got.NotEvaluated).To(BeTrue())
		Expect(got.Detail).To(Equal("not evaluated: 6 of the 8 model and embeddings calls have no price (no row for their model in the price table), so cost_mean would count only the rest; pass --prices FILE or map the model in the suite's prices: models"))
		got = judge("cost_total <= baseline", priced, &partial)
		Expect(got.NotEvaluated).To(BeTrue())
		Expect(got.Detail).To(HavePrefix("not evaluated: the baseline: 6 of the 8"))
	})

	It("takes dollars only for a cost", func() {
		th, err := scenario.ParseThreshold("cost_mean < $0.002")
		Expect(err).NotTo(HaveOccurred())
		Expect(th.Value).To(Equal(0.002))
		_, err = scenario.ParseThreshold("cost_mean < $cheap")
		Expect(err).To(MatchError(ContainSubstring("not an amount of US dollars")))
	})
})

var _ = Describe("the gate on the rubric grader's mean score", func() {
	graded := func(score float64) *report.Report {
		return &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "v",
			Summary: report.Summary{Scenarios: 1, Grading: &report.Grading{Calls: 1, Score: score}}}}}}}
	}
	gate := map[string]map[string]float64{"s": {"rubric_score_mean": 0.05}}

	It("holds it to its tolerance, as a rate", func() {
		Expect(report.Regressions(graded(0.8), graded(0.76), gate)).To(BeEmpty())
		regs := report.Regressions(graded(0.8), graded(0.7), gate)
		Expect(regs).To(HaveLen(1))
		Expect(regs[0].Metric).To(Equal("rubric_score_mean"))
		Expect(regs[0].Base).To(Equal(0.8))
		Expect(regs[0].Head).To(Equal(0.7))
	})

	It("never passes on nothing graded, now or in the baseline", func() {
		none := &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "v", Summary: report.Summary{Scenarios: 1}}}}}}
		regs := report.Regressions(graded(0.8), none, gate)
		Expect(regs).To(HaveLen(1))
		Expect(regs[0].Detail).To(Equal("not evaluated: no rubric check was graded now; run scenarios that have rubric checks (the whole suite), or leave rubric_score_mean out of the suite's gate:"))
		regs = report.Regressions(none, graded(0.8), gate)
		Expect(regs).To(HaveLen(1))
		Expect(regs[0].Detail).To(ContainSubstring("the baseline graded no rubric check"))
	})
})

var _ = Describe("the gate on cost", func() {
	variant := func(c report.Spend) report.Variant {
		return report.Variant{Name: "v", Summary: report.Summary{Scenarios: 1, Cost: c}}
	}
	rep := func(c report.Spend) *report.Report {
		return &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{variant(c)}}}}
	}
	gate := map[string]map[string]float64{"s": {"cost_mean": 0.02}}

	It("holds cost_mean to its tolerance", func() {
		base := rep(report.Spend{Mean: 0.001, Priced: 2})
		Expect(report.Regressions(base, rep(report.Spend{Mean: 0.00101, Priced: 2}), gate)).To(BeEmpty())
		regs := report.Regressions(base, rep(report.Spend{Mean: 0.0011, Priced: 2}), gate)
		Expect(regs).To(HaveLen(1))
		Expect(regs[0].Metric).To(Equal("cost_mean"))
	})

	It("never passes on nothing priced, now or in the baseline", func() {
		regs := report.Regressions(rep(report.Spend{Mean: 0.001, Priced: 2}), rep(report.Spend{Unpriced: 2}), gate)
		Expect(regs).To(HaveLen(1))
		Expect(regs[0].Detail).To(ContainSubstring("not evaluated: no model call was priced now"))
		regs = report.Regressions(rep(report.Spend{Unpriced: 2}), rep(report.Spend{Mean: 0.001, Priced: 2}), gate)
		Expect(regs).To(HaveLen(1))
		Expect(regs[0].Detail).To(ContainSubstring("the baseline prices no model call"))

		By("never comparing a cost that counts only some calls, now or in the baseline")
		partial := report.Spend{Mean: 0.00003, Priced: 2, Unpriced: 6}
		regs = report.Regressions(rep(report.Spend{Mean: 0.001, Priced: 8}), rep(partial), gate)
		Expect(regs).To(HaveLen(1), "a cost that fell because most calls lost their price is no pass")
		Expect(regs[0].Detail).To(Equal("not evaluated: 6 of the 8 calls have no price now, so the figure would count only the rest (pass --prices FILE, or map the model in the suite's prices: models)"))
		regs = report.Regressions(rep(partial), rep(report.Spend{Mean: 0.001, Priced: 8}), gate)
		Expect(regs).To(HaveLen(1))
		Expect(regs[0].Detail).To(ContainSubstring("the baseline priced 2 of its 8 calls"))

		By("showing no figure for what was not measured: — in the table, the reason alone on a line")
		regs = report.Regressions(rep(report.Spend{Unpriced: 2}), rep(report.Spend{Mean: 0.001, Priced: 2}), gate)
		var text strings.Builder
		Expect(report.WriteRegressionsText(&text, regs)).To(Succeed())
		Expect(text.String()).To(MatchRegexp(`cost_mean +— +— +not evaluated: the baseline prices no model call`))
		Expect(regs[0].String()).To(Equal("s/v cost_mean: not evaluated: the baseline prices no model call; re-bless it: testbed baseline bless"))
	})
})
