package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
)

const mergeDoc = `Usage: testbed report merge SHARD.json… [flags]

Joins the JSON reports of the shards of one run ('testbed run --shard i/n
--json') into the report of the whole run, identical to an unsharded run,
then checks it as 'testbed run' does: scenarios, thresholds, unused
cassettes and the blessed baseline. The suites are read from --root.

Examples:
  testbed run --shard 1/2 --json > s1.json; testbed run --shard 2/2 --json > s2.json
  testbed report merge s1.json s2.json --out reports/latest.json
  testbed report merge s1.json s2.json --out reports/latest.json --junit reports/junit.xml`

// cmdMerge is 'testbed report merge'.
func cmdMerge(args []string, stdout, stderr io.Writer) error {
	var sel selection
	var out, baseline string
	fs := newFlags("report merge", mergeDoc, stderr)
	sel.register(fs, "root", "suite")
	fs.StringVar(&out, "out", "", "write the merged JSON here instead of stdout")
	var junit string
	fs.StringVar(&junit, "junit", "", "also write the merged run as JUnit XML to this file, the gate's regressions among its failures")
	fs.StringVar(&baseline, "baseline", defaultBaseline, "the blessed report to compare with (empty: none)")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return withCode(exitUsage, errors.New("give the shard reports to merge"))
	}
	var parts []*report.Report
	for _, f := range files {
		r, err := readReport(f)
		if err != nil {
			return err
		}
		parts = append(parts, r)
	}
	if err := completeShards(files, parts); err != nil {
		return withCode(exitUsage, err)
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	rep, err := runner.Merge(parts, suites, runner.Options{Mode: cassette.ModeReplay, Root: sel.root, Agents: registry(sel.root, suites, nil)})
	if err != nil {
		return withCode(exitUsage, err)
	}
	var gateErr error
	if baseline != "" {
		path, err := underRoot(sel.root, baseline, "--baseline")
		if err != nil {
			return err
		}
		base := readBaseline(path)
		base.bless = blessCommand(sel, baseline)
		if base.rep != nil {
			rep.ApplyKnown(base.rep.KnownFailures)
		}
		// Gated before the merged report is written, so that it holds the
		// gate's word too.
		rep.Gate, gateErr = base.check(rep, suites, stderr)
	}
	if out != "" {
		if err := saveFile(out, rep, report.WriteJSON); err != nil {
			return withCode(exitInternal, err)
		}
	} else if err := report.WriteJSON(stdout, rep); err != nil {
		return withCode(exitInternal, err)
	}
	if junit != "" {
		if err := saveFile(junit, rep, report.WriteJUnit); err != nil {
			return withCode(exitInternal, err)
		}
	}
	if err := writeRegressions(stderr, rep.Gate); err != nil {
		return err
	}
	return both(verdict(rep), gateErr)
}

// completeShards checks that parts (read from files) are every shard of one
// run, each once: a merge of some shards would gate a partial run as if it
// were whole.
func completeShards(files []string, parts []*report.Report) error {
	var problems []string
	seen := map[int]string{}
	var first *report.Shard
	for i, p := range parts {
		sh := p.Shard
		switch {
		case sh == nil:
			problems = append(problems, fmt.Sprintf("%s is not a shard report (write one with: testbed run --shard i/n --json)", files[i]))
			continue
		case first == nil:
			first = sh
		case sh.Count != first.Count || sh.Total != first.Total:
			problems = append(problems, fmt.Sprintf("%s is shard %d/%d of a run of %d pairs, but %s is shard %d/%d of a run of %d: they are not shards of one run",
				files[i], sh.Index, sh.Count, sh.Total, files[0], first.Index, first.Count, first.Total))
			continue
		}
		if other, dup := seen[sh.Index]; dup {
			problems = append(problems, fmt.Sprintf("shard %d/%d is given twice: %s and %s", sh.Index, sh.Count, other, files[i]))
		}
		seen[sh.Index] = files[i]
	}
	if first != nil && len(problems) == 0 {
		var missing []string
		pairs := 0
		for i := 1; i <= first.Count; i++ {
			if _, ok := seen[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, first.Count))
			}
		}
		for _, p := range parts {
			pairs += p.Shard.Pairs
		}
		switch {
		case len(missing) > 0:
			problems = append(problems, fmt.Sprintf("shards %s are missing: the merge would cover %d of %d scenario × variant pairs; give every shard of the run",
				strings.Join(missing, ", "), pairs, first.Total))
		case pairs != first.Total:
			problems = append(problems, fmt.Sprintf("the shards cover %d of %d scenario × variant pairs", pairs, first.Total))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// parseWithFiles parses flags that may come before, between or after
// positional arguments, and returns the positionals in order. Everything
// after "--" is positional.
func parseWithFiles(fs *flags, args []string) ([]string, error) {
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, fs.parseError(err)
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(files, rest...), nil
		}
		if len(rest) == 0 {
			break
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
	return files, nil
}
