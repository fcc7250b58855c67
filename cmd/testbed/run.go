package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
)

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
