package main

import (
	"errors"
	"flag"
	"io"

	"github.com/agentreplay/testbed/agents/all"
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
  testbed report merge s1.json s2.json --out reports/latest.json`

// cmdMerge is 'testbed report merge'.
func cmdMerge(args []string, stdout, stderr io.Writer) error {
	var sel selection
	var out, baseline string
	fs := newFlags("report merge", mergeDoc, stderr)
	sel.register(fs)
	fs.StringVar(&out, "out", "", "write the merged JSON here instead of stdout")
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
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	rep, err := runner.Merge(parts, suites, runner.Options{Mode: cassette.ModeReplay, Root: sel.root, Agents: all.Registry()})
	if err != nil {
		return withCode(exitUsage, err)
	}
	if out != "" {
		if err := saveFile(out, rep, report.WriteJSON); err != nil {
			return withCode(exitInternal, err)
		}
	} else if err := report.WriteJSON(stdout, rep); err != nil {
		return withCode(exitInternal, err)
	}
	if err := verdict(rep); err != nil {
		return err
	}
	if baseline == "" {
		return nil
	}
	return checkBaseline(underRoot(sel.root, baseline), rep, suites, stderr, stderr)
}

// parseWithFiles parses flags that may come before or after positional
// file arguments, and returns the files.
func parseWithFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, parseError(err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return files, nil
}
