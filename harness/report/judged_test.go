package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("checks of model behaviour", func() {
	judged := func(provenance string) *report.Report {
		r := passing()
		r.Suites[0].About = "The reduction is dominated by one payload."
		v := &r.Suites[0].Variants[0]
		v.Provenance = provenance
		v.Scenarios = append([]report.Scenario(nil), v.Scenarios...)
		v.Scenarios[0].Checks = []report.Check{{Name: "route", Pass: true, Judged: true}, {Name: "llm_calls", Pass: true}, {Name: "answer.contains", Pass: true, Judged: true}}
		v.Summary = report.Summarize(v.Scenarios)
		return r
	}

	It("are counted in the summary", func() {
		s := judged("x").Suites[0].Variants[0].Summary
		Expect(s.Checks).To(Equal(3))
		Expect(s.Judged).To(Equal(2))
	})

	It("are counted apart, with what the suite measures, when a stand-in judged them", func() {
		for _, w := range []writer{report.WriteText, report.WriteMarkdown, report.WriteHTML} {
			text := string(render(w, judged("replayed from rule-based stand-in shaped like gemma3:4b's API")))
			Expect(text).To(ContainSubstring("2 of 3 checks are about model behaviour and were judged against the stand-in"))
			Expect(text).To(ContainSubstring("The reduction is dominated by one payload."))
		}
		Expect(string(render(report.WriteText, judged("replayed from rule-based stand-in shaped like gemma3:4b's API")))).To(
			MatchRegexp(`PASS: all \d+ scenarios? and \d+ thresholds? passed, judging [^(]+ \(2 of \d+ checks judged model behaviour against a stand-in\)\n$`))
	})

	It("are not set apart when a real model answered", func() {
		text := string(render(report.WriteText, judged("replayed from openai gpt-4.1-mini")))
		Expect(text).NotTo(ContainSubstring("judged against"))
		Expect(text).NotTo(ContainSubstring("judged model behaviour"))
	})
})

var _ = Describe("the trimming table of a suite whose reduction one payload dominates", func() {
	It("also totals the reduction without the tools the suite names", func() {
		r := passing()
		r.Suites[0].ReductionWithout = []string{"cwa.rainfall"}
		text := string(render(report.WriteText, r))
		Expect(text).To(MatchRegexp(`trimmed\s+total without cwa.rainfall\s+1\s+0\s+39\s+—`))
		Expect(string(render(report.WriteText, passing()))).NotTo(ContainSubstring("total without"))
	})
})
