package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

const reportDoc = `Usage: testbed report --html FILE [REPORT.json]
       testbed report merge SHARD.json… [flags]

Renders a report JSON (by default reports/latest.json, which 'testbed run'
writes) as one self-contained HTML page: a table of contents, per suite the
charts (input tokens by part, replayed latency against the budget, latency
by role, trimming by tool, routing confusion heat maps), the tables, and
every scenario's trace, with what each model call saw when the run kept it
(testbed run --prompts). Filters in the page pick runs by verdict, changed
route, violated budget or text. The page loads nothing from the network.

Examples:
  testbed run && testbed report --html reports/report.html
  testbed report --html baseline.html reports/baseline.json`

// cmdReport is 'testbed report': the HTML page, or 'merge'.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return cmdMerge(args[1:], stdout, stderr)
	}
	var out, prices, root string
	flags := newFlags("report", reportDoc, stderr)
	flags.StringVar(&out, "html", "", "write the HTML page here (required)")
	flags.StringVar(&prices, "prices", "", "price the report's model calls (the agents' and the rubric graders') again with this table in LiteLLM's schema (docs/cost.md); the suites' prices: models under --root apply")
	flags.StringVar(&root, "root", ".", "project folder whose scenarios/ map the suites' model names to price rows (with --prices)")
	files, err := parseWithFiles(flags, args)
	if err != nil {
		return err
	}
	if out == "" || len(files) > 1 {
		return withCode(exitUsage, errors.New("usage: testbed report --html FILE [REPORT.json]"))
	}
	in := "reports/latest.json"
	if len(files) == 1 {
		in = files[0]
	}
	rep, err := readReport(in)
	if errors.Is(err, fs.ErrNotExist) && len(files) == 0 {
		return withCode(exitUsage, fmt.Errorf("%s does not exist: run 'testbed run' first, or name a report JSON", in))
	}
	if err != nil {
		return err
	}
	if prices != "" {
		if err := repriceFiles(prices, root, rep); err != nil {
			return err
		}
	}
	if err := saveFile(out, rep, report.WriteHTML); err != nil {
		return withCode(exitInternal, err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", out)
	return nil
}

// repriceFiles prices the calls of report files again with the table at
// prices (report --prices, compare --prices), the suites' prices: models
// under root mapping their model names to its rows.
func repriceFiles(prices, root string, reps ...*report.Report) error {
	sel := selection{prices: prices}
	table, err := sel.priceTable()
	if err != nil {
		return err
	}
	// The suites give their models' price rows and their judges' models.
	suites, err := scenario.LoadDir(filepath.Join(root, "scenarios"), scenario.LoadOptions{Root: root})
	if err != nil {
		suites = nil
	}
	for _, rep := range reps {
		if err := runner.Reprice(rep, table, suites); err != nil {
			return withCode(exitUsage, err)
		}
	}
	return nil
}
