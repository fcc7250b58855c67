package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("Scenario.Explain", func() {
	It("gives the verdict, the error and each failed check, not the passed ones", func() {
		sc := report.Scenario{Verdict: report.VerdictFail, Error: "boom", Checks: []report.Check{
			{Turn: 0, Name: "route", Pass: true, Detail: "tool:x"},
			{Turn: 1, Name: "answer.contains", Detail: `want "°C", got "cold"`},
		}}
		Expect(sc.Explain()).To(Equal("verdict fail\n  error: boom\n  turn 2 answer.contains: want \"°C\", got \"cold\""))
	})

	It("is the verdict alone for a pass", func() {
		Expect(report.Scenario{Verdict: report.VerdictPass}.Explain()).To(Equal("verdict pass"))
	})
})

var _ = Describe("Report.Runs", func() {
	It("counts the scenarios of every variant of every suite", func() {
		r := &report.Report{Suites: []report.Suite{
			{Variants: []report.Variant{{Scenarios: make([]report.Scenario, 2)}, {Scenarios: make([]report.Scenario, 3)}}},
			{Variants: []report.Variant{{Scenarios: make([]report.Scenario, 1)}}},
		}}
		Expect(r.Runs()).To(Equal(6))
	})
})
