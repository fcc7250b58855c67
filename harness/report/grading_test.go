package report_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("Kappa", func() {
	// 20 examples, 10 labelled pass: 8 passed, 2 failed; 10 labelled fail:
	// 3 passed, 7 failed. po = 15/20 = 0.75; pe = (10·11 + 10·9)/400 = 0.5;
	// kappa = 0.25/0.5 = 0.5.
	DescribeTable("matches hand-computed values",
		func(tp, fn, fp, tn int, want float64) {
			Expect(report.Calibration{TP: tp, FN: fn, FP: fp, TN: tn}.Kappa()).To(BeNumerically("~", want, 1e-12))
		},
		Entry("moderate agreement", 8, 2, 3, 7, 0.5),
		Entry("perfect agreement", 5, 0, 0, 5, 1.0),
		// po = 2/4 = 0.5, pe = (2·2 + 2·2)/16 = 0.5: no better than chance.
		Entry("chance", 1, 1, 1, 1, 0.0),
		// po = 6/10, pe = (5·5 + 5·5)/100 = 0.5: kappa = 0.1/0.5 = 0.2.
		Entry("slight", 3, 2, 2, 3, 0.2),
		// Always the opposite: po = 0, pe = 0.5, kappa = −1.
		Entry("always wrong", 0, 4, 4, 0, -1.0),
		Entry("nothing", 0, 0, 0, 0, 0.0),
	)
})

var _ = Describe("grading in the reports", func() {
	graded := func() *report.Report {
		sc := report.Scenario{ID: "ask", Verdict: report.VerdictFail, Answer: []string{"It is warm."}, Checks: []report.Check{
			{Name: "rubric[0]", Judged: true, Detail: "score 0.00 (min 0.70), rule-based stand-in judge: 0 of 1 requirements met; missed \"It names GHRSST\""},
		}, Grading: &report.Grading{Grader: "rule-based stand-in judge", StandIn: true, Calls: 1, InputTokens: 100, OutputTokens: 20}}
		return &report.Report{SchemaVersion: report.SchemaVersion, Suites: []report.Suite{{Name: "s", Baseline: "v", Variants: []report.Variant{
			{Name: "v", Scenarios: []report.Scenario{sc}, Summary: report.Summarize([]report.Scenario{sc})}}}}}
	}

	It("shows the grader's reason in the HTML run viewer, and its cost apart", func() {
		var page strings.Builder
		Expect(report.WriteHTML(&page, graded())).To(Succeed())
		Expect(page.String()).To(ContainSubstring(`<b>graded:</b> ✗ turn 0 rubric[0]: score 0.00 (min 0.70), rule-based stand-in judge: 0 of 1 requirements met`))
		var brief strings.Builder
		Expect(report.WriteBrief(&brief, graded())).To(Succeed())
		Expect(brief.String()).To(ContainSubstring("s/v ask turn 0 rubric[0]: score 0.00 (min 0.70), rule-based stand-in judge"))
		Expect(brief.String()).To(ContainSubstring("· s: 1 grader calls over 1 variants, 100 input and 20 output tokens, by rule-based stand-in judge"))
	})

	It("names the failing rubric and its reason in JUnit", func() {
		var x strings.Builder
		Expect(report.WriteJUnit(&x, graded())).To(Succeed())
		Expect(x.String()).To(ContainSubstring("turn 0 rubric[0]: score 0.00 (min 0.70), rule-based stand-in judge"))
	})
})
