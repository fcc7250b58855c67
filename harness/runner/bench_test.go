package runner_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// BenchmarkRunOdbchat replays the whole odbchat suite, both variants (60
// scenario runs), from a copy of the committed cassettes.
func BenchmarkRunOdbchat(b *testing.B) {
	root := b.TempDir()
	if err := copyProject(root); err != nil {
		b.Fatal(err)
	}
	s, err := scenario.Load(filepath.Join(root, "scenarios", "odbchat.yaml"),
		scenario.LoadOptions{Agents: all.Names(), Metrics: check.MetricNames()})
	if err != nil {
		b.Fatal(err)
	}
	suites := []*scenario.Suite{s}
	opts := runner.Options{Mode: cassette.ModeReplay, Root: root, Agents: all.Registry()}
	runs := 0
	b.ReportAllocs()
	for b.Loop() {
		rep, err := runner.Run(context.Background(), suites, opts)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Passed() {
			b.Fatal("the committed odbchat suite does not pass")
		}
		for _, v := range rep.Suites[0].Variants {
			runs += len(v.Scenarios)
		}
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "scenarios/s")
}
