package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// BenchmarkScale replays a synthetic project of n times the committed runs,
// n = 1, 2, 4, 8 and 10: every committed suite n times over, each copy under
// its own name with its own cassette folder (a link to the committed one),
// in one run. It reports the wall and CPU time (the process's user+sys,
// which a shared machine's load does not inflate as much) per scenario run,
// the largest live heap of the run ("live-MB"), and logs (-v) the
// least-squares line of a run's CPU and wall time against n: a slope near
// the time at 1× and an intercept near 0 is linear growth; a live heap that
// stays flat is memory bounded by what is in flight, not by the project's
// size.
func BenchmarkScale(b *testing.B) {
	suites := loadSuites(b, "")
	var scales, secs, cpus []float64
	for _, n := range []int{1, 2, 4, 8, 10} {
		root, copies := replicated(b, suites, n)
		opts := runner.Options{Root: root, Mode: cassette.ModeReplay, Agents: all.Registry()}
		var per, cpuPer time.Duration
		b.Run(fmt.Sprintf("x%d", n), func(b *testing.B) {
			var live uint64
			var cpu time.Duration
			runs := 0
			for b.Loop() {
				began := cpuTime()
				live = max(live, maxLiveHeap(func() {
					rep, err := runner.Run(context.Background(), copies, opts)
					if err != nil || !rep.Passed() {
						b.Fatalf("the copies do not pass: %v", err)
					}
					runs += rep.Runs()
				}))
				cpu += cpuTime() - began
			}
			per, cpuPer = b.Elapsed()/time.Duration(b.N), cpu/time.Duration(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(runs, 1)), "ns/run")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(max(runs, 1)), "cpu-ns/run")
			b.ReportMetric(float64(live)/(1<<20), "live-MB")
		})
		scales, secs, cpus = append(scales, float64(n)), append(secs, per.Seconds()), append(cpus, cpuPer.Seconds())
	}
	for _, m := range []struct {
		name string
		y    []float64
	}{{"CPU", cpus}, {"wall", secs}} {
		slope, intercept := fit(scales, m.y)
		b.Logf("%s time of a run against scale: %.3f s per 1× of the committed runs, intercept %.3f s; at 10×: %.3f s = %.2f× the 1× run",
			m.name, slope, intercept, m.y[len(m.y)-1], m.y[len(m.y)-1]/m.y[0])
	}
}

// replicated makes a project under a temporary folder holding every suite
// of suites n times, copy k named "<suite>-k", with its cassette folder a
// link to the committed one; fixtures and scenarios (prompt files) are
// links to the committed folders. It returns the folder and the copies.
func replicated(t testing.TB, suites []*scenario.Suite, n int) (string, []*scenario.Suite) {
	t.Helper()
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	links := map[string]string{
		filepath.Join(root, "fixtures"):  filepath.Join(abs, "fixtures"),
		filepath.Join(root, "scenarios"): filepath.Join(abs, "scenarios"),
	}
	var out []*scenario.Suite
	for k := range n {
		for _, s := range suites {
			c := *s
			c.Name = fmt.Sprintf("%s-%d", s.Name, k+1)
			out = append(out, &c)
			links[filepath.Join(root, "cassettes", c.Name)] = filepath.Join(abs, "cassettes", s.Name)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "cassettes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, out
}

// fit is the least-squares line y = slope·x + intercept.
func fit(x, y []float64) (slope, intercept float64) {
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx, sy, sxx, sxy = sx+x[i], sy+y[i], sxx+x[i]*x[i], sxy+x[i]*y[i]
	}
	n := float64(len(x))
	slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return slope, (sy - slope*sx) / n
}
