package report_test

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// faulted is a scenario whose exchanges carry the given faults.
func faulted(id, verdict string, crashed bool, faults ...string) report.Scenario {
	sc := report.Scenario{ID: id, Verdict: verdict, Crashed: crashed}
	for _, f := range faults {
		sc.Events = append(sc.Events, trace.Event{Kind: trace.KindHTTP, HTTP: &trace.Exchange{Status: 500, Fault: f}})
	}
	sc.Metrics = trace.Measure(sc.Events)
	return sc
}

var _ = Describe("faults in the report", func() {
	variant := func(name string, scs ...report.Scenario) report.Variant {
		return report.Variant{Name: name, Scenarios: scs, Summary: report.Summarize(scs)}
	}
	r := &report.Report{Mode: "replay", Suites: []report.Suite{
		{Name: "a-chaos", Agent: "alpha", Variants: []report.Variant{variant("v",
			faulted("handled", "pass", false, "429", "timeout"),
			faulted("unhandled", "fail", false, "500"),
			faulted("crash", "error", true))}},
		{Name: "b", Agent: "beta", Variants: []report.Variant{variant("w", faulted("quiet", "pass", false))}},
	}}

	It("counts faults injected, those in passing runs, and crashes", func() {
		s := r.Suites[0].Variants[0].Summary
		Expect([]int{s.Faults, s.FaultsHandled, s.Crashes}).To(Equal([]int{3, 2, 1}))
	})

	It("shows them per variant with their kinds, and per agent", func() {
		var out bytes.Buffer
		Expect(report.WriteText(&out, r)).To(Succeed())
		Expect(out.String()).To(MatchRegexp(`injected faults\n.*\n.*\nv\s+3\s+2\s+1\s+429×1, 500×1, timeout×1`))
		Expect(out.String()).To(MatchRegexp(`faults by agent\n.*\n.*\nalpha\s+3\s+2\s+1\nbeta\s+0\s+0\s+0`))
	})

	It("leaves both tables out of a report without faults or crashes", func() {
		var out bytes.Buffer
		Expect(report.WriteText(&out, &report.Report{Suites: r.Suites[1:]})).To(Succeed())
		Expect(out.String()).NotTo(ContainSubstring("faults"))
	})
})

var _ = Describe("faults in the HTML page", func() {
	It("shows the faults by agent above the suites", func() {
		r := &report.Report{Mode: "replay", Suites: []report.Suite{{Name: "a-chaos", Agent: "alpha", Variants: []report.Variant{{
			Name: "v", Scenarios: []report.Scenario{faulted("x", "pass", false, "429")}}}}}}
		r.Suites[0].Variants[0].Summary = report.Summarize(r.Suites[0].Variants[0].Scenarios)
		var out bytes.Buffer
		Expect(report.WriteHTML(&out, r)).To(Succeed())
		page := out.String()
		Expect(page).To(ContainSubstring("<h3>faults by agent</h3>"))
		Expect(page).To(MatchRegexp(`<td>alpha</td><td class="num">1</td><td class="num">1</td><td class="num">0</td>`))
		Expect(strings.Index(page, "faults by agent")).To(BeNumerically("<", strings.Index(page, "<h2>suite a-chaos</h2>")))
	})
})

var _ = Describe("stand-in rules in the HTML page", func() {
	It("names the rule that decided a model's answer beside its exchange", func() {
		sc := report.Scenario{ID: "x", Verdict: "pass", Events: []trace.Event{{Kind: trace.KindHTTP,
			HTTP: &trace.Exchange{Method: "POST", URL: "http://model/v1/chat/completions", Status: 200, Rule: "climate/advisor:city-search"}}}}
		sc.Metrics = trace.Measure(sc.Events)
		r := &report.Report{Mode: "replay", Suites: []report.Suite{{Name: "s", Agent: "cba", Variants: []report.Variant{{
			Name: "v", Scenarios: []report.Scenario{sc}, Summary: report.Summarize([]report.Scenario{sc})}}}}}
		var out bytes.Buffer
		Expect(report.WriteHTML(&out, r)).To(Succeed())
		Expect(out.String()).To(ContainSubstring("stand-in rule climate/advisor:city-search"))
	})
})

var _ = Describe("a report's pass", func() {
	failing := report.Variant{Name: "v", Scenarios: []report.Scenario{{ID: "x", Verdict: report.VerdictFail}}}
	It("does not count the failures of a suite that is not gating, as testbed run's verdict does not", func() {
		r := &report.Report{Suites: []report.Suite{{Name: "paraphrase", NotGating: true, Variants: []report.Variant{failing}}}}
		Expect(r.Passed()).To(BeTrue())
	})
	It("counts those of a gating suite", func() {
		r := &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{failing}}}}
		Expect(r.Passed()).To(BeFalse())
	})
})
