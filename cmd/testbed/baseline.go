package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"

	"github.com/agentreplay/testbed/harness/files"
)

// defaultBaseline is where the blessed report lives.
const defaultBaseline = "reports/baseline.json"

const blessDoc = `Usage: testbed baseline bless [flags]

Replays every suite and writes the result, without transcripts, as the
blessed baseline that 'testbed run' and 'make test' compare against. Bless
on purpose, after a change you mean: the diff of reports/baseline.json in a
pull request is the review of what the change did to the numbers.

Examples:
  testbed baseline bless
  testbed baseline bless --out reports/baseline.json`

func cmdBaseline(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "bless" {
		return withCode(exitUsage, errors.New("usage: testbed baseline bless [--out reports/baseline.json]"))
	}
	var sel selection
	var out string
	fs := newFlags("baseline bless", blessDoc, stderr)
	sel.register(fs)
	fs.StringVar(&out, "out", defaultBaseline, "where to write the blessed report")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if sel.suite != "" || sel.variant != "" || sel.scenario != "" {
		return withCode(exitUsage, errors.New("bless the whole project: a baseline of a part would drop the rest"))
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	agents, stop := running(sel.root, suites)
	defer stop()
	rep, err := runner.Run(ctx, suites, runner.Options{Mode: cassette.ModeReplay, Root: sel.root, Agents: agents, Progress: progress(sel, stderr)})
	if err != nil {
		return withCode(exitInternal, err)
	}
	if !rep.Passed() {
		return withCode(exitFailed, errors.New("the replay does not pass; fix it before blessing it"))
	}
	if err := saveFile(underRoot(sel.root, out), rep.Blessed(), report.WriteJSON); err != nil {
		return withCode(exitInternal, err)
	}
	fmt.Fprintf(stdout, "blessed %d scenario runs as %s\n", rep.Runs(), out)
	return nil
}

// gates returns each suite's gate, or the default one.
func gates(suites []*scenario.Suite) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, s := range suites {
		if s.NotGating {
			continue // gating: false: not held to the baseline
		}
		out[s.Name] = s.Gate
		if s.Gate == nil {
			out[s.Name] = scenario.DefaultGate()
		}
	}
	return out
}

// checkBaseline compares rep with the blessed report at path. A missing
// baseline is noted, not an error: a new project has none yet.
func checkBaseline(path string, rep *report.Report, suites []*scenario.Suite, stdout, stderr io.Writer) error {
	_, err := readBaseline(path).check(rep, suites, stdout, stderr)
	return err
}

// baselineFile is a blessed report as read from path: the report, or why
// there is none.
type baselineFile struct {
	path    string
	rep     *report.Report
	missing bool
	err     error // exit-coded
}

// readBaseline reads the blessed report at path; testbed run reads it
// while the scenarios run.
func readBaseline(path string) baselineFile {
	b := baselineFile{path: path}
	data, err := files.ReadRegular(path, files.MaxBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		b.missing = true
	case err != nil:
		b.err = withCode(exitInternal, err)
	default:
		if b.rep, err = report.ReadJSON(bytes.NewReader(data)); err != nil {
			b.err = withCode(exitUsage, fmt.Errorf("%s: %w", path, err))
		}
	}
	return b
}

// inCI reports whether testbed runs under CI (see ciSet).
func inCI() bool { return ciSet(os.Getenv("CI")) }

// ciSet reports whether the CI variable's value v says CI, as CI services
// set it: to true, 1 or anything but empty, false and 0.
func ciSet(v string) bool {
	v = strings.ToLower(v)
	return v != "" && v != "false" && v != "0"
}

// check compares rep with b, printing the regressions; they are an error.
func (b baselineFile) check(rep *report.Report, suites []*scenario.Suite, stdout, stderr io.Writer) (gateResult, error) {
	if b.missing && inCI() {
		return gateResult{line: "the gate could not run: no blessed baseline"}, withCode(exitFailed, fmt.Errorf("no blessed baseline at %s, so the regression gate cannot run; in CI (CI=%s) that fails: "+
			"create it with testbed baseline bless and commit it, or pass --no-baseline", b.path, os.Getenv("CI")))
	}
	if b.missing {
		fmt.Fprintf(stderr, "no blessed baseline at %s: the regression gate did not run; create one with: testbed baseline bless\n", b.path)
		return gateResult{line: "the gate did not run (no blessed baseline)"}, nil
	}
	if b.err != nil {
		return gateResult{line: "the gate could not read its baseline"}, b.err
	}
	gated := gates(suites)
	if !gatesAny(rep, gated) {
		return gateResult{line: "the gate had nothing to compare (no gating suite ran)"}, nil
	}
	regs := report.Regressions(b.rep, rep, gated)
	missing := report.Uncompared(b.rep, rep, gated)
	if len(missing) > 0 {
		them := "it"
		if len(missing) > 1 {
			them = "them"
		}
		why := fmt.Sprintf("%s has no %s, so the gate did not compare %s; bless %s with: testbed baseline bless (and commit %s)",
			b.path, strings.Join(missing, ", "), them, them, b.path)
		if inCI() && len(regs) == 0 {
			return gateResult{line: fmt.Sprintf("the gate could not compare %s: not in %s", strings.Join(missing, ", "), b.path), ran: true},
				withCode(exitFailed, fmt.Errorf("%s; in CI (CI=%s) that fails, or pass --no-baseline", why, os.Getenv("CI")))
		}
		fmt.Fprintln(stderr, why)
	}
	if len(regs) == 0 {
		line := "the gate found no regression against " + b.path
		if len(missing) > 0 {
			line += fmt.Sprintf(" but did not compare %s (not in it)", strings.Join(missing, ", "))
		}
		return gateResult{line: line, ran: true}, nil
	}
	if err := report.WriteRegressionsText(stdout, regs); err != nil {
		return gateResult{}, withCode(exitInternal, err)
	}
	return gateResult{line: fmt.Sprintf("the gate found %d regressions against %s", len(regs), b.path), ran: true, regs: regs},
		withCode(exitFailed, fmt.Errorf("%d regressions against %s; if they are intended, run: testbed baseline bless", len(regs), b.path))
}

// gatesAny reports whether rep ran a scenario of a suite in gated.
func gatesAny(rep *report.Report, gated map[string]map[string]float64) bool {
	for _, s := range rep.Suites {
		if _, ok := gated[s.Name]; !ok {
			continue
		}
		for _, v := range s.Variants {
			if len(v.Scenarios) > 0 {
				return true
			}
		}
	}
	return false
}

// gateResult is what the regression gate found: a line for the verdict,
// whether it compared anything, and the regressions.
type gateResult struct {
	line string
	ran  bool
	regs []report.Regression
}
