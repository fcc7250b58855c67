package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/upstream"
)

const lintDoc = `Usage: testbed lint [flags]

Checks every suite's agent under every variant: each tool a prompt names
(a known tool name, or an identifier written as a call such as
get_usecase_details()) must be in the tools the model has with that prompt,
and each tool an expectation names (route.tool, tools names and not_call,
must_call) must be one the variant's agent has; each such mismatch is
reported as path:line with the scenario and the variant.
Exits 1 and lists every mismatch. Each agent's upstream stubs
(fixtures/<agent>/routes.yaml, and the response files they name) are
loaded as a recording loads them, and each suite's prices: file as a run
reads it: a problem in them is path:line, exit 2. --json lists every
problem, those too: one of them has Path, Line and Message.

Examples:
  testbed lint
  testbed lint --suite cba --json`

func cmdLint(args []string, stdout, stderr io.Writer) error {
	var sel selection
	fs := newFlags("lint", lintDoc, stderr)
	sel.register(fs, "root", "suite", "json")
	if err := parse(fs, args); err != nil {
		return err
	}
	suites, err := loadSuites(sel)
	if err != nil {
		return err
	}
	problems, err := lint.Suites(sel.root, suites, registry(sel.root, suites, nil))
	if err != nil {
		return withCode(exitInternal, err)
	}
	// The upstream stubs a recording serves: a broken one is bad input,
	// said with the tool mismatches, not at the next recording.
	routesErr := lint.Routes(sel.root, suites)
	if routesErr != nil && !errors.Is(routesErr, upstream.ErrInvalid) {
		return withCode(exitInternal, routesErr)
	}
	// A suite's price table, read as a run reads it: a missing or broken
	// one is bad input too.
	var pricesErrs []error
	for _, s := range suites {
		if _, err := runner.SuitePrices(s, sel.root); err != nil {
			pricesErrs = append(pricesErrs, err)
		}
	}
	bad := errors.Join(append([]error{routesErr}, pricesErrs...)...)
	if sel.json {
		// Every problem lint reports, the ones of exit 2 too: a CI that
		// reads only the JSON sees them.
		listed := append(lint.FileProblems(bad), problems...)
		if listed == nil {
			listed = []lint.Problem{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(listed); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintln(stdout, p)
		}
	}
	if bad != nil {
		return withCode(exitUsage, bad)
	}
	if len(problems) > 0 {
		return withCode(exitFailed, fmt.Errorf("%d tool mismatches in prompts and expectations", len(problems)))
	}
	if !sel.json {
		noun := "suites"
		if len(suites) == 1 {
			noun = "suite"
		}
		fmt.Fprintf(stdout, "prompts, expectations and tools agree in %d %s, and their agents' upstream stubs load\n", len(suites), noun)
	}
	return nil
}
