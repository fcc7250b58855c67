package runner_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("Run with several samples per scenario", Ordered, func() {
	const id = "explain-marine-heatwave"
	var (
		rec   *recording
		root  string
		suite *scenario.Suite
	)
	sample := func(k int) string { return cassette.SamplePath(root, "odbchat", "single-pass", id, k) }
	record := func(repeat int, s ...*scenario.Suite) *report.Report {
		GinkgoHelper()
		var which *scenario.Suite
		if len(s) > 0 {
			which = s[0]
		}
		return rec.record(which, runner.Options{Variant: "single-pass", Scenario: id, Repeat: repeat})
	}

	BeforeAll(func() {
		rec = startRecording()
		root, suite = rec.root, rec.suite
	})

	It("records N cassettes, the first byte for byte the deterministic one", func() {
		committed := readFile(sample(1))
		rep := record(4)
		sc := scenarios(rep)["single-pass/"+id]
		Expect(sc.Sampling).NotTo(BeNil())
		Expect(sc.Sampling.N).To(Equal(4))
		for k := 2; k <= 4; k++ {
			Expect(sample(k)).To(BeARegularFile())
			Expect(readFile(sample(k))).NotTo(ContainSubstring(standin.SampleHeader), "the routing header stays out of the cassette")
		}
		Expect(readFile(sample(1))).To(Equal(committed))
		Expect(readFile(sample(2))).NotTo(Equal(committed), "later samples vary")
	})

	It("re-records the same samples byte for byte", func() {
		before := readFile(sample(3))
		record(4)
		Expect(readFile(sample(3))).To(Equal(before))
	})

	// withSamples is the suite declaring n samples per scenario.
	withSamples := func(n int) *scenario.Suite {
		s := *suite
		s.Samples = n
		return &s
	}

	It("replays the samples the suite declares and reports them as one scenario", func() {
		rep := replayAt(root, withSamples(4), runner.Options{Variant: "single-pass", Scenario: id})
		sc := scenarios(rep)["single-pass/"+id]
		Expect(sc.Sampling.N).To(Equal(4))
		Expect(sc.Sampling.Runs).To(HaveLen(4))
		Expect(sc.Sampling.PassHat).To(HaveLen(4))
		for _, r := range sc.Sampling.Runs {
			Expect(r.Unplayed).To(BeZero())
			Expect(r.Replayed).To(BeNumerically(">", 0))
		}
		lat := sc.Sampling.Metrics[report.MetricLatencyMS]
		Expect(lat.Hi).To(BeNumerically(">", lat.Lo), "the stand-in's sampled latencies vary")
		var served int
		for _, r := range sc.Sampling.Runs {
			served += r.Replayed
		}
		Expect(rep.Replay.Replayed).To(BeNumerically(">=", served))
	})

	It("calls Progress once per sample run, counting up to every run of every scenario", func() {
		var calls []int
		total := 0
		rep := replayAt(root, withSamples(4), runner.Options{Variant: "single-pass", Progress: func(done, n int, _, _, _ string) {
			calls = append(calls, done)
			total = n
		}})
		runs := 0
		for _, v := range rep.Suites[0].Variants {
			for _, sc := range v.Scenarios {
				runs += len(sc.Runs())
			}
		}
		Expect(total).To(Equal(runs))
		Expect(total).To(Equal(4*rep.Runs()), "every sample counts")
		want := make([]int, total)
		for i := range want {
			want[i] = i + 1
		}
		Expect(calls).To(Equal(want))
	})

	It("removes the samples beyond a smaller --repeat", func() {
		record(2)
		Expect(sample(2)).To(BeARegularFile())
		Expect(sample(3)).NotTo(BeAnExistingFile())
		Expect(sample(4)).NotTo(BeAnExistingFile())
	})

	It("records the suite's samples when not told a number", func() {
		rep := record(0, withSamples(3))
		Expect(scenarios(rep)["single-pass/"+id].Sampling.N).To(Equal(3))
		Expect(sample(3)).To(BeARegularFile())
		record(2)
	})

	It("calls the samples the suite declares but the disk lacks stale, so the gate cannot pass without them", func() {
		rep := replayAt(root, withSamples(3), runner.Options{Variant: "single-pass", Scenario: id})
		sc := scenarios(rep)["single-pass/"+id]
		Expect(sc.Verdict).To(Equal(report.VerdictStale))
		Expect(sc.Sampling.Runs[2].Error).To(ContainSubstring(sample(3)))
		Expect(sc.Sampling.Runs[2].Error).To(ContainSubstring("record it with: testbed record --suite odbchat --variant single-pass --scenario " + id))
	})

	It("lists a sample after a gap as an unused cassette", func() {
		Expect(os.WriteFile(sample(5), []byte(readFile(sample(2))), 0o644)).To(Succeed())
		DeferCleanup(os.Remove, sample(5))
		rep := replayAt(root, withSamples(2), runner.Options{})
		rel, err := filepath.Rel(root, sample(5))
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Replay.UnusedCassettes).To(Equal([]string{filepath.ToSlash(rel)}))
	})
})
