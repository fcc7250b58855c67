package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agnivade/levenshtein"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"

	"github.com/agentreplay/testbed/harness/files"
)

// parse parses the flags of a command that takes no positional arguments.
func parse(fs *flags, args []string) error {
	extra, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(extra) > 0 {
		return withCode(exitUsage, fmt.Errorf("unexpected argument %q; run 'testbed %s --help'", extra[0], fs.Name()))
	}
	return nil
}

// parseError is the exit for a flag parse error: 0 for --help, which
// prints the help; 2 for the rest, said in one line that names the flag
// meant when one is spelt nearly so.
func (fs *flags) parseError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		fs.help()
		return withCode(exitOK, errSilent)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := nearest(name, names); near != "" {
			msg += "; did you mean --" + near + "?"
		}
	}
	return withCode(exitUsage, fmt.Errorf("%s (run 'testbed %s --help')", msg, fs.Name()))
}

// nearest is the one of names closest to s in edit distance, if it is
// close enough to be a misspelling (two edits, or a third of its letters
// for a long name), or "".
func nearest(s string, names []string) string {
	best, dist := "", max(2, len(s)/3)+1
	for _, n := range names {
		if d := levenshtein.ComputeDistance(s, n); d < dist {
			best, dist = n, d
		}
	}
	return best
}

// loadSuites loads scenarios/*.yaml, keeping the selected suite.
func loadSuites(sel selection) ([]*scenario.Suite, error) {
	dir := filepath.Join(sel.root, "scenarios")
	// A variant config the agent refuses is a problem in the suite file too,
	// reported with the file's others.
	// The agents built share one cache, so that a knowledge base is built
	// once for every suite and variant of its agent.
	cache := &agents.Cache{}
	defer cache.Close()
	configs := func(s *scenario.Suite) error {
		one := []*scenario.Suite{s}
		return lint.Configs(sel.root, one, registry(sel.root, one, nil), cache)
	}
	suites, err := scenario.LoadDir(dir, scenario.LoadOptions{Agents: all.Names(), Metrics: check.MetricNames(), Faults: runner.FaultKinds(), JQ: check.CompileJQ, Check: configs, Root: sel.root})
	if err != nil {
		if errors.Is(err, scenario.ErrInvalidSuite) {
			return nil, withCode(exitUsage, err)
		}
		return nil, withCode(exitInternal, err)
	}
	if sel.suite != "" {
		var picked []*scenario.Suite
		for _, s := range suites {
			if s.Name == sel.suite {
				picked = append(picked, s)
			}
		}
		if len(picked) == 0 {
			return nil, withCode(exitUsage, fmt.Errorf("no suite %q in %s", sel.suite, dir))
		}
		suites = picked
	}
	if sel.variant != "" && !anySuite(suites, func(s *scenario.Suite) bool {
		return slices.ContainsFunc(s.Variants, func(v scenario.Variant) bool { return v.Name == sel.variant })
	}) {
		return nil, withCode(exitUsage, fmt.Errorf("no variant %q in the selected suites (see: testbed list)", sel.variant))
	}
	if sel.scenario != "" && !anySuite(suites, func(s *scenario.Suite) bool {
		return slices.ContainsFunc(s.Scenarios, func(sc scenario.Scenario) bool { return sc.ID == sel.scenario })
	}) {
		return nil, withCode(exitUsage, fmt.Errorf("no scenario %q in the selected suites (see: testbed list)", sel.scenario))
	}
	return suites, nil
}

func anySuite(suites []*scenario.Suite, ok func(*scenario.Suite) bool) bool {
	return slices.ContainsFunc(suites, ok)
}

const runDoc = `Usage: testbed run [flags]

Replays suites offline against the committed cassettes, checks every scenario
and threshold, prints a table per suite and variant and a summary, and writes
reports/latest.md (the verdict, a line per suite and variant and the
failures, sized for a pull-request comment), reports/latest-full.md (every
table) and reports/latest.json.

Examples:
  testbed run
  testbed run --suite odbchat --variant single-pass
  testbed run --suite odbchat --scenario ac1-taiwan-sst --json
  testbed run -j 1
  testbed run --junit reports/testbed-junit.xml
  testbed run --otlp-file reports/traces.jsonl --otlp http://localhost:4318`

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sel selection
	var out, junit string
	fs := newFlags("run", runDoc, stderr)
	sel.register(fs)
	fs.StringVar(&out, "out", "reports", "folder for latest.md, latest-full.md and latest.json, under --root unless absolute (empty: write none)")
	fs.StringVar(&junit, "junit", "", "also write the results as JUnit XML to this file")
	var baseline, shard string
	var noBaseline bool
	fs.StringVar(&baseline, "baseline", defaultBaseline, "the blessed report to compare with (empty: none)")
	fs.BoolVar(&noBaseline, "no-baseline", false, "run without the baseline gate (in CI, a missing baseline fails the run otherwise)")
	fs.StringVar(&shard, "shard", "", "run only shard i of n (i/n), for parallel CI runners; join them with 'testbed report merge'")
	var prompts bool
	fs.BoolVar(&prompts, "prompts", false, "keep what each model call was sent (messages, system prompt, tool definitions) in latest.json, for the HTML report")
	var parallel int
	fs.IntVar(&parallel, "parallel", 0, "run at most this many scenario runs at a time, for built-in and outside agents alike (0: one per core, GOMAXPROCS), and keep as many programs of an agent kept alive for all its runs (keep_alive: agent); the reports are the same at any value unless such a program keeps state from one run into the next")
	fs.IntVar(&parallel, "j", 0, "the same as --parallel")
	var traces otlpFlags
	traces.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if parallel < 0 {
		return withCode(exitUsage, fmt.Errorf("--parallel %d: want a number of scenario runs at a time, 1 or more (0: one per core)", parallel))
	}
	stdout = coloured(sel, stdout)
	if out != "" {
		var err error
		if out, err = underRoot(sel.root, out, "--out"); err != nil {
			return err
		}
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	i, n, err := parseShard(shard)
	if err != nil {
		return err
	}
	// The blessed report is read while the scenarios run; a shard's
	// summaries are partial, so only the merged report is gated, but a
	// shard's verdict holds the baseline's known failures too.
	if noBaseline {
		baseline = ""
	}
	var blessed chan baselineFile
	if baseline != "" {
		bless := blessCommand(sel, baseline)
		if baseline, err = underRoot(sel.root, baseline, "--baseline"); err != nil {
			return err
		}
		blessed = make(chan baselineFile, 1)
		go func() {
			b := readBaseline(baseline)
			b.bless = bless
			blessed <- b
		}()
	}
	start := time.Now()
	agents, stop := running(sel.root, suites)
	defer stop()
	prices, err := sel.priceTable()
	if err != nil {
		return err
	}
	rep, err := runner.Run(ctx, suites, runner.Options{Prices: prices,
		Mode: cassette.ModeReplay, Root: sel.root, Agents: agents,
		Variant: sel.variant, Scenario: sel.scenario, Progress: progress(sel, stderr),
		Shard: i, Shards: n, Timeout: sel.timeout, Sent: prompts, Parallel: parallel,
	})
	if err != nil && ctx.Err() != nil {
		// Interrupted: say what was left as it was, not "context canceled".
		kept := "no report was written"
		if out != "" {
			kept += fmt.Sprintf(" (%s keeps the last complete run's)", out)
		}
		return fmt.Errorf("the replay stopped before its scenario runs ended and its agents were stopped; %s", kept)
	}
	if err != nil {
		return withCode(exitInternal, err)
	}
	if rep.Shard != nil && rep.Shard.Pairs == 0 {
		return withCode(exitUsage, fmt.Errorf("--shard %s would judge nothing: the run has %s, so only shards 1 to %d of %d hold any; split it into at most %d shards",
			shard, pairs(rep.Shard.Total), rep.Shard.Total, n, rep.Shard.Total))
	}
	wall := time.Since(start)
	// The baseline's known failures are part of every verdict, and the
	// gate runs whatever the scenarios did (its word is never missing):
	// both before anything is written, so that every file states the
	// verdict the exit states. A shard's summaries are partial: only the
	// merged report is gated.
	var gateErr error
	if blessed != nil {
		base := <-blessed
		if base.rep != nil {
			rep.ApplyKnown(base.rep.KnownFailures)
		}
		if n <= 1 {
			rep.Gate, gateErr = base.check(rep, suites, stderr)
		}
	}
	// The files are written while the tables are printed: the renderers
	// only read the report, and the JSON one takes longest.
	saved := make(chan error, 1)
	go func() {
		if out == "" {
			saved <- nil
			return
		}
		saved <- saveReports(rep, out)
	}()
	printed := writeReport(rep, sel, stdout)
	if err := cmp.Or(printed, <-saved); err != nil {
		return withCode(exitInternal, err)
	}
	if !sel.json {
		n := rep.Runs()
		fmt.Fprintf(stdout, "replayed %d scenario runs in %s (%.0f per second)\n", n, wall.Round(time.Millisecond), float64(n)/wall.Seconds())
		writeProcessing(stdout, rep, suites)
	}
	runErr := verdict(rep)
	if !sel.tables {
		// WriteText has the regressions; stdout holds the JSON report alone.
		table := stdout
		if sel.json {
			table = stderr
		}
		if err := writeRegressions(table, rep.Gate); err != nil {
			return err
		}
	}
	if junit != "" {
		run := report.JUnitRun{Wall: time.Since(start)}
		if err := saveFile(junit, rep, func(w io.Writer, r *report.Report) error { return report.WriteJUnitRun(w, r, run) }); err != nil {
			return withCode(exitInternal, err)
		}
	}
	if err := traces.export(ctx, rep, suites); err != nil {
		return withCode(exitInternal, err)
	}
	if !sel.json {
		// The last line states the verdict of both, as the exit does.
		fmt.Fprintln(stdout, rep.Verdict())
	}
	return both(runErr, gateErr)
}

// both is the run's error and the gate's: the exit is the first's, the
// message says each, so that a run that failed does not hide what the
// gate found.
func both(runErr, gateErr error) error {
	var re, ge *exitError
	if errors.As(runErr, &re) && errors.As(gateErr, &ge) {
		return withCode(re.code, fmt.Errorf("%w\n%w", re.err, ge.err))
	}
	return cmp.Or(runErr, gateErr)
}

// writeProcessing prints, per variant of each suite whose agent runs
// outside testbed, the wall time the agent spent on its own (outside its
// HTTP calls, process start included): beside the replayed latency, which
// never includes it. It varies between runs, so no report file holds it.
func writeProcessing(w io.Writer, rep *report.Report, suites []*scenario.Suite) {
	for i, s := range rep.Suites {
		if i >= len(suites) || suites[i].External == nil {
			continue
		}
		for _, v := range s.Variants {
			var ds []time.Duration
			for _, sc := range v.Scenarios {
				ds = append(ds, sc.Processing)
			}
			if len(ds) == 0 {
				continue
			}
			fmt.Fprintf(w, "%s/%s: the agent's own processing, wall clock, not in its latency: p50 %s, p95 %s over %d scenario runs\n",
				s.Name, v.Name, rank(ds, 0.5).Round(time.Millisecond), rank(ds, 0.95).Round(time.Millisecond), len(ds))
			var start, proxy, cassette, agent []time.Duration
			for _, sc := range v.Scenarios {
				if t := sc.Wall; t != nil {
					start, proxy, cassette, agent = append(start, t.Start), append(proxy, t.Proxy), append(cassette, t.Cassette), append(agent, t.Agent)
				}
			}
			if len(start) == 0 {
				continue
			}
			p50 := func(ds []time.Duration) string { return rank(ds, 0.5).Round(100 * time.Microsecond).String() }
			fmt.Fprintf(w, "%s/%s: where the wall time of a run went, p50 of each: start %s, proxy %s, cassette %s, agent %s (total p50 %s)\n",
				s.Name, v.Name, p50(start), p50(proxy), p50(cassette), p50(agent), p50(totals(v.Scenarios)))
		}
	}
}

// rank is the nearest-rank percentile p of ds (sorted in place).
func rank(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[max(0, int(math.Ceil(p*float64(len(ds))))-1)]
}

// totals is each run's wall time, its parts summed, for the runs that have them.
func totals(scs []report.Scenario) []time.Duration {
	var out []time.Duration
	for _, sc := range scs {
		if t := sc.Wall; t != nil {
			out = append(out, t.Start+t.Proxy+t.Cassette+t.Agent)
		}
	}
	return out
}

// underRoot is path (flag names it) as given when absolute: where the user
// said. A relative one is under root, and must stay under it once symlinks
// are followed (a reports/ that is a symlink out of the project would be
// written through, a baseline behind one read from outside); one that does
// not is exit 2, saying how to fix it.
func underRoot(root, path, flag string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	full := filepath.Join(root, path)
	var outside *files.OutsideError
	if _, err := files.Inside(root, full); errors.As(err, &outside) {
		return "", withCode(exitUsage, fmt.Errorf("%s; or give an absolute %s", outside.Refusal(flag+" "+path), flag))
	}
	return full, nil
}

// writeReport prints rep as the selection asks: JSON, every table, or (by
// default) one line per suite and variant, the failures and the verdict.
func writeReport(rep *report.Report, sel selection, w io.Writer) error {
	switch {
	case sel.json:
		return report.WriteJSON(w, rep)
	case sel.tables:
		return report.WriteText(w, rep)
	}
	return report.WriteBrief(w, rep)
}

// pairs is n scenario × variant pairs, in words.
func pairs(n int) string {
	if n == 1 {
		return "1 scenario × variant pair"
	}
	return fmt.Sprintf("%d scenario × variant pairs", n)
}

// parseShard reads "i/n"; "" is the whole run (0, 0).
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	var i, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n || fmt.Sprintf("%d/%d", i, n) != s {
		return 0, 0, withCode(exitUsage, fmt.Errorf("--shard %q: want i/n with 1 ≤ i ≤ n, such as 2/4", s))
	}
	return i, n, nil
}

// saveReports writes the report's files (report.Latest) into dir as one
// set: runs finishing at once leave the files from the same run.
func saveReports(rep *report.Report, dir string) error {
	return files.WriteSet(dir, "latest", report.Latest(rep))
}

// saveFile renders rep into path atomically, mode 0644.
func saveFile(path string, rep *report.Report, write func(io.Writer, *report.Report) error) error {
	return files.WriteAtomic(path, func(w io.Writer) error { return write(w, rep) })
}

// verdict maps a report to an exit: nothing judged is bad usage; an
// unreadable cassette beats stale, which beats failed. A suite with gating:
// false fails the run only by its stale, missing or unreadable cassettes.
func verdict(rep *report.Report) error {
	stale, failed, unreadable := 0, 0, 0
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				if sc.Unreadable {
					unreadable++
				}
				switch {
				case sc.Verdict == report.VerdictStale:
					// A stale or missing cassette is never a finding kept
					// on purpose: gating: false does not hide it.
					stale++
				case sc.Verdict != report.VerdictPass && !s.NotGating && !sc.Known:
					// A known failure of the baseline is listed in the
					// verdict line, not failed.
					failed++
				}
			}
			if s.NotGating {
				// gating: false: its failures and thresholds are reported,
				// counted apart in the verdict line, never failing the run.
				continue
			}
			for _, t := range v.Thresholds {
				if !t.Pass && !t.Known {
					failed++
				}
			}
		}
	}
	unused := 0
	if rep.Replay != nil {
		unused = len(rep.Replay.UnusedCassettes)
	}
	switch {
	case rep.Runs() == 0:
		return withCode(exitUsage, errors.New("nothing was judged: the selection holds no scenario run; see testbed list"))
	case unreadable > 0:
		return withCode(exitInternal, fmt.Errorf("%d cassettes could not be read (see the errors above); restore them from git or re-record them", unreadable))
	case unused > 0 && stale == 0 && failed == 0:
		return withCode(exitFailed, fmt.Errorf("%d cassettes belong to no scenario: %v", unused, rep.Replay.UnusedCassettes))
	case stale > 0:
		return withCode(exitStale, fmt.Errorf("%d scenario runs have stale or missing cassettes; re-record or re-grade them as each error above says", stale))
	case failed > 0:
		return withCode(exitFailed, fmt.Errorf("%d scenario runs or thresholds failed", failed))
	}
	return nil
}
