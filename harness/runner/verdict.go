package runner

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// judge measures the trace and checks every turn's expectations, and that
// the cassette was played to its end.
func (r *sampleRun) judge() {
	out, j := &r.out, r.j
	events := r.tr.Events()
	out.Events = events
	j.pricer.Trace(r.ep.Provider, events)
	out.Metrics = trace.Measure(events)
	for _, a := range r.ans.Replies {
		out.Answer = append(out.Answer, a.Text)
	}
	for i, t := range j.scenario.Turns {
		if t.Expect.Route != nil && out.ExpectedRoute == "" {
			out.ExpectedRoute = check.FormatRoute(t.Expect.Route)
			out.Route = check.ObservedRoute(trace.OfTurn(events, i))
		}
		if i < len(r.ans.Replies) {
			out.Checks = append(out.Checks, check.Turn(i, t.ExpectFor(j.variant.Name), r.ans.Replies[i], trace.OfTurn(events, i), &j.caches.regexps)...)
		}
	}
	if out.Route == "" {
		out.Route = check.ObservedRoute(events)
	}
	out.Checks = append(out.Checks, r.graded...)
	if r.closeErr == nil {
		out.Recorded, out.Dropped = r.tp.Recorded()+r.gradesRecorded, r.tp.Dropped()
	}
	unplayed := r.tp.Unplayed()
	out.Unplayed = len(unplayed)
	if len(unplayed) > 0 && r.stale == nil && !r.timedOut {
		out.Checks = append(out.Checks, report.Check{Name: "cassette.unplayed", Detail: fmt.Sprintf(
			"%d recorded interactions were not replayed (first: %s); the agent made fewer or other calls than recorded: %s",
			len(unplayed), unplayed[0], r.copts.Rerecord)})
	}
	for i := range out.Checks {
		out.Checks[i].Judged = out.Checks[i].Judged || j.suite.Judges(out.Checks[i].Name)
	}
}

// finalize gives the sample its verdict: stale, error, fail or pass.
func (r *sampleRun) finalize() {
	out := &r.out
	switch {
	case r.stale != nil:
		var miss *cassette.MissError
		if errors.As(r.stale, &miss) && len(r.earlier) > 0 {
			if note := keptState(miss, r.earlier); note != "" {
				miss.Note = note
			}
		}
		out.Verdict, out.Error = report.VerdictStale, r.stale.Error()
		out.Fix = "re-record it with: " + r.copts.Rerecord
		var grades *graderStale
		if errors.As(r.stale, &grades) {
			out.Fix = "re-grade with: " + grades.fix
		}
	case r.err != nil:
		out.Verdict, out.Error = report.VerdictError, r.err.Error()
		out.Escaped = errors.Is(r.err, proxy.ErrEscaped)
	case r.closeErr != nil:
		out.Verdict, out.Error = report.VerdictError, r.closeErr.Error()
	case len(r.ans.Replies) != len(r.j.scenario.Turns):
		out.Verdict, out.Error = report.VerdictError, fmt.Sprintf("agent answered %d of %d turns", len(r.ans.Replies), len(r.j.scenario.Turns))
	case !slices.ContainsFunc(out.Checks, func(c report.Check) bool { return c.Name != "cassette.unplayed" }):
		// The loader refuses a scenario that expects nothing; whatever
		// else leaves a run with nothing checked fails, never passes.
		out.Verdict = report.VerdictFail
		out.Checks = append(out.Checks, report.Check{Name: "expect", Detail: "nothing was checked: the scenario expects nothing of this variant's reply; add an expectation"})
	default:
		out.Verdict = report.VerdictPass
		for _, c := range out.Checks {
			if !c.Pass {
				out.Verdict = report.VerdictFail
			}
		}
	}
}
