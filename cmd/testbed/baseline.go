package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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

Replays every suite (or one, with --suite) and writes the result, without
transcripts, as the blessed baseline that 'testbed run' and 'make test'
compare against. Bless on purpose, after a change you mean: the diff of
reports/baseline.json in a pull request is the review of what the change
did to the numbers.

With --suite, only that suite is replayed and its part of the baseline is
replaced; the other suites' parts are kept. A replay with failures is
refused, unless --known-failures records them in the baseline as known
failures (each scenario run with the checks it failed, each failed
threshold): 'testbed run' then lists them in its verdict without failing,
fails when one of them fails a check more or any other failure appears,
and says when one passes now. A stale, unreadable or errored scenario
run is never blessed.

Examples:
  testbed baseline bless
  testbed baseline bless --suite cba
  testbed baseline bless --suite cba --known-failures
  testbed baseline bless --out reports/baseline.json`

func cmdBaseline(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "bless" {
		return withCode(exitUsage, errors.New("usage: testbed baseline bless [--suite S] [--known-failures] [--out reports/baseline.json]"))
	}
	var sel selection
	var out string
	var known bool
	fs := newFlags("baseline bless", blessDoc, stderr)
	sel.register(fs, "root", "suite", "variant", "scenario", "prices", "quiet")
	fs.hide("variant", "scenario") // refused below, with why
	fs.StringVar(&out, "out", defaultBaseline, "where to write the blessed report")
	fs.BoolVar(&known, "known-failures", false, "record the replay's failures as known failures instead of refusing to bless")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if sel.variant != "" || sel.scenario != "" {
		return withCode(exitUsage, errors.New("bless a whole suite (--suite) or the whole project: a baseline of a variant or a scenario would drop the rest of its suite"))
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	path, err := underRoot(sel.root, out, "--out")
	if err != nil {
		return err
	}
	var prior *report.Report
	if sel.suite != "" {
		// A part is merged into the baseline there is.
		b := readBaseline(path)
		if b.err != nil {
			return b.err
		}
		prior = b.rep
	}
	agents, stop := running(sel.root, suites)
	defer stop()
	prices, err := sel.priceTable()
	if err != nil {
		return err
	}
	rep, err := runner.Run(ctx, suites, runner.Options{Prices: prices, Mode: cassette.ModeReplay, Root: sel.root, Agents: agents, Progress: progress(sel, stderr)})
	if err != nil {
		return withCode(exitInternal, err)
	}
	failing, never := report.Failing(rep)
	rerun := blessCommand(sel, out)
	switch {
	case len(never) > 0 || rep.Replay != nil && len(rep.Replay.UnusedCassettes) > 0 || !passedApart(rep):
		if rep.Replay != nil {
			for _, c := range rep.Replay.UnusedCassettes {
				never = append(never, c+" belongs to no scenario")
			}
		}
		never = append(never, staleApart(rep)...)
		// A stale, missing or unreadable cassette is exit 3 (4 when it
		// cannot be read), as in testbed run; an error or an unused
		// cassette alone, 1.
		code := exitFailed
		var ee *exitError
		if errors.As(verdict(rep), &ee) && (ee.code == exitStale || ee.code == exitInternal) {
			code = ee.code
		}
		return withCode(code, fmt.Errorf("the replay cannot be blessed, not even as known failures: %s; re-record or re-grade each stale run as it says, fix the errors, or give a threshold not evaluated something to measure (or drop it from the suite), then run: %s",
			strings.Join(never, "; "), rerun))
	case len(failing) > 0 && !known:
		names := make([]string, len(failing))
		for i, k := range failing {
			names[i] = k.String()
		}
		return withCode(exitFailed, fmt.Errorf("the replay does not pass (%s); fix it before blessing it, or carry the failures as known failures with: %s --known-failures",
			strings.Join(names, ", "), rerun))
	}
	blessed := rep.Blessed()
	blessed.KnownFailures = failing
	if prior != nil {
		blessed = mergeBaseline(prior, blessed)
	}
	if err := saveFile(path, blessed, report.WriteJSON); err != nil {
		return withCode(exitInternal, err)
	}
	what := fmt.Sprintf("%d scenario runs", rep.Runs())
	if sel.suite != "" {
		what += " of suite " + sel.suite + " (the other suites' part kept)"
	}
	fmt.Fprintf(stdout, "blessed %s as %s\n", what, out)
	if len(failing) > 0 {
		fmt.Fprintf(stdout, "known failures (%d), listed in every verdict until they pass:\n", len(failing))
		for _, k := range failing {
			fmt.Fprintf(stdout, "  · %s\n", k)
		}
	}
	return nil
}

// passedApart reports whether the suites of rep that do not gate have no
// stale or unreadable cassette.
func passedApart(rep *report.Report) bool { return len(staleApart(rep)) == 0 }

// staleApart names the stale or unreadable scenario runs of the suites of
// rep that do not gate (Failing names those of the others).
func staleApart(rep *report.Report) []string {
	var out []string
	for _, s := range rep.Suites {
		if !s.NotGating {
			continue
		}
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				if sc.Verdict == report.VerdictStale || sc.Unreadable {
					fix := ""
					if sc.Fix != "" {
						fix = "; " + sc.Fix
					}
					out = append(out, fmt.Sprintf("%s/%s/%s is %s (not gating, but stale is never blessed%s)", s.Name, v.Name, sc.ID, sc.Verdict, fix))
				}
			}
		}
	}
	return out
}

// mergeBaseline is prior with the suites of part, and their known
// failures, in place of its own (a suite prior lacks is added at the end).
func mergeBaseline(prior, part *report.Report) *report.Report {
	out := *prior
	out.Suites = slices.Clone(prior.Suites)
	out.KnownFailures = nil
	replaced := map[string]bool{}
	for _, s := range part.Suites {
		replaced[s.Name] = true
		if i := slices.IndexFunc(out.Suites, func(o report.Suite) bool { return o.Name == s.Name }); i >= 0 {
			out.Suites[i] = s
		} else {
			out.Suites = append(out.Suites, s)
		}
	}
	for _, k := range prior.KnownFailures {
		if !replaced[k.Suite] {
			out.KnownFailures = append(out.KnownFailures, k)
		}
	}
	out.KnownFailures = append(out.KnownFailures, part.KnownFailures...)
	return &out
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

// baselineFile is a blessed report as read from path: the report, or why
// there is none.
type baselineFile struct {
	path    string
	rep     *report.Report
	missing bool
	err     error  // exit-coded
	bless   string // the command that blesses it (blessCommand); "" for the plain one
}

// blessCommand is the command that blesses what a run of sel gated against
// the baseline its --baseline flag named: with the run's project root,
// suite, price table and that file, so that it blesses what was gated
// where it was gated (the plain "testbed baseline bless" would bless the
// project in the working folder, at testbed's own prices).
func blessCommand(sel selection, flag string) string {
	cmd := "testbed baseline bless"
	if sel.suite != "" {
		cmd += " --suite " + sel.suite
	}
	if sel.prices != "" {
		cmd += " --prices " + sel.prices
	}
	if flag != defaultBaseline {
		cmd += " --out " + flag
	}
	if sel.root != "" && filepath.Clean(sel.root) != "." {
		cmd += " --root " + sel.root
	}
	return cmd
}

// blessing is the command that blesses b.
func (b baselineFile) blessing() string {
	if b.bless == "" {
		return "testbed baseline bless"
	}
	return b.bless
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

// check compares rep with b: what the gate found, for the report, and,
// when it fails the run, why (exit-coded). Notes that do not fail it go to
// stderr.
func (b baselineFile) check(rep *report.Report, suites []*scenario.Suite, stderr io.Writer) (*report.Gate, error) {
	g := &report.Gate{Baseline: b.path}
	fail := func(summary string, err error) (*report.Gate, error) {
		g.Summary, g.Failed = summary, true
		return g, err
	}
	if b.missing && inCI() {
		return fail("the gate could not run: no blessed baseline", withCode(exitFailed, fmt.Errorf("no blessed baseline at %s, so the regression gate cannot run; in CI (CI=%s) that fails: "+
			"create it with %s and commit it, or pass --no-baseline", b.path, os.Getenv("CI"), b.blessing())))
	}
	if b.missing {
		fmt.Fprintf(stderr, "no blessed baseline at %s: the regression gate did not run; create one with: %s\n", b.path, b.blessing())
		g.Summary = "the gate did not run (no blessed baseline)"
		return g, nil
	}
	if b.err != nil {
		return fail("the gate could not read its baseline", b.err)
	}
	gated := gates(suites)
	if !gatesAny(rep, gated) {
		g.Summary = "the gate had nothing to compare (no gating suite ran)"
		return g, nil
	}
	g.Compared = true
	g.Regressions = report.Regressions(b.rep, rep, gated)
	missing := report.Uncompared(b.rep, rep, gated)
	if len(missing) > 0 {
		them := "it"
		if len(missing) > 1 {
			them = "them"
		}
		why := fmt.Sprintf("%s has no %s, so the gate did not compare %s; bless %s with: %s (and commit %s)",
			b.path, strings.Join(missing, ", "), them, them, b.blessing(), b.path)
		if inCI() && len(g.Regressions) == 0 {
			return fail(fmt.Sprintf("the gate could not compare %s: not in %s", strings.Join(missing, ", "), b.path),
				withCode(exitFailed, fmt.Errorf("%s; in CI (CI=%s) that fails, or pass --no-baseline", why, os.Getenv("CI"))))
		}
		fmt.Fprintln(stderr, why)
	}
	if len(g.Regressions) == 0 {
		g.Summary = "the gate found no regression against " + b.path
		if len(missing) > 0 {
			g.Summary += fmt.Sprintf(" but did not compare %s (not in it)", strings.Join(missing, ", "))
		}
		return g, nil
	}
	summary := fmt.Sprintf("the gate found %d regressions against %s", len(g.Regressions), b.path)
	if why, ok := unevaluated(g.Regressions); ok {
		// Blessing would not measure them: say what would.
		return fail(summary, withCode(exitFailed, fmt.Errorf("%d gate metrics against %s could not be evaluated (%s); see the table", len(g.Regressions), b.path, why)))
	}
	if n := unblessable(g.Regressions); n > 0 {
		// A stale or errored run, or a metric it left unmeasured, is
		// fixed, not blessed (bless refuses it): say so first.
		return fail(summary, withCode(exitFailed, fmt.Errorf("%d regressions against %s, %d of them from runs that are stale or errored, or metrics they left unmeasured: fix those runs first, as each failure above says; then, if what is left is intended, run: %s",
			len(g.Regressions), b.path, n, b.blessing())))
	}
	return fail(summary, withCode(exitFailed, fmt.Errorf("%d regressions against %s; if they are intended, run: %s", len(g.Regressions), b.path, b.blessing())))
}

// unblessable counts the regressions that blessing cannot take: a
// verdict gone stale or errored, or a metric not evaluated.
func unblessable(regs []report.Regression) int {
	n := 0
	for _, r := range regs {
		if strings.HasPrefix(r.Detail, "not evaluated: ") ||
			r.Metric == "verdict" && (r.Detail == "pass → "+report.VerdictStale || r.Detail == "pass → "+report.VerdictError) {
			n++
		}
	}
	return n
}

// unevaluated reports whether every regression is a metric the gate could
// not evaluate, and the first's reason.
func unevaluated(regs []report.Regression) (string, bool) {
	for _, r := range regs {
		if !strings.HasPrefix(r.Detail, "not evaluated: ") {
			return "", false
		}
	}
	return strings.TrimPrefix(regs[0].Detail, "not evaluated: "), len(regs) > 0
}

// writeRegressions prints the table of the regressions g found, if any.
func writeRegressions(w io.Writer, g *report.Gate) error {
	if g == nil || len(g.Regressions) == 0 {
		return nil
	}
	if err := report.WriteRegressionsText(w, g.Regressions); err != nil {
		return withCode(exitInternal, err)
	}
	return nil
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
