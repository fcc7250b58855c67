package runner_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/trace"
)

// A shard's JSON keeps a sampled scenario's events on the scenario (sample
// 1's) and none on its runs, so a merge that reads isolation notes from the
// runs alone lost the hermeticity line an unsharded run of an outside agent
// has ("outside agents hermetic by network namespace").
var _ = Describe("the replay statistics of a report read back from JSON", func() {
	It("keep how a sampled scenario's outside agent was isolated", func() {
		note := trace.Event{Kind: trace.KindNote, Note: &trace.Note{Key: agents.NoteIsolation, Value: "hermetic by network namespace"}}
		sc := report.Scenario{ID: "s1", Verdict: report.VerdictPass, Events: []trace.Event{note},
			Sampling: &report.Sampling{N: 2, Runs: []report.Run{
				{Sample: 1, Verdict: report.VerdictPass, Events: []trace.Event{note}, Replayed: 2},
				{Sample: 2, Verdict: report.VerdictPass, Events: []trace.Event{note}, Replayed: 2},
			}}}
		rep := &report.Report{Suites: []report.Suite{{Name: "triage", Variants: []report.Variant{{Name: "terse", Scenarios: []report.Scenario{sc}}}}}}
		data, err := json.Marshal(rep)
		Expect(err).NotTo(HaveOccurred())
		var back report.Report
		Expect(json.Unmarshal(data, &back)).To(Succeed())

		runner.Finalize(&back, nil, runner.Options{Mode: cassette.ModeReplay, Shards: 2})
		Expect(back.Replay).NotTo(BeNil())
		Expect(back.Replay.Replayed).To(Equal(4))
		Expect(back.Replay.Isolation).To(Equal([]string{"hermetic by network namespace"}))
	})
})
