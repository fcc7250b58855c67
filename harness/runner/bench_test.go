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

// replayBench replays suites from root with opts once per iteration, fails
// unless the run passes, and reports scenario runs per second and the mean
// wall time per scenario run.
func replayBench(b *testing.B, suites []*scenario.Suite, opts runner.Options) {
	b.Helper()
	opts.Mode, opts.Agents = cassette.ModeReplay, all.Registry()
	runs := 0
	b.ReportAllocs()
	for b.Loop() {
		rep, err := runner.Run(context.Background(), suites, opts)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Passed() {
			b.Fatal("the committed suites do not pass")
		}
		for _, s := range rep.Suites {
			for _, v := range s.Variants {
				runs += len(v.Scenarios)
			}
		}
	}
	b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "scenarios/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(runs, 1)), "ns/scenario")
}

// loadSuites loads every committed suite, or the one named.
func loadSuites(b *testing.B, name string) []*scenario.Suite {
	b.Helper()
	opts := scenario.LoadOptions{Agents: all.Names(), Metrics: check.MetricNames()}
	if name != "" {
		s, err := scenario.Load(filepath.Join(repoRoot, "scenarios", name+".yaml"), opts)
		if err != nil {
			b.Fatal(err)
		}
		return []*scenario.Suite{s}
	}
	suites, err := scenario.LoadDir(filepath.Join(repoRoot, "scenarios"), opts)
	if err != nil {
		b.Fatal(err)
	}
	return suites
}

// BenchmarkFullReplay replays every committed suite, every variant and
// scenario (what make run does, without rendering), from the committed
// cassettes. Replay only reads them.
func BenchmarkFullReplay(b *testing.B) {
	replayBench(b, loadSuites(b, ""), runner.Options{Root: repoRoot})
}

// BenchmarkScenario replays one typical scenario (odbchat ac1-taiwan-sst
// under the baseline variant, one LLM call and one tool call): the
// per-scenario overhead of a run.
func BenchmarkScenario(b *testing.B) {
	suites := loadSuites(b, "odbchat")
	replayBench(b, suites, runner.Options{Root: repoRoot, Variant: suites[0].Baseline, Scenario: "ac1-taiwan-sst"})
}

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
	replayBench(b, []*scenario.Suite{s}, runner.Options{Root: root})
}
