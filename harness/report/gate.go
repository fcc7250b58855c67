package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// Regression is one figure that got worse than the blessed baseline allows.
type Regression struct {
	Suite    string  `json:"suite"`
	Variant  string  `json:"variant"`
	Scenario string  `json:"scenario,omitempty"` // "" for the variant's summary
	Metric   string  `json:"metric"`
	Base     float64 `json:"base"`
	Head     float64 `json:"head"`
	Allowed  float64 `json:"allowed"` // the tolerance, as a fraction of Base
	Detail   string  `json:"detail,omitempty"`
}

// String is the regression on one line: where, the metric, and how it
// changed against what was allowed.
func (g Regression) String() string {
	where := g.Suite + "/" + g.Variant
	if g.Scenario != "" {
		where += "/" + g.Scenario
	}
	return where + " " + g.change()
}

// change is the regression's metric, from baseline to now, and what was
// allowed; or, for one told by its detail, the metric and the detail.
func (g Regression) change() string {
	if g.Detail != "" {
		return g.Metric + ": " + g.Detail
	}
	return fmt.Sprintf("%s: %s → %s, more than the %.1f%% allowed", g.Metric, formatFloat(g.Base), formatFloat(g.Head), g.Allowed*100)
}

// gateMetric reads a summary metric; higher reports whether higher is
// better.
func gateMetric(name string, s Summary) (v float64, higher bool) {
	switch name {
	case "pass_rate":
		return s.PassRate, true
	case "routing_accuracy":
		return s.RoutingAccuracy, true
	case "token_reduction":
		return s.TokenReduction, true
	case "input_tokens_mean":
		return s.InputTokensMean, false
	case "output_tokens_mean":
		return s.OutputTokensMean, false
	case "llm_calls_mean":
		return s.LLMCallsMean, false
	case "latency_mean":
		return s.LatencyMean, false
	case "latency_p95":
		return s.LatencyP95, false
	case "cost_mean":
		return s.Cost.Mean, false
	case "cost_p95":
		return s.Cost.P95, false
	case "cost_total":
		return s.Cost.Total, false
	case "rubric_score_mean":
		if s.Grading == nil {
			return 0, true
		}
		return s.Grading.Score, true
	}
	return 0, false
}

// worse reports whether head is worse than base beyond tol, a fraction of
// base (an absolute fraction for rates, which are fractions already).
func worse(base, head, tol float64, higher bool) bool {
	const eps = 1e-9
	if higher {
		return head < base-tol-eps
	}
	return head > base+math.Abs(base)*tol+eps
}

// Regressions compares head with the blessed base report. gates gives each
// suite's tolerances by metric. Summary metrics are checked per variant,
// over the scenarios both ran (a run of some of a suite's scenarios is
// held to the baseline's figures of those, not of the whole suite); per
// scenario, a verdict that stopped passing always counts, and input
// tokens, LLM calls and latency are held to the tolerances of
// input_tokens_mean, llm_calls_mean and latency_mean. Suites, variants and
// scenarios missing from either side, or suites missing from gates, are
// not compared: Uncompared lists those of head that base lacks.
func Regressions(base, head *Report, gates map[string]map[string]float64) []Regression {
	var out []Regression
	for _, hs := range head.Suites {
		gate, ok := gates[hs.Name]
		if !ok {
			continue // a suite without a gate (one that is not gating) is not held to the baseline
		}
		for _, bs := range base.Suites {
			if bs.Name != hs.Name {
				continue
			}
			for _, hv := range hs.Variants {
				for _, bv := range bs.Variants {
					if bv.Name != hv.Name {
						continue
					}
					out = append(out, variantRegressions(hs.Name, &bv, &hv, gate)...)
				}
			}
		}
	}
	return out
}

// Uncompared lists what Regressions cannot compare: each suite of head
// that gates (is in gates) and ran a scenario, as "suite NAME", when base
// lacks it; each such variant, as "variant SUITE/NAME", when base has its
// suite but not the variant; and each scenario it ran, as "scenario
// SUITE/VARIANT/ID", when base has its variant but not the scenario. A gate
// that passed with these left out would rest on nothing for them.
func Uncompared(base, head *Report, gates map[string]map[string]float64) []string {
	var out []string
	for _, hs := range head.Suites {
		if _, ok := gates[hs.Name]; !ok {
			continue
		}
		var bs *Suite
		for i := range base.Suites {
			if base.Suites[i].Name == hs.Name {
				bs = &base.Suites[i]
			}
		}
		var variants []string
		for _, hv := range hs.Variants {
			if len(hv.Scenarios) == 0 {
				continue
			}
			bv := -1
			if bs != nil {
				bv = slices.IndexFunc(bs.Variants, func(bv Variant) bool { return bv.Name == hv.Name })
			}
			if bv < 0 {
				variants = append(variants, "variant "+hs.Name+"/"+hv.Name)
				continue
			}
			for _, sc := range hv.Scenarios {
				if !slices.ContainsFunc(bs.Variants[bv].Scenarios, func(b Scenario) bool { return b.ID == sc.ID }) {
					variants = append(variants, "scenario "+hs.Name+"/"+hv.Name+"/"+sc.ID)
				}
			}
		}
		switch {
		case len(variants) == 0:
		case bs == nil:
			out = append(out, "suite "+hs.Name) // its variants with it
		default:
			out = append(out, variants...)
		}
	}
	return out
}

func variantRegressions(suite string, bv, hv *Variant, gate map[string]float64) []Regression {
	var out []Regression
	names := make([]string, 0, len(gate))
	for m := range gate {
		names = append(names, m)
	}
	sort.Strings(names)
	bsum, hsum := commonSummaries(bv, hv)
	for _, m := range names {
		if why := unjudged(m, bsum, hsum); why != "" {
			out = append(out, Regression{Suite: suite, Variant: hv.Name, Metric: m, Allowed: gate[m], Detail: why})
			continue
		}
		b, higher := gateMetric(m, bsum)
		h, _ := gateMetric(m, hsum)
		if worse(b, h, gate[m], higher) {
			out = append(out, Regression{Suite: suite, Variant: hv.Name, Metric: m, Base: b, Head: h, Allowed: gate[m]})
		}
	}
	byID := map[string]Scenario{}
	for _, sc := range bv.Scenarios {
		byID[sc.ID] = sc
	}
	for _, hsc := range hv.Scenarios {
		bsc, ok := byID[hsc.ID]
		if !ok {
			continue
		}
		if bsc.Verdict == VerdictPass && hsc.Verdict != VerdictPass {
			out = append(out, Regression{Suite: suite, Variant: hv.Name, Scenario: hsc.ID, Metric: "verdict", Detail: "pass → " + hsc.Verdict})
		}
		if !measured(bsc.Verdict) || !measured(hsc.Verdict) {
			continue // a stale or errored run's figures were not measured
		}
		per := []struct {
			name, gate string
			b, h       float64
		}{
			{"input_tokens", "input_tokens_mean", float64(bsc.Metrics.InputTokens), float64(hsc.Metrics.InputTokens)},
			{"llm_calls", "llm_calls_mean", float64(bsc.Metrics.LLMCalls), float64(hsc.Metrics.LLMCalls)},
			{"latency_ms", "latency_mean", float64(bsc.Metrics.Latency.Microseconds()) / 1000, float64(hsc.Metrics.Latency.Microseconds()) / 1000},
		}
		for _, p := range per {
			tol, gated := gate[p.gate]
			if gated && worse(p.b, p.h, tol, false) {
				out = append(out, Regression{Suite: suite, Variant: hv.Name, Scenario: hsc.ID, Metric: p.name, Base: p.b, Head: p.h, Allowed: tol})
			}
		}
	}
	return out
}

// commonSummaries returns the summaries of bv and hv over the scenarios
// both ran: their own when they ran the same ones, else each summarized
// again over the scenarios the other has too.
func commonSummaries(bv, hv *Variant) (Summary, Summary) {
	has := func(scs []Scenario) func(Scenario) bool {
		ids := make(map[string]bool, len(scs))
		for _, sc := range scs {
			ids[sc.ID] = true
		}
		return func(sc Scenario) bool { return ids[sc.ID] }
	}
	inHead, inBase := has(hv.Scenarios), has(bv.Scenarios)
	if len(bv.Scenarios) == len(hv.Scenarios) && !slices.ContainsFunc(hv.Scenarios, func(sc Scenario) bool { return !inBase(sc) }) {
		return bv.Summary, hv.Summary
	}
	keep := func(scs []Scenario, in func(Scenario) bool) []Scenario {
		var out []Scenario
		for _, sc := range scs {
			if in(sc) {
				out = append(out, sc)
			}
		}
		return out
	}
	return Summarize(keep(bv.Scenarios, inHead)), Summarize(keep(hv.Scenarios, inBase))
}

// unjudged says why a metric of the gate cannot be judged (a figure over
// the runs' calls, tokens, latency or cost when some runs were stale or
// errored, now or in the baseline; a cost with no call priced now, or in
// the baseline; a rubric score with no rubric check graded), or "": the
// gate never passes on nothing.
func unjudged(metric string, base, head Summary) string {
	cost := strings.HasPrefix(metric, "cost_")
	overRuns := !slices.Contains([]string{"pass_rate", "routing_accuracy", "rubric_score_mean"}, metric)
	switch {
	case overRuns && head.Incomplete > 0:
		// as a threshold is: a mean over the runs that were measured is
		// not the variant's, whichever way it moved
		return fmt.Sprintf("not evaluated: %d of %s are stale or errored now, so %s was not measured; fix them first",
			head.Incomplete, Count(max(head.Runs, head.Scenarios), "run"), metric)
	case overRuns && base.Incomplete > 0:
		return fmt.Sprintf("not evaluated: %d of the baseline's %s are stale or errored; re-bless it: testbed baseline bless", base.Incomplete, Count(max(base.Runs, base.Scenarios), "run"))
	case cost && !head.Cost.Evaluated():
		return "not evaluated: no model call was priced now (pass --prices FILE, or map the model in the suite's prices: models)"
	case cost && head.Cost.Unpriced > 0:
		return fmt.Sprintf("not evaluated: %d of the %d calls have no price now, so the figure would count only the rest (pass --prices FILE, or map the model in the suite's prices: models)",
			head.Cost.Unpriced, head.Cost.Priced+head.Cost.Unpriced)
	case cost && !base.Cost.Evaluated():
		return "not evaluated: the baseline prices no model call; re-bless it: testbed baseline bless"
	case cost && base.Cost.Unpriced > 0:
		return fmt.Sprintf("not evaluated: the baseline priced %d of its %d calls; price every model, then re-bless it: testbed baseline bless", base.Cost.Priced, base.Cost.Priced+base.Cost.Unpriced)
	case metric == "rubric_score_mean" && head.Grading == nil:
		// A selection (--scenario, --variant) of runs without rubrics
		// grades none: say what grades one.
		return "not evaluated: no rubric check was graded now; run scenarios that have rubric checks (the whole suite), or leave rubric_score_mean out of the suite's gate:"
	case metric == "rubric_score_mean" && base.Grading == nil:
		return "not evaluated: the baseline graded no rubric check; re-bless it: testbed baseline bless"
	}
	return ""
}

// WriteRegressionsText renders regressions as a table a CI reader takes in
// at once.
func WriteRegressionsText(w io.Writer, regs []Regression) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "regressions against the blessed baseline (%d)\n", len(regs))
	if err := new(drawer).table(&buf, regressionsTable(regs)); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// regressionsTable is regs as a table: where, the metric, its baseline and
// current values, the change and the change allowed.
func regressionsTable(regs []Regression) table {
	t := table{header: []string{"suite", "variant", "scenario", "metric", "baseline", "now", "change", "allowed"},
		right: []bool{false, false, false, false, true, true, true, true}}
	for _, r := range regs {
		sc := r.Scenario
		if sc == "" {
			sc = "(summary)"
		}
		// A regression told by its detail (a verdict that stopped passing,
		// a cost not evaluated) has no figures to show.
		base, head, change, allowed := "—", "—", r.Detail, ""
		if r.Detail == "" {
			base, head = fmt.Sprintf("%.4g", r.Base), fmt.Sprintf("%.4g", r.Head)
			change = fmt.Sprintf("%+.4g", r.Head-r.Base)
			if r.Base != 0 {
				change += fmt.Sprintf(" (%+.1f%%)", (r.Head-r.Base)/math.Abs(r.Base)*100)
			}
			allowed = fmt.Sprintf("%.4g%%", r.Allowed*100)
		}
		t.rows = append(t.rows, []string{r.Suite, r.Variant, sc, r.Metric, base, head, change, allowed})
	}
	return t
}

// Gate is what the regression gate found, kept in the report so that every
// file written from it states the verdict the run's exit states.
type Gate struct {
	Baseline string `json:"baseline"` // the blessed report, as named
	// Summary is the gate's word, as the verdict line ends with it ("the
	// gate found 2 regressions against reports/baseline.json").
	Summary string `json:"summary"`
	// Compared is true when the gate compared anything with the baseline.
	Compared bool `json:"compared"`
	// Failed is true when the gate fails the run: a regression, or in CI a
	// baseline that is missing, unreadable or lacks what ran.
	Failed      bool         `json:"failed"`
	Regressions []Regression `json:"regressions,omitempty"`
}

// gateSection is what g found: its word, and the table of its regressions.
func gateSection(g *Gate) section {
	sec := section{title: "verdict", notes: []note{{text: g.Summary}}}
	if g.Failed {
		sec.notes[0].mark = "✗"
	}
	if len(g.Regressions) > 0 {
		sec.title, sec.table = fmt.Sprintf("regressions (%d)", len(g.Regressions)), regressionsTable(g.Regressions)
	}
	return sec
}

// withGate is the verdict line v ending with g's word: a PASS becomes a
// FAIL when the gate failed.
func withGate(v string, g *Gate) string {
	switch {
	case g == nil || g.Summary == "":
		return v
	case g.Failed && strings.HasPrefix(v, "PASS: "):
		return "FAIL: " + strings.TrimPrefix(v, "PASS: ") + ", but " + g.Summary
	}
	return v + "; " + g.Summary
}

// Blessed returns r without trace events, the form committed as the
// baseline: every figure the gate reads, none of the transcripts, and not
// the gate's own finding.
func (r *Report) Blessed() *Report {
	out := *r
	out.Gate = nil
	out.Suites = make([]Suite, len(r.Suites))
	for i, s := range r.Suites {
		out.Suites[i] = s
		out.Suites[i].Variants = make([]Variant, len(s.Variants))
		for j, v := range s.Variants {
			out.Suites[i].Variants[j] = v
			out.Suites[i].Variants[j].Scenarios = make([]Scenario, len(v.Scenarios))
			for k, sc := range v.Scenarios {
				sc.Events = nil
				out.Suites[i].Variants[j].Scenarios[k] = sc
			}
		}
	}
	return &out
}
