package report_test

import (
	"encoding/json"
	"html"
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
			got, ok := report.Calibration{TP: tp, FN: fn, FP: fp, TN: tn}.Kappa()
			Expect(ok).To(BeTrue())
			Expect(got).To(BeNumerically("~", want, 1e-12))
		},
		Entry("moderate agreement", 8, 2, 3, 7, 0.5),
		Entry("perfect agreement", 5, 0, 0, 5, 1.0),
		// po = 2/4 = 0.5, pe = (2·2 + 2·2)/16 = 0.5: no better than chance.
		Entry("chance", 1, 1, 1, 1, 0.0),
		// po = 6/10, pe = (5·5 + 5·5)/100 = 0.5: kappa = 0.1/0.5 = 0.2.
		Entry("slight", 3, 2, 2, 3, 0.2),
		// Always the opposite: po = 0, pe = 0.5, kappa = −1.
		Entry("always wrong", 0, 4, 4, 0, -1.0),
		// Unequal margins: 7 labelled pass, 7 passed, of 10. po = 8/10,
		// pe = (7·7 + 3·3)/100 = 0.58: kappa = 0.22/0.42 = 11/21.
		Entry("unequal margins", 6, 1, 1, 2, 11.0/21),
		// A grader that passes everything, over mixed labels: po = 3/5,
		// pe = (3·5 + 2·0)/25 = 3/5: kappa = 0, no better than chance.
		Entry("a grader that always passes", 3, 0, 2, 0, 0.0),
	)

	// With every example labelled alike, pe equals po whatever the grader
	// says (0/0 when it agrees throughout, 0 otherwise): no number is given.
	DescribeTable("is undefined, and says why, when the labels cannot show agreement beyond chance",
		func(tp, fn, fp, tn int, why string) {
			c := report.Calibration{TP: tp, FN: fn, FP: fp, TN: tn}
			got, ok := c.Kappa()
			Expect(ok).To(BeFalse())
			Expect(got).To(BeZero())
			Expect(c.KappaUndefined()).To(ContainSubstring(why))
		},
		Entry("no examples", 0, 0, 0, 0, "no labelled example was graded"),
		Entry("all labelled pass, all passed", 4, 0, 0, 0, "every example is labelled pass"),
		Entry("all labelled pass, some failed", 2, 2, 0, 0, "every example is labelled pass"),
		Entry("all labelled fail", 0, 0, 1, 3, "every example is labelled fail, so agreement cannot be told from chance; add a pass: example"),
	)

	It("is defined, with KappaUndefined empty, when both labels have examples", func() {
		Expect(report.Calibration{TP: 1, TN: 1}.KappaUndefined()).To(BeEmpty())
	})
})

var _ = Describe("calibration over repeated samples", func() {
	run := func(tp, fn, fp, tn int) report.Scenario {
		return report.Scenario{ID: "ask", Verdict: report.VerdictPass, Grading: &report.Grading{
			Grader: "openai gpt-4.1-mini", Calls: 1 + tp + fn + fp + tn, InputTokens: 100, OutputTokens: 10, CostUSD: 0.001, Score: 0.5,
			Calibration: &report.Calibration{TP: tp, FN: fn, FP: fp, TN: tn}}}
	}

	It("pools every sample's labelled examples into one kappa, and counts every sample's grader calls", func() {
		// Sample 1: pass examples 1 passed, 1 failed; the fail example
		// failed. Sample 2: both pass examples passed, the fail example
		// failed. Pooled: TP 3, FN 1, TN 2, n = 6; po = 5/6;
		// pe = (4·3 + 2·3)/36 = 1/2: kappa = (1/3)/(1/2) = 2/3.
		first, second := run(1, 1, 0, 1), run(2, 0, 0, 1)
		second.Grading.Score = 1
		got := report.Sample([]report.Scenario{first, second}, 1)
		Expect(*got.Grading.Calibration).To(Equal(report.Calibration{TP: 3, FN: 1, TN: 2}))
		k, ok := got.Grading.Calibration.Kappa()
		Expect(ok).To(BeTrue())
		Expect(k).To(BeNumerically("~", 2.0/3, 1e-12))
		Expect(got.Grading.Calls).To(Equal(8))
		Expect(got.Grading.InputTokens).To(Equal(200))
		Expect(got.Grading.Score).To(Equal(0.75))
		// The samples' own gradings are left as they were.
		Expect(*first.Grading.Calibration).To(Equal(report.Calibration{TP: 1, FN: 1, TN: 1}))
	})

	It("states the kappa in the terminal, markdown, HTML and JSON, and says when it is undefined", func() {
		pooled := report.Sample([]report.Scenario{run(1, 1, 0, 1), run(2, 0, 0, 1)}, 1)
		alike := run(2, 0, 0, 0)
		rep := &report.Report{SchemaVersion: report.SchemaVersion, Suites: []report.Suite{{Name: "s", Agent: "a", Baseline: "v", Variants: []report.Variant{
			{Name: "v", Scenarios: []report.Scenario{pooled}, Summary: report.Summarize([]report.Scenario{pooled})},
			{Name: "w", Scenarios: []report.Scenario{alike}, Summary: report.Summarize([]report.Scenario{alike})},
		}}}}
		// The run's screen gives a line per suite, pooling its variants:
		// TP 5, FN 1, TN 2; po = 7/8, pe = (6·5 + 2·3)/64 = 9/16:
		// kappa = (5/16)/(7/16) = 5/7.
		var brief strings.Builder
		Expect(report.WriteBrief(&brief, rep)).To(Succeed())
		Expect(brief.String()).To(ContainSubstring("it judged 7 of 8 labelled examples as labelled (Cohen's kappa 0.71)"))
		// The text, markdown and HTML reports a row per variant.
		write := map[string]func(*strings.Builder) error{
			"text":     func(b *strings.Builder) error { return report.WriteText(b, rep) },
			"markdown": func(b *strings.Builder) error { return report.WriteMarkdown(b, rep) },
			"html":     func(b *strings.Builder) error { return report.WriteHTML(b, rep) },
		}
		for name, w := range write {
			var b strings.Builder
			Expect(w(&b)).To(Succeed())
			Expect(b.String()).To(ContainSubstring("0.67"), name)
			undefined := "Cohen's kappa undefined: every example is labelled pass"
			if name == "html" {
				undefined = html.EscapeString(undefined)
			}
			Expect(b.String()).To(ContainSubstring(undefined), name)
		}
		var text strings.Builder
		Expect(report.WriteText(&text, rep)).To(Succeed())
		Expect(text.String()).To(MatchRegexp(`(?m)^v +openai gpt-4\.1-mini +8 +200 +20 +\$0\.00200 +0\.50 +5 of 6 as labelled +0\.67$`), "two samples' grading, summed")
		Expect(text.String()).To(MatchRegexp(`(?m)^w +openai gpt-4\.1-mini +3 +100 +10 +\$0\.00100 +0\.50 +2 of 2 as labelled +undefined$`))
		unpriced := alike
		unpriced.Grading = &report.Grading{Grader: "openai mystery", Calls: 1, Unpriced: true}
		var shown strings.Builder
		Expect(report.WriteText(&shown, &report.Report{SchemaVersion: report.SchemaVersion, Suites: []report.Suite{{Name: "s", Agent: "a", Baseline: "w", Variants: []report.Variant{
			{Name: "w", Scenarios: []report.Scenario{unpriced}, Summary: report.Summarize([]report.Scenario{unpriced})}}}}})).To(Succeed())
		Expect(shown.String()).To(MatchRegexp(`(?m)^w +openai mystery +1 +0 +0 +unpriced +`), "never $0 for a model without a price")

		var js strings.Builder
		Expect(report.WriteJSON(&js, rep)).To(Succeed())
		var doc struct {
			Suites []struct {
				Variants []struct {
					Summary struct {
						Grading struct {
							Calibration map[string]any `json:"calibration"`
						} `json:"grading"`
					} `json:"summary"`
				} `json:"variants"`
			} `json:"suites"`
		}
		Expect(json.Unmarshal([]byte(js.String()), &doc)).To(Succeed())
		vs := doc.Suites[0].Variants
		pooledJSON := vs[0].Summary.Grading.Calibration
		Expect(pooledJSON["kappa"]).To(BeNumerically("~", 2.0/3, 1e-12))
		delete(pooledJSON, "kappa")
		Expect(pooledJSON).To(Equal(map[string]any{"pass_passed": 3.0, "pass_failed": 1.0, "fail_passed": 0.0, "fail_failed": 2.0,
			"examples": 6.0, "agreed": 5.0}))
		Expect(vs[1].Summary.Grading.Calibration).To(Equal(map[string]any{"pass_passed": 2.0, "pass_failed": 0.0, "fail_passed": 0.0, "fail_failed": 0.0,
			"examples": 2.0, "agreed": 2.0, "kappa": nil,
			"kappa_undefined": "every example is labelled pass, so agreement cannot be told from chance; add a fail: example"}))
		back, err := report.ReadJSON(strings.NewReader(js.String()))
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Suites[0].Variants[0].Summary.Grading.Calibration).To(Equal(pooled.Grading.Calibration))
	})
})

var _ = Describe("grading in the reports", func() {
	graded := func() *report.Report {
		sc := report.Scenario{ID: "ask", Verdict: report.VerdictFail, Answer: []string{"It is warm."}, Checks: []report.Check{
			{Name: "rubric[0]", Judged: true, Detail: "score 0.00 (min 0.70), rule-based stand-in judge: 0 of 1 requirements met; missed \"It names GHRSST\""},
		}, Grading: &report.Grading{Grader: "rule-based stand-in judge", StandIn: true, Calls: 1, InputTokens: 100, OutputTokens: 20, CostUSD: 0.0012}}
		return &report.Report{SchemaVersion: report.SchemaVersion, Suites: []report.Suite{{Name: "s", Baseline: "v", Variants: []report.Variant{
			{Name: "v", Scenarios: []report.Scenario{sc}, Summary: report.Summarize([]report.Scenario{sc})}}}}}
	}

	It("shows the grader's reason in the HTML run viewer, and its cost apart", func() {
		var page strings.Builder
		Expect(report.WriteHTML(&page, graded())).To(Succeed())
		Expect(page.String()).To(ContainSubstring(`<b>graded:</b> ✗ turn 1 rubric[0]: score 0.00 (min 0.70), rule-based stand-in judge: 0 of 1 requirements met`))
		var brief strings.Builder
		Expect(report.WriteBrief(&brief, graded())).To(Succeed())
		Expect(brief.String()).To(ContainSubstring("s/v ask turn 1 rubric[0]: score 0.00 (min 0.70), rule-based stand-in judge"))
		Expect(brief.String()).To(ContainSubstring("· s: 1 grader call over 1 variant, 100 input and 20 output tokens, $0.00120, by rule-based stand-in judge"))
	})

	It("names the failing rubric and its reason in JUnit", func() {
		var x strings.Builder
		Expect(report.WriteJUnit(&x, graded())).To(Succeed())
		Expect(x.String()).To(ContainSubstring("turn 1 rubric[0]: score 0.00 (min 0.70), rule-based stand-in judge"))
	})
})
