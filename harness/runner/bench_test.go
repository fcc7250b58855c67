package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/proxy"
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
func loadSuites(b testing.TB, name string) []*scenario.Suite {
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

// BenchmarkFullReplayProxy is BenchmarkFullReplay with every agent reaching
// its cassette over loopback HTTP through a proxy session (Options.Proxy):
// the ratio of the two is the proxy's overhead on a whole run.
func BenchmarkFullReplayProxy(b *testing.B) {
	p, err := proxy.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	replayBench(b, loadSuites(b, ""), runner.Options{Root: repoRoot, Proxy: p})
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

// BenchmarkMemory replays the scenario with the largest committed cassette
// (climate datasources-new-york-2023 under untrimmed, 1.4 MB) as n scenarios, each
// reading its own copy of the cassette, and reports the largest live heap of
// the run ("live-MB": what is left after a collection, the memory the run
// holds) beside the sum of the cassettes ("cassettes-MB"). A live heap that
// stays flat as n grows is memory proportional to the largest cassette, not
// to the sum.
func BenchmarkMemory(b *testing.B) {
	for _, n := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("scenarios=%d", n), func(b *testing.B) {
			root, suite, size := copiesOf(b, "climate", "untrimmed", "datasources-new-york-2023", n)
			opts := runner.Options{Root: root, Mode: cassette.ModeReplay, Agents: all.Registry()}
			var live uint64
			for b.Loop() {
				live = max(live, maxLiveHeap(func() {
					rep, err := runner.Run(context.Background(), []*scenario.Suite{suite}, opts)
					if err != nil || !rep.Passed() {
						b.Fatalf("the copies do not pass: %v", err)
					}
				}))
			}
			b.ReportMetric(float64(live)/(1<<20), "live-MB")
			b.ReportMetric(float64(int64(n)*size)/(1<<20), "cassettes-MB")
		})
	}
}

// copiesOf makes a project under a temporary folder whose one suite holds n
// copies of scenario id of suite, under variant only, each with its own
// cassette (a link to the committed one); it returns the folder, the suite
// and the size of the cassette.
func copiesOf(t testing.TB, suite, variant, id string, n int) (string, *scenario.Suite, int64) {
	t.Helper()
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	src := cassette.Path(abs, suite, variant, id)
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	s := loadSuites(t, suite)[0]
	sc := s.Scenarios[slices.IndexFunc(s.Scenarios, func(sc scenario.Scenario) bool { return sc.ID == id })]
	v := s.Variants[slices.IndexFunc(s.Variants, func(v scenario.Variant) bool { return v.Name == variant })]
	copied := *s
	copied.Variants, copied.Baseline, copied.Thresholds = []scenario.Variant{v}, variant, nil
	copied.Scenarios = nil
	links := map[string]string{filepath.Join(root, "fixtures"): filepath.Join(abs, "fixtures")}
	for k := range n {
		c := sc
		c.ID = fmt.Sprintf("%s-%d", id, k+1)
		copied.Scenarios = append(copied.Scenarios, c)
		links[cassette.Path(root, suite, variant, c.ID)] = src
	}
	for link, target := range links {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, &copied, st.Size()
}

// maxLiveHeap runs f and returns the largest live heap, read after each
// collection, while it ran. It collects before f, so that what earlier work
// left does not count, and samples every 100 µs.
func maxLiveHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	f()
	runtime.GC() // the live heap at the end counts too
	close(done)
	<-stopped
	metrics.Read(sample)
	return max(peak, sample[0].Value.Uint64())
}

// BenchmarkStreamingReplay replays each streaming variant and the variant
// it streams (the same config, its model calls whole) alone, one after the
// other: the ratio of their ns/scenario is what streaming costs a replay
// (the stream's events parsed for their timing, the SDK's stream reader and
// accumulator in the agent). With -count n the pairs interleave.
func BenchmarkStreamingReplay(b *testing.B) {
	for _, pair := range []struct{ suite, whole string }{{"climate", "trimmed"}, {"kura", "compact-state"}, {"cba", "anthropic"}} {
		s := loadSuites(b, pair.suite)[0]
		for _, name := range []string{pair.whole, "streaming"} {
			b.Run(pair.suite+"/"+name, func(b *testing.B) {
				replayBench(b, []*scenario.Suite{alone(s, name)}, runner.Options{Root: repoRoot, Variant: name})
			})
		}
	}
}

// alone is s with only the named variant, as its own baseline, and none of
// the suite's thresholds (some compare with other variants).
func alone(s *scenario.Suite, name string) *scenario.Suite {
	out := *s
	out.Variants = nil
	for _, v := range s.Variants {
		if v.Name == name {
			out.Variants = append(out.Variants, v)
		}
	}
	out.Baseline, out.Thresholds = name, nil
	return &out
}
