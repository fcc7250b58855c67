//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentreplay/testbed/agents/all"
)

// BenchmarkKeptAlive replays each built-in agent's committed suites twice
// per iteration, side by side: in-process (testbed run), and through the
// proxy with the agent running as an outside program kept alive (testbed
// agent NAME, all turns at once): per variant (keep_alive: variant), or as
// many programs as run at once for any run (keep_alive: agent). It reports
// both wall times and their ratio ("through/in"), and where the CPU went:
// testbed's own in each mode, and the programs' (they are testbed's
// children: their CPU is counted when they end, with the run).
//
//	go test ./cmd/testbed -run '^$' -bench KeptAlive -benchtime 3x
func BenchmarkKeptAlive(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "testbed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build testbed: %v\n%s", err, out)
	}
	repo, err := filepath.Abs(repoRoot)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range all.Names() {
		for _, keep := range []string{"variant", "agent"} {
			in, out := keptAliveRoots(b, repo, bin, name, keep)
			b.Run(name+"/"+keep, func(b *testing.B) {
				var inside, through, insideCPU, throughCPU, programsCPU time.Duration
				for b.Loop() {
					self0, children0 := cpuTimes(b)
					t0 := time.Now()
					replayRoot(b, in)
					t1 := time.Now()
					self1, _ := cpuTimes(b)
					replayRoot(b, out)
					through += time.Since(t1)
					self2, children2 := cpuTimes(b)
					inside += t1.Sub(t0)
					insideCPU += self1 - self0
					throughCPU += self2 - self1
					programsCPU += children2 - children0
				}
				n := float64(b.N)
				ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / n }
				b.ReportMetric(ms(inside), "in-ms/op")
				b.ReportMetric(ms(through), "through-ms/op")
				b.ReportMetric(through.Seconds()/inside.Seconds(), "through/in")
				b.ReportMetric(ms(insideCPU), "in-cpu-ms/op")
				b.ReportMetric(ms(throughCPU), "through-testbed-cpu-ms/op")
				b.ReportMetric(ms(programsCPU), "through-programs-cpu-ms/op")
			})
		}
	}
}

// cpuTimes returns the CPU time (user and system) of this process and of
// its children that ended.
func cpuTimes(b *testing.B) (self, children time.Duration) {
	var s, c syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &s); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c); err != nil {
		b.Fatal(err)
	}
	cpu := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return cpu(s), cpu(c)
}

// keptAliveRoots makes two projects of agent name's committed suites, which
// link the committed fixtures, prompts and cassettes: one runs the agent
// in-process, the other as bin agent name, kept alive as keep says.
func keptAliveRoots(b *testing.B, repo, bin, name, keep string) (in, out string) {
	b.Helper()
	in, out = b.TempDir(), b.TempDir()
	for _, root := range []string{in, out} {
		for _, dir := range []string{"scenarios", "cassettes"} {
			if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		linkTree(b, filepath.Join(repo, "fixtures"), filepath.Join(root, "fixtures"))
	}
	entries, err := os.ReadDir(filepath.Join(repo, "scenarios"))
	if err != nil {
		b.Fatal(err)
	}
	// The outside agent is named name-ext (a built-in's name is refused):
	// its fixtures are the built-in's.
	linkTree(b, filepath.Join(repo, "fixtures", name), filepath.Join(out, "fixtures", name+"-ext"))
	header := regexp.MustCompile(`(?m)^agent: (\S+)\n`)
	suites := 0
	for _, e := range entries {
		src := filepath.Join(repo, "scenarios", e.Name())
		suite, isSuite := strings.CutSuffix(e.Name(), ".yaml")
		if !isSuite {
			if e.IsDir() { // prompts, data files
				for _, root := range []string{in, out} {
					linkTree(b, src, filepath.Join(root, "scenarios", e.Name()))
				}
			}
			continue
		}
		text, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		m := header.FindSubmatch(text)
		if m == nil || string(m[1]) != name {
			continue
		}
		suites++
		how := fmt.Sprintf("  command: [%s, agent, %s, --root, %s]\n  all_turns: true\n  keep_alive: %s\n", bin, name, repo, keep)
		ext := bytes.Replace(text, m[0], []byte("\n"+agentBlock(name, how)), 1)
		for root, body := range map[string][]byte{in: text, out: ext} {
			if err := os.WriteFile(filepath.Join(root, "scenarios", e.Name()), body, 0o644); err != nil {
				b.Fatal(err)
			}
			linkTree(b, filepath.Join(repo, "cassettes", suite), filepath.Join(root, "cassettes", suite))
		}
	}
	if suites == 0 {
		b.Fatalf("no committed suite of agent %s", name)
	}
	return in, out
}

// replayRoot replays every suite under root, which must pass.
func replayRoot(b *testing.B, root string) {
	b.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"run", "--root", root, "--out", "", "--baseline", "", "--quiet"}, &stdout, &stderr); code != exitOK {
		lines := strings.Split(stdout.String()+stderr.String(), "\n")
		b.Fatalf("testbed run --root %s: exit %d\n%s", root, code, strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
}
