package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("the verdict", func() {
	// suite is one suite of one variant with one scenario of verdict v,
	// which made two model calls.
	suite := func(notGating bool, v string) report.Suite {
		return report.Suite{Name: "s", NotGating: notGating, Variants: []report.Variant{{Name: "a",
			Scenarios: []report.Scenario{{ID: "x", Verdict: v, Metrics: trace.Metrics{LLMCalls: 2}}}}}}
	}
	DescribeTable("names what it judged, and never passes on nothing",
		func(r *report.Report, line string, passed bool) {
			Expect(r.Verdict()).To(Equal(line))
			Expect(r.Passed()).To(Equal(passed))
		},
		Entry("a pass", &report.Report{Suites: []report.Suite{suite(false, report.VerdictPass)}},
			"PASS: all 1 scenario and 0 thresholds passed, judging 1 suite, 1 variant, 1 run and 2 model calls", true),
		Entry("no scenario run", &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{{Name: "a"}}}}},
			"FAIL: nothing was judged: no scenario ran", false),
		Entry("no suite", &report.Report{},
			"FAIL: nothing was judged: no scenario ran", false),
		Entry("only findings of a suite that does not gate", &report.Report{Suites: []report.Suite{suite(true, report.VerdictFail)}},
			"PASS: no gating suite ran; not gating: 1 of 1 scenario failed, judging 1 suite, 1 variant, 1 run and 2 model calls", true),
		Entry("a stale cassette of a suite that does not gate", &report.Report{Suites: []report.Suite{suite(false, report.VerdictPass), suite(true, report.VerdictStale)}},
			"FAIL: 0 of 1 scenario, 0 of 0 thresholds failed, judging 1 suite, 1 variant, 1 run and 2 model calls; "+
				"not gating: 1 of 1 scenario failed (1 stale or missing cassette, which fail the run), judging 1 suite, 1 variant, 1 run and 2 model calls", false),
	)
})
