package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// WriteBrief writes r to w for a person at a terminal, on one screen: one
// line per suite and variant (scenarios passed, routing accuracy, token
// reduction, mean input tokens, replayed latency p50 and p95, time to first
// token p95 where calls streamed), then every failure in full (what was
// expected, what happened, the command that fixes it; a line per variant of
// a suite that does not gate), the thresholds that failed and the replay's
// hermeticity. It leaves the verdict (Verdict) to
// the caller, which has the regression gate's to add. WriteText has every
// table.
func WriteBrief(w io.Writer, r *Report) error {
	d := layout(r, func(v string) string { return strings.ToUpper(v) })
	overview, failures, thresholds := headline(r)
	var buf bytes.Buffer
	var dr drawer
	if err := dr.table(&buf, overview); err != nil {
		return fmt.Errorf("write brief report: %w", err)
	}
	list := func(title, mark string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(&buf, "\n%s (%s):\n", title, strconv.Itoa(len(lines)))
		for _, l := range lines {
			fmt.Fprintf(&buf, "  %s %s\n", mark, l)
		}
	}
	list("failures", "✗", failures)
	list("thresholds that failed", "✗", thresholds)
	list("figures over fewer runs", "⚠", unmeasuredLines(r))
	list("warnings", "⚠", reductionWarnings(r))
	list("grading, apart from the agents' calls, tokens and latency", "·", gradingLines(r))
	var known []string
	for _, k := range r.KnownFailures {
		known = append(known, k.String())
	}
	list("known failures, blessed in the baseline", "·", known)
	for _, s := range d.suites {
		if s.title != "replay" {
			continue
		}
		for _, sec := range s.sections {
			for _, n := range sec.notes {
				fmt.Fprintf(&buf, "\nreplay: %s\n", strings.TrimSpace(n.mark+" "+n.text))
			}
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// failure is one line of WriteBrief's failures: its text, and for a
// cassette miss its cause (missCause), by which misses are grouped.
type failure struct {
	text, cause, rerecord string
	suite, variant, id    string
}

// briefFailures describes each scenario of v that did not pass: a stale or
// errored one by its error alone (its checks judged nothing), a failed one
// by each check that failed.
func briefFailures(s *Suite, name string, v *Variant) []failure {
	var out []failure
	for _, sc := range v.Scenarios {
		switch {
		case sc.Verdict == VerdictPass || sc.Known: // a known failure is listed apart
		case sc.Verdict == VerdictStale || sc.Verdict == VerdictError:
			f := failure{text: fmt.Sprintf("%s %s %s: %s", name, sc.ID, sc.Verdict, strings.ReplaceAll(sc.Error, "\n", "\n    ")),
				suite: s.Name, variant: v.Name, id: sc.ID}
			if sc.Verdict == VerdictStale {
				f.cause, f.rerecord = missCause(sc.Error)
			}
			out = append(out, f)
		default:
			for _, c := range sc.Checks {
				if !c.Pass {
					out = append(out, failure{text: fmt.Sprintf("%s %s %s: %s", name, sc.ID, c.Label(), strings.ReplaceAll(c.Detail, "\n", "\n    "))})
				}
			}
		}
	}
	return out
}

// notGatingFailures is one line for the scenarios of v, a variant of a
// suite that does not gate the run, that failed (stale ones fail the run
// and are listed in full): their ids and where to read why, so that
// findings kept on purpose do not crowd the screen.
func notGatingFailures(s *Suite, name string, v *Variant) []failure {
	var ids []string
	for _, sc := range v.Scenarios {
		if sc.Verdict != VerdictPass && sc.Verdict != VerdictStale { // stale ones are listed in full
			ids = append(ids, sc.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	verb := "do not pass"
	if len(ids) == 1 {
		verb = "does not pass"
	}
	return []failure{{text: fmt.Sprintf("%s: %d of %s %s (%s); testbed show %s/%s/<scenario> says why",
		name, len(ids), Count(len(v.Scenarios), "scenario"), verb, strings.Join(ids, ", "), s.Name, v.Name)}}
}

// headline is a line per suite and variant (the table WriteBrief and
// WriteMarkdown open with), with every failure and failed threshold.
func headline(r *Report) (overview table, failures, thresholds []string) {
	overview = table{
		header: []string{"suite/variant", "passed", "routing", "reduction", "in tok", "p50", "p95", "cost/run", "ttft p95"},
		right:  []bool{false, true, true, true, true, true, true, true, true},
	}
	var found []failure
	for i := range r.Suites {
		s := &r.Suites[i]
		order, _ := variantOrder(s)
		for _, v := range order {
			sm := v.Summary
			name := s.Name + "/" + v.Name
			if s.NotGating {
				name += " (not gating)"
			}
			passed := fmt.Sprintf("%d/%d", sm.Passed, sm.Scenarios)
			if sm.Passed < sm.Scenarios {
				passed += " ✗"
			}
			routing, reduction, ttft := "—", "—", "—"
			if sm.Routed > 0 {
				routing = percent(sm.RoutingAccuracy)
			}
			if reduced(v) {
				reduction = percent(sm.TokenReduction)
			}
			if st := sm.Streaming; st != nil && st.Tokenless < st.Calls {
				ttft = Grouped(int64(math.Round(st.TTFTP95))) + " ms"
			}
			in, p50, p95 := Grouped(int64(math.Round(sm.InputTokensMean))), Grouped(int64(math.Round(sm.LatencyP50)))+" ms",
				Grouped(int64(math.Round(sm.LatencyP95)))+" ms"
			if sm.Measured() <= 0 {
				reduction, in, p50, p95 = "—", "—", "—", "—" // no run measured: not 0 tokens in 0 ms
			}
			overview.rows = append(overview.rows, []string{name, passed, routing, reduction, in, p50, p95, v.Spend().Short(), ttft})
			if s.NotGating {
				// A stale or missing cassette fails the run even here: it
				// is listed in full, with the command that records it.
				stale := *v
				stale.Scenarios = slices.DeleteFunc(slices.Clone(v.Scenarios), func(sc Scenario) bool { return sc.Verdict != VerdictStale })
				found = append(found, briefFailures(s, name, &stale)...)
				found = append(found, notGatingFailures(s, name, v)...)
			} else {
				found = append(found, briefFailures(s, name, v)...)
			}
			for _, t := range v.Thresholds {
				if !t.Pass && !t.Known {
					thresholds = append(thresholds, fmt.Sprintf("%s: %s — %s", name, t.Source, t.Detail))
				}
			}
		}
	}
	failures = groupMisses(found)
	streamed := false
	for _, row := range overview.rows {
		streamed = streamed || row[len(row)-1] != "—"
	}
	if !streamed {
		overview.header, overview.right = overview.header[:8], overview.right[:8]
		for i := range overview.rows {
			overview.rows[i] = overview.rows[i][:8]
		}
	}
	return overview, failures, thresholds
}

// reductionWarnings are the ReductionWarning of every variant of r, named
// suite/variant.
func reductionWarnings(r *Report) []string {
	var out []string
	for i := range r.Suites {
		s := &r.Suites[i]
		for j := range s.Variants {
			if w := ReductionWarning(&s.Variants[j]); w != "" {
				out = append(out, s.Name+"/"+s.Variants[j].Name+": "+w)
			}
		}
	}
	return out
}

// unmeasuredLines says, per variant of r that left runs out of its
// figures (Summary.Incomplete), over how many runs its tokens, latency and
// cost are, named suite/variant.
func unmeasuredLines(r *Report) []string {
	var out []string
	for i := range r.Suites {
		s := &r.Suites[i]
		order, _ := variantOrder(s) // as the lines per suite and variant are
		for _, v := range order {
			sm := v.Summary
			if sm.Incomplete == 0 {
				continue
			}
			runs := max(sm.Runs, sm.Scenarios)
			line := fmt.Sprintf("%s/%s: tokens, latency and cost over %d of %s; %d stale or errored, not measured",
				s.Name, v.Name, max(0, sm.Measured()), Count(runs, "run"), sm.Incomplete)
			if sm.Measured() <= 0 {
				line = fmt.Sprintf("%s/%s: no run measured (%d of %s stale or errored): no tokens, latency or cost to show",
					s.Name, v.Name, sm.Incomplete, Count(runs, "run"))
			}
			out = append(out, line)
		}
	}
	return out
}
