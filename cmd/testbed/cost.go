package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// writeEstimate prints what recording would cost at most (record
// --dry-run), calling nothing.
func writeEstimate(w io.Writer, suites []*scenario.Suite, opts runner.Options, maxCost float64) error {
	es, err := runner.EstimateRecording(suites, opts)
	if err != nil {
		return withCode(exitInternal, err)
	}
	fmt.Fprintln(w, "dry run: nothing was called; each model request of the current cassettes (the agent's and the rubric grader's) is estimated at its prompt's tokens and its max_tokens (4,096 when it sets none), each embeddings request at its input's tokens")
	t := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(t, "suite/variant\tmodel\truns\tmodel calls\tembeddings calls\tgrader calls\tat most\t")
	var total float64
	var unestimated []string
	unpriced, priced := 0, 0
	for _, e := range es {
		most := report.USD(e.USD)
		switch {
		case e.Unpriced && e.USD == 0:
			most = "unpriced"
			unpriced++
		case e.Unpriced:
			// Its embeddings or grader calls may be priced: said apart.
			most = "unpriced, +" + most + " priced"
			unpriced++
		default:
			priced++
		}
		var left []string
		if e.UnpricedEmbeds > 0 {
			left = append(left, fmt.Sprintf("+%d embeddings unpriced", e.UnpricedEmbeds))
		}
		if e.UnpricedGraders > 0 {
			left = append(left, fmt.Sprintf("+%d grader calls unpriced", e.UnpricedGraders))
		}
		if len(left) > 0 {
			most += " (" + strings.Join(left, ", ") + ")"
		}
		total += e.USD
		fmt.Fprintf(t, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t\n", e.Suite+"/"+e.Variant, e.Model, e.Scenarios, e.Calls, e.EmbedCalls, e.GraderCalls, most)
		for _, id := range e.Unestimated {
			unestimated = append(unestimated, e.Suite+"/"+e.Variant+"/"+id)
		}
	}
	t.Flush()
	switch {
	case unpriced > 0 && priced == 0:
		// Never $0: no agent's model was priced.
		fmt.Fprintf(w, "unpriced in all: no model of the %d suite and variant pairs is in the price table (pass --prices FILE, or map the models in the suite's prices: models)", unpriced)
		if total > 0 {
			fmt.Fprintf(w, "; their embeddings and grader calls that are priced: at most %s", report.USD(total))
		}
		fmt.Fprintln(w)
	case unpriced > 0:
		fmt.Fprintf(w, "at most %s in all, +%d suite and variant pairs unpriced\n", report.USD(total), unpriced)
	default:
		fmt.Fprintf(w, "at most %s in all\n", report.USD(total))
	}
	if len(unestimated) > 0 {
		fmt.Fprintf(w, "%d scenario runs have no cassette to estimate from: %s\n", len(unestimated), strings.Join(unestimated, ", "))
	}
	if maxCost > 0 && total > maxCost {
		fmt.Fprintf(w, "--max-cost $%g would stop the recording before its end\n", maxCost)
	}
	return nil
}

// writeStopped says where --max-cost stopped a recording and what it left
// unrecorded.
func writeStopped(w io.Writer, rep *report.Report, b *runner.Budget) {
	var left []string
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				if strings.Contains(sc.Error, runner.ErrOverBudget.Error()) {
					left = append(left, s.Name+"/"+v.Name+"/"+sc.ID)
				}
			}
		}
	}
	spent := report.USD(b.Spent()) + " spent"
	if f := b.InFlight(); f > 0 {
		// a run still going when this is said: its calls are estimates
		spent += fmt.Sprintf(" (and up to %s booked for calls in flight)", report.USD(f))
	}
	fmt.Fprintf(w, "stopped at --max-cost $%g: %s; every cassette written before is kept; %d scenario runs left unrecorded (their cassettes as they were): %s\n",
		b.Max, spent, len(left), strings.Join(left, ", "))
}

// writeRetries says how many rate-limit and overload responses the
// recording waited out before the agents saw them; nothing when none.
func writeRetries(w io.Writer, rep *report.Report) {
	n, runs := 0, 0
	var waited time.Duration
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				if sc.Retries > 0 {
					n, runs, waited = n+sc.Retries, runs+1, waited+sc.RetryWait
				}
			}
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "waited out %d rate-limit or overload responses (429, 503, 529 with Retry-After) in %d scenario runs, %s in all, and retried: the cassettes hold the answers\n",
			n, runs, waited)
	}
}
