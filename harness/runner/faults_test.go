package runner_test

import (
	"context"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/trace"
)

// faultsOf lists the faults marked in a scenario's exchanges.
func faultsOf(sc report.Scenario) []string {
	var out []string
	for _, e := range sc.Events {
		if e.Kind == trace.KindHTTP && e.HTTP.Fault != "" {
			out = append(out, e.HTTP.Fault)
		}
	}
	return out
}

var _ = Describe("Run with injected faults", Ordered, func() {
	var (
		rec   *recording
		root  string
		suite *scenario.Suite
	)
	record := func(s *scenario.Suite) *report.Report {
		GinkgoHelper()
		return rec.record(s, runner.Options{Variant: "single-pass"})
	}

	BeforeAll(func() {
		rec = startRecording()
		root, suite = rec.root, rec.suite
	})

	It("injects a fault by rule into the named call and marks it in the cassette", func() {
		s := *suite
		s.Scenarios = []scenario.Scenario{suite.Scenarios[0]}
		s.Scenarios[0].Faults = []scenario.FaultRule{{On: scenario.FaultOnUpstream, Call: 1, Kind: "500"}}
		sc := scenarios(record(&s))["single-pass/ac1-taiwan-sst"]
		Expect(faultsOf(sc)).To(Equal([]string{"500"}))
		Expect(sc.Answer[0]).To(ContainSubstring("UNAVAILABLE"))
		Expect(readFile(cassette.Path(root, "odbchat", "single-pass", "ac1-taiwan-sst"))).To(ContainSubstring(cassette.FaultHeader))

		again := scenarios(replayAt(root, &s, runner.Options{Variant: "single-pass"}))["single-pass/ac1-taiwan-sst"]
		Expect(faultsOf(again)).To(Equal([]string{"500"}), "a replay knows which exchanges were faults")
		Expect(again.Metrics.Faults).To(Equal(1))
	})

	It("turns a modelled timeout into a client timeout, in recording and in replay", func() {
		s := *suite
		s.Scenarios = []scenario.Scenario{suite.Scenarios[0]}
		s.Scenarios[0].Faults = []scenario.FaultRule{{On: scenario.FaultOnModel, Call: 1, Kind: standin.FaultTimeout}}
		check := func(sc report.Scenario) {
			GinkgoHelper()
			Expect(sc.Metrics.Latency).To(BeNumerically(">=", standin.TimeoutAfter))
			Expect(sc.Answer[0]).To(ContainSubstring("UNAVAILABLE"))
			notes := trace.Notes(sc.Events, "error")
			Expect(notes).To(HaveLen(1))
			Expect(notes[0]).To(ContainSubstring("timeout awaiting response headers"))
		}
		check(scenarios(record(&s))["single-pass/ac1-taiwan-sst"])
		check(scenarios(replayAt(root, &s, runner.Options{Variant: "single-pass"}))["single-pass/ac1-taiwan-sst"])
	})

	It("draws faults at a seeded rate, the same ones on every recording", func() {
		s := *suite
		s.Scenarios = suite.Scenarios[:8]
		s.Faults = &scenario.FaultRate{Rate: 0.5, Seed: 11, Model: []string{"429", "500"}, Upstream: []string{"404"}}
		first := record(&s)
		var drawn []string
		for _, sc := range first.Suites[0].Variants[0].Scenarios {
			drawn = append(drawn, sc.ID+":"+strings.Join(faultsOf(sc), ","))
		}
		bytes := readFile(cassette.Path(root, "odbchat", "single-pass", s.Scenarios[3].ID))
		second := record(&s)
		for i, sc := range second.Suites[0].Variants[0].Scenarios {
			Expect(sc.ID + ":" + strings.Join(faultsOf(sc), ",")).To(Equal(drawn[i]))
		}
		Expect(readFile(cassette.Path(root, "odbchat", "single-pass", s.Scenarios[3].ID))).To(Equal(bytes))
		sum := second.Suites[0].Variants[0].Summary
		Expect(sum.Faults).To(BeNumerically(">=", 3), "half of the calls fail")
		Expect(sum.Faults).To(BeNumerically("<", 16))
	})
})

// panicky is an agent that panics on every run.
type panicky struct{}

func (panicky) Run(context.Context, agents.Input) (agents.Answer, error) { panic("index out of range") }

var _ = Describe("Run with an agent that panics", func() {
	It("reports the crash as the scenario's error and goes on", func() {
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(root+"/scenarios", 0o755)).To(Succeed())
		reg := map[string]agents.Entry{"panicky": {
			Info: agents.Info{Name: "panicky", Model: llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "http://localhost:1/v1", Model: "m"}},
			New:  func(agents.Config) (agents.Agent, error) { return panicky{}, nil },
		}}
		s := &scenario.Suite{Name: "p", Agent: "panicky", Baseline: "v", Clock: time.Unix(0, 0),
			Variants:  []scenario.Variant{{Name: "v"}},
			Scenarios: []scenario.Scenario{{ID: "a", Turns: []scenario.Turn{{Input: "hi"}}}, {ID: "b", Turns: []scenario.Turn{{Input: "hi"}}}}}
		rep, err := runner.Run(context.Background(), []*scenario.Suite{s}, runner.Options{Mode: cassette.ModeLive, Root: root, Agents: reg})
		Expect(err).NotTo(HaveOccurred())
		v := rep.Suites[0].Variants[0]
		Expect(v.Scenarios).To(HaveLen(2))
		for _, sc := range v.Scenarios {
			Expect(sc.Crashed).To(BeTrue())
			Expect(sc.Verdict).To(Equal(report.VerdictError))
			Expect(sc.Error).To(Equal("agent panicked: index out of range"))
		}
		Expect(v.Summary.Crashes).To(Equal(2))
	})
})
