package report_test

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// knownRun is a run of one variant: a scenario that passes, one that fails
// its route check, one that is stale, and a failed threshold.
func knownRun() *report.Report {
	return &report.Report{Suites: []report.Suite{{Name: "trips", Variants: []report.Variant{{Name: "main",
		Scenarios: []report.Scenario{
			{ID: "ok", Verdict: report.VerdictPass},
			{ID: "wrong", Verdict: report.VerdictFail, Checks: []report.Check{{Name: "route", Detail: "want tool:seat_map, got answer"}, {Name: "answer", Pass: true}}},
			{ID: "old", Verdict: report.VerdictStale, Error: "cassette has no match"},
		},
		Thresholds: []report.Threshold{{Source: "pass_rate == 100%", Detail: "pass_rate = 33.3%"}},
	}}}}}
}

var _ = Describe("known failures", func() {
	It("are what failed as blessed; stale and errored runs never are", func() {
		known, never := report.Failing(knownRun())
		Expect(known).To(Equal([]report.KnownFailure{
			{Suite: "trips", Variant: "main", Scenario: "wrong", Checks: []string{"route"}},
			{Suite: "trips", Variant: "main", Threshold: "pass_rate == 100%"},
		}))
		Expect(never).To(Equal([]string{"trips/main/old is stale"}))
	})

	It("do not fail a run that fails as blessed, are listed in its verdict and skipped in JUnit; a stale run still fails", func() {
		r := knownRun()
		known, _ := report.Failing(r)
		r.ApplyKnown(known)
		Expect(r.Passed()).To(BeFalse(), "the stale run fails")
		Expect(r.Verdict()).To(HavePrefix("FAIL: 1 of 3 scenarios, 0 of 1 threshold failed (2 known failures blessed in the baseline: trips/main/wrong [route], trips/main threshold pass_rate == 100%)"))

		r.Suites[0].Variants[0].Scenarios = r.Suites[0].Variants[0].Scenarios[:2]
		Expect(r.Passed()).To(BeTrue())
		Expect(r.Verdict()).To(Equal("PASS: 1 of 2 scenarios and 0 of 1 threshold passed (2 known failures blessed in the baseline: trips/main/wrong [route], trips/main threshold pass_rate == 100%)"))
		var buf bytes.Buffer
		Expect(report.WriteJUnit(&buf, r)).To(Succeed())
		Expect(buf.String()).To(ContainSubstring(`failures="0"`))
		Expect(strings.Count(buf.String(), `<skipped message="known failure, blessed in the baseline" type="known">`)).To(Equal(2))
		Expect(string(render(report.WriteText, r))).To(MatchRegexp(`wrong\s+FAIL \(known\)`))
	})

	It("fail the run when they fail a check more, and are said to pass when they do", func() {
		r := knownRun()
		known, _ := report.Failing(r)
		sc := &r.Suites[0].Variants[0].Scenarios[1]
		sc.Checks[1].Pass = false
		r.ApplyKnown(known)
		Expect(sc.Known).To(BeFalse())
		Expect(r.KnownFailures).To(HaveLen(1), "the threshold alone")

		r = knownRun()
		r.Suites[0].Variants[0].Scenarios = r.Suites[0].Variants[0].Scenarios[:2]
		r.Suites[0].Variants[0].Scenarios[1] = report.Scenario{ID: "wrong", Verdict: report.VerdictPass}
		r.Suites[0].Variants[0].Thresholds[0].Pass = true
		r.ApplyKnown(known)
		Expect(r.KnownFailures).To(BeEmpty())
		Expect(r.Passed()).To(BeTrue())
		Expect(r.Verdict()).To(Equal("PASS: all 2 scenarios and 1 threshold passed (2 known failures now pass (improved: trips/main/wrong [route], trips/main threshold pass_rate == 100%); re-bless with: testbed baseline bless --suite trips --known-failures)"))
	})
})
