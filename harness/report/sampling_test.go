package report_test

import (
	"bytes"
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// samples are the runs of one scenario: a verdict, input tokens and
// latency in milliseconds each.
func samples(id string, runs ...[3]any) []report.Scenario {
	var out []report.Scenario
	for _, r := range runs {
		out = append(out, report.Scenario{ID: id, Verdict: r[0].(string), ExpectedRoute: "tool:a", Route: "tool:a",
			Metrics: trace.Metrics{InputTokens: r[1].(int), LLMCalls: 1, Latency: time.Duration(r[2].(int)) * time.Millisecond},
			Events:  []trace.Event{{Kind: trace.KindHTTP, HTTP: &trace.Exchange{Status: 200}}}})
	}
	return out
}

func run(verdict string, in, ms int) [3]any { return [3]any{verdict, in, ms} }

var _ = Describe("Sample", func() {
	It("returns a single run as it is", func() {
		one := samples("a", run("fail", 10, 100))
		Expect(report.Sample(one, 1)).To(Equal(one[0]))
	})

	It("keeps sample 1's details and counts every sample", func() {
		sc := report.Sample(samples("a", run("pass", 10, 100), run("fail", 12, 300), run("pass", 11, 200), run("pass", 11, 200)), 0.75)
		sp := sc.Sampling
		Expect(sp.N).To(Equal(4))
		Expect(sp.Passed).To(Equal(3))
		Expect(sc.Metrics.InputTokens).To(Equal(10))
		Expect(sc.Verdict).To(Equal("pass"))
		Expect(sp.Runs[1]).To(MatchFields(IgnoreExtras, Fields{"Sample": Equal(2), "Verdict": Equal("fail"), "Replayed": Equal(1)}))
		Expect(sc.Checks).To(ContainElement(report.Check{Name: "samples.pass_rate", Pass: true, Detail: "3 of 4 samples passed (75%, need 75%)"}))
	})

	It("gives the Wilson interval of the pass rate", func() {
		sp := report.Sample(samples("a", run("pass", 1, 1), run("pass", 1, 1), run("pass", 1, 1), run("pass", 1, 1), run("fail", 1, 1)), 0.5).Sampling
		// Wilson at 95% for 4 of 5: [0.376, 0.964].
		Expect(sp.PassRate.Mean).To(Equal(0.8))
		Expect(sp.PassRate.Lo).To(BeNumerically("~", 0.3755, 1e-3))
		Expect(sp.PassRate.Hi).To(BeNumerically("~", 0.9638, 1e-3))
	})

	It("estimates pass^k as C(passed,k)/C(n,k)", func() {
		sp := report.Sample(samples("a", run("pass", 1, 1), run("pass", 1, 1), run("pass", 1, 1), run("fail", 1, 1)), 0.5).Sampling
		Expect(sp.PassHat).To(HaveLen(4))
		Expect(sp.PassHatK(1)).To(BeNumerically("~", 0.75, 1e-12))
		Expect(sp.PassHatK(2)).To(BeNumerically("~", 3.0/6, 1e-12)) // C(3,2)/C(4,2)
		Expect(sp.PassHatK(3)).To(BeNumerically("~", 1.0/4, 1e-12)) // C(3,3)/C(4,3)
		Expect(sp.PassHatK(4)).To(Equal(0.0))
		Expect(math.IsNaN(sp.PassHatK(5))).To(BeTrue())
	})

	It("gives each metric's mean with its Student-t interval", func() {
		sp := report.Sample(samples("a", run("pass", 10, 100), run("pass", 10, 200), run("pass", 10, 300)), 1).Sampling
		lat := sp.Metrics[report.MetricLatencyMS]
		// mean 200, sd 100, t(2, .975) = 4.303: 200 ± 248.4.
		Expect(lat.Mean).To(BeNumerically("~", 200, 1e-9))
		Expect(lat.SD).To(BeNumerically("~", 100, 1e-9))
		Expect(lat.HalfWidth()).To(BeNumerically("~", 4.3027*100/math.Sqrt(3), 0.05))
		in := sp.Metrics[report.MetricInputTokens]
		Expect(in).To(Equal(report.Interval{Mean: 10, Lo: 10, Hi: 10}))
	})

	DescribeTable("the verdict over the samples",
		func(verdicts []string, min float64, want string) {
			var runs [][3]any
			for _, v := range verdicts {
				runs = append(runs, run(v, 1, 1))
			}
			Expect(report.Sample(samples("a", runs...), min).Verdict).To(Equal(want))
		},
		Entry("all pass", []string{"pass", "pass", "pass"}, 1.0, "pass"),
		Entry("one fails under the default of every sample", []string{"pass", "fail", "pass"}, 0.0, "fail"),
		Entry("enough pass under a lower bar", []string{"fail", "pass", "pass"}, 0.6, "pass"),
		Entry("too few pass: sample 1's own verdict stays when it failed", []string{"error", "pass", "fail"}, 0.6, "error"),
		Entry("too few pass after a passing sample 1", []string{"pass", "fail", "fail"}, 0.6, "fail"),
		Entry("a stale sample is stale whatever else passed", []string{"pass", "stale", "pass"}, 0.5, "stale"),
	)
})

var _ = Describe("Summarize with samples", func() {
	scs := []report.Scenario{
		report.Sample(samples("a", run("pass", 100, 1000), run("pass", 100, 1200), run("fail", 100, 800), run("pass", 100, 1000)), 0.75),
		report.Sample(samples("b", run("pass", 200, 2000), run("pass", 200, 2000), run("pass", 200, 2000), run("pass", 200, 2000)), 0.75),
	}
	s := report.Summarize(scs)

	It("counts scenarios for the pass rate and runs for the rest", func() {
		Expect(s.PassRate).To(Equal(1.0))
		Expect(s.Runs).To(Equal(8))
		Expect(s.RunPassRate).To(Equal(7.0 / 8))
		Expect(s.Routed).To(Equal(8))
		Expect(s.InputTokensMean).To(Equal(150.0))
		Expect(s.LatencyMean).To(Equal(1500.0))
	})

	It("averages pass^k over the scenarios at the fewest samples", func() {
		Expect(s.K).To(Equal(4))
		Expect(s.PassHatK).To(Equal(0.5)) // a: 0 (one failed of 4), b: 1
	})

	It("puts the within-scenario noise around each mean", func() {
		in := s.CI[report.MetricInputTokens]
		Expect(in.Lo).To(Equal(in.Hi)) // tokens did not vary
		lat := s.CI[report.MetricLatencyMS]
		// Only a varies: sd 163.3 over 4 samples; se = sqrt(4·sd²)/8.
		se := math.Sqrt(4*163.299*163.299) / 8
		Expect(lat.HalfWidth()).To(BeNumerically("~", 2.447*se, 1)) // t(6) = 2.447
	})

	It("leaves the sampling fields out of a report without samples", func() {
		plain := report.Summarize([]report.Scenario{{ID: "x", Verdict: "pass"}})
		Expect(plain.Runs).To(BeZero())
		Expect(plain.CI).To(BeNil())
	})
})

var _ = Describe("CompareVariants with samples", func() {
	variant := func(name string, runs ...[]report.Scenario) *report.Variant {
		v := &report.Variant{Name: name}
		for _, r := range runs {
			v.Scenarios = append(v.Scenarios, report.Sample(r, 0.5))
		}
		return v
	}
	base := variant("base",
		samples("tokens", run("pass", 1000, 1000), run("pass", 1000, 1400), run("pass", 1000, 600)),
		samples("latency", run("pass", 500, 1000), run("pass", 500, 1010), run("pass", 500, 990)),
	)
	head := variant("head",
		samples("tokens", run("pass", 900, 1100), run("pass", 900, 1500), run("pass", 900, 700)),
		samples("latency", run("pass", 500, 2000), run("pass", 500, 2010), run("pass", 500, 1990)),
	)
	c := report.CompareVariants("s", base, head, "base", "head")
	noise := func(ns []report.Noise, metric string) report.Noise {
		for _, n := range ns {
			if n.Metric == metric {
				return n
			}
		}
		Fail("no noise figure for " + metric)
		return report.Noise{}
	}

	It("says per scenario whether a difference is beyond the noise", func() {
		tok := c.Rows[0]
		Expect(noise(tok.Noise, report.MetricInputTokens)).To(MatchFields(IgnoreExtras, Fields{"Delta": Equal(-100.0), "Beyond": BeTrue()}))
		Expect(noise(tok.Noise, report.MetricLatencyMS)).To(MatchFields(IgnoreExtras, Fields{"Delta": BeNumerically("~", 100, 1e-9), "Beyond": BeFalse()}))
		Expect(noise(c.Rows[1].Noise, report.MetricLatencyMS).Beyond).To(BeTrue())
	})

	It("does not call a rise within the noise a regression", func() {
		Expect(c.Rows[0].Regressed).To(BeFalse())
		Expect(c.Rows[1].Regressed).To(BeTrue())
	})

	It("shows the sample means and the summary's noise column", func() {
		Expect(c.Rows[0].Head.Samples).To(Equal(3))
		Expect(c.Rows[0].Head.LatencyMS).To(Equal(1100.0))
		Expect(noise(c.Noise, report.MetricInputTokens).Beyond).To(BeTrue())
		var out bytes.Buffer
		Expect(report.WriteComparisonText(&out, []report.Comparison{c}, report.CompareFilter{})).To(Succeed())
		Expect(out.String()).To(MatchRegexp(`input tokens \(mean\)\s+750\s+700\s+-50 \(-6\.7%\)\s+±\d+ beyond noise`))
		Expect(out.String()).To(ContainSubstring("tokens (3 → 3 samples): input tokens -100.0 ±0.0 beyond noise; latency ms +100.0"))
		Expect(out.String()).To(MatchRegexp(`pass\^3 \(%\)\s+100\.0\s+100\.0\s+=`))
	})

	It("has no noise figures when neither side was sampled", func() {
		one := &report.Variant{Scenarios: []report.Scenario{samples("x", run("pass", 1, 1))[0]}}
		Expect(report.CompareVariants("s", one, one, "a", "b").Noise).To(BeNil())
	})
})

var _ = Describe("the samples section", func() {
	It("lists each sampled scenario and the variant over all runs", func() {
		r := &report.Report{Mode: "replay", Suites: []report.Suite{{Name: "s", Agent: "x", Tokenizer: "o200k_base", Baseline: "v",
			Variants: []report.Variant{{Name: "v", Scenarios: []report.Scenario{
				report.Sample(samples("a", run("pass", 10, 100), run("fail", 10, 300), run("pass", 10, 200)), 0.6),
			}}}}}}
		r.Suites[0].Variants[0].Summary = report.Summarize(r.Suites[0].Variants[0].Scenarios)
		var out bytes.Buffer
		Expect(report.WriteText(&out, r)).To(Succeed())
		Expect(out.String()).To(ContainSubstring("samples (mean ± 95% interval)"))
		Expect(out.String()).To(MatchRegexp(`v\s+a\s+2/3\s+66\.7% \[20\.8%, 93\.9%\]\s+0\.0% \(k=3\)\s+10\s+\d+\s+1\.00\s+200 ±248 ms`))
		Expect(out.String()).To(MatchRegexp(`v\s+all runs\s+2/3\s+66\.7%\s+0\.0% \(k=3\)`))
	})
})
