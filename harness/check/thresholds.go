package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// metric is one suite-threshold metric and how to read it from a summary.
type metric struct {
	name  string
	value func(report.Summary) float64
}

// metrics lists the threshold metrics; latencies are in milliseconds, rates
// are fractions.
func metrics() []metric {
	return []metric{
		{"routing_accuracy", func(s report.Summary) float64 { return s.RoutingAccuracy }},
		{"pass_rate", func(s report.Summary) float64 { return s.PassRate }},
		{"token_reduction", func(s report.Summary) float64 { return s.TokenReduction }},
		{"input_tokens_mean", func(s report.Summary) float64 { return s.InputTokensMean }},
		{"output_tokens_mean", func(s report.Summary) float64 { return s.OutputTokensMean }},
		{"llm_calls_mean", func(s report.Summary) float64 { return s.LLMCallsMean }},
		{"tool_calls_mean", func(s report.Summary) float64 { return s.ToolCallsMean }},
		{"latency_mean", func(s report.Summary) float64 { return s.LatencyMean }},
		{"latency_p50", func(s report.Summary) float64 { return s.LatencyP50 }},
		{"latency_p95", func(s report.Summary) float64 { return s.LatencyP95 }},
		{"latency_p99", func(s report.Summary) float64 { return s.LatencyP99 }},
		{"prompt_tokens_per_call", func(s report.Summary) float64 { return s.PromptTokensPerCall }},
		{"artifacts", func(s report.Summary) float64 { return float64(s.Artifacts) }},
		{"cost_mean", func(s report.Summary) float64 { return s.Cost.Mean }},
		{"cost_p95", func(s report.Summary) float64 { return s.Cost.P95 }},
		{"cost_total", func(s report.Summary) float64 { return s.Cost.Total }},
		{"ttft_mean", streamed(func(st *report.Streaming) float64 { return st.TTFTMean })},
		{"ttft_p50", streamed(func(st *report.Streaming) float64 { return st.TTFTP50 })},
		{"ttft_p95", streamed(func(st *report.Streaming) float64 { return st.TTFTP95 })},
		{"ttft_p99", streamed(func(st *report.Streaming) float64 { return st.TTFTP99 })},
		{"gap_mean", streamed(func(st *report.Streaming) float64 { return st.GapMean })},
		{"gap_p95", streamed(func(st *report.Streaming) float64 { return st.GapP95 })},
		{"tpot_mean", streamed(func(st *report.Streaming) float64 { return st.TPOTMean })},
		{"output_tps_mean", streamed(func(st *report.Streaming) float64 { return st.TokensPerSecond })},
		{"stream_duration_mean", streamed(func(st *report.Streaming) float64 { return st.DurationMean })},
		{"goodput", streamed(func(st *report.Streaming) float64 {
			if st.Goodput == nil {
				return 0
			}
			return *st.Goodput
		})},
		{"rubric_score_mean", graded(func(g *report.Grading) float64 { return g.Score })},
		{"grader_kappa", graded(func(g *report.Grading) float64 {
			if g.Calibration == nil {
				return 0
			}
			k, _ := g.Calibration.Kappa()
			return k
		})},
	}
}

// graded reads a grading metric; 0 when nothing was graded (unmeasured
// says so, and the threshold fails).
func graded(f func(*report.Grading) float64) func(report.Summary) float64 {
	return func(s report.Summary) float64 {
		if s.Grading == nil {
			return 0
		}
		return f(s.Grading)
	}
}

// gradingMissing says why a grading metric was not measured on s, or "":
// no rubric check was graded, or (for grader_kappa) no labelled example
// was, or the kappa is undefined.
func gradingMissing(metric string, s report.Summary) string {
	if metric != "rubric_score_mean" && metric != "grader_kappa" {
		return ""
	}
	g := s.Grading
	switch {
	case g == nil:
		return "no rubric check was graded, so " + metric + " was not measured (add rubric: checks and a judge: block, docs/judges.md)"
	case metric == "grader_kappa" && g.Calibration == nil:
		return "no rubric has labelled examples (pass:, fail:), so grader_kappa was not measured"
	case metric == "grader_kappa":
		if _, ok := g.Calibration.Kappa(); !ok {
			return "Cohen's kappa is undefined: " + g.Calibration.KappaUndefined()
		}
	}
	return ""
}

// missing says why metric was not measured on s by what it is measured
// over (streamed calls, priced calls, graded rubrics), or "".
func missing(metric string, s report.Summary) string {
	for _, why := range []func(string, report.Summary) string{streamMissing, costMissing, gradingMissing} {
		if w := why(metric, s); w != "" {
			return w
		}
	}
	return ""
}

// streamed reads a streaming metric; 0 when nothing streamed (unmeasured
// says so, and the threshold fails).
func streamed(f func(*report.Streaming) float64) func(report.Summary) float64 {
	return func(s report.Summary) float64 {
		if s.Streaming == nil {
			return 0
		}
		return f(s.Streaming)
	}
}

// streamMissing says why a streaming metric was not measured on s, or "".
func streamMissing(metric string, s report.Summary) string {
	if !strings.HasPrefix(metric, "ttft_") && !strings.HasPrefix(metric, "gap_") && !slices.Contains([]string{"tpot_mean", "output_tps_mean", "stream_duration_mean", "goodput"}, metric) {
		return ""
	}
	st := s.Streaming
	switch {
	case st == nil:
		return "no model call streamed, so " + metric + " was not measured"
	case metric == "goodput" && st.Goodput == nil:
		return "the suite sets no goodput budget (goodput: {ttft: 500ms, tpot: 50ms})"
	case metric != "goodput" && metric != "stream_duration_mean" && st.Tokenless == st.Calls:
		return "no streamed call carried a token, so " + metric + " was not measured"
	}
	return ""
}

// costMissing says why a cost metric was not measured on s, or "": no
// model call was priced, or only some were (the figure would be a lower
// bound, which a "<" threshold would pass on what it did not count).
func costMissing(metric string, s report.Summary) string {
	if !scenario.IsCost(metric) {
		return ""
	}
	if c := s.Cost; c.Priced > 0 && c.Unpriced > 0 {
		return fmt.Sprintf("%d of the %d model and embeddings calls have no price (no row for their model in the price table), so %s would count only the rest; pass --prices FILE or map the model in the suite's prices: models", c.Unpriced, c.Priced+c.Unpriced, metric)
	}
	if s.Cost.Evaluated() {
		return ""
	}
	if s.Cost.Unpriced > 0 {
		return fmt.Sprintf("none of the %d model calls was priced (no row for their model in the price table), so %s was not measured; pass --prices FILE or map the model in the suite's prices: models", s.Cost.Unpriced, metric)
	}
	return "no model call was made, so " + metric + " was not measured"
}

// MetricNames returns the names of the suite-threshold metrics, sorted.
func MetricNames() []string {
	var names []string
	for _, m := range metrics() {
		names = append(names, m.name)
	}
	sort.Strings(names)
	return names
}

// Value returns a metric of a summary (latencies in milliseconds, rates as
// fractions); ok is false for an unknown name.
func Value(metric string, s report.Summary) (v float64, ok bool) {
	for _, m := range metrics() {
		if m.name == metric {
			return m.value(s), true
		}
	}
	return 0, false
}

// isLatency reports whether a metric is a time, measured in milliseconds
// (scenario.IsDuration).
func isLatency(metric string) bool {
	return scenario.IsDuration(metric)
}

// Thresholds evaluates a variant's thresholds against its summary s. base is
// the baseline variant's summary, or nil when the variant is the baseline or
// the suite has none; a threshold against "baseline" would then compare s
// with itself, and is not evaluated. A threshold written as a duration (Unit "s") is compared in
// milliseconds, and Observed and Target are in the metric's unit (ms for
// latencies). An unknown metric or operator fails, with a Detail saying so;
// so does a threshold over a variant (or a baseline) with no runs or with
// stale or errored ones, a metric over model calls of runs that made none,
// or routing accuracy where no scenario expects a route: it is not
// evaluated, never passed on nothing.
func Thresholds(ths []scenario.Threshold, s report.Summary, base *report.Summary) []report.Threshold {
	out := make([]report.Threshold, 0, len(ths))
	for _, th := range ths {
		out = append(out, threshold(th, s, base))
	}
	return out
}

func threshold(th scenario.Threshold, s report.Summary, base *report.Summary) report.Threshold {
	r := report.Threshold{Source: th.Source}
	observed, ok := Value(th.Metric, s)
	if !ok {
		r.Detail = fmt.Sprintf("unknown metric %q (want one of %s)", th.Metric, strings.Join(MetricNames(), ", "))
		return r
	}
	r.Observed = observed
	if why := unmeasured(s, base, th); why != "" {
		r.Detail, r.NotEvaluated = "not evaluated: "+why, true
		return r
	}
	unit := ""
	if isLatency(th.Metric) {
		unit = " ms"
	}
	if scenario.IsCost(th.Metric) {
		unit = " USD"
	}
	against := ""
	switch {
	case th.Baseline && base != nil:
		r.Target, _ = Value(th.Metric, *base)
		against = " (baseline)"
		if th.Against != "" {
			against = " (" + th.Against + ")"
		}
	case th.Unit == "s":
		if !isLatency(th.Metric) {
			r.Detail = fmt.Sprintf("%s is not a latency; write its target without a duration unit", th.Metric)
			return r
		}
		r.Target = th.Value * 1000
	default:
		r.Target = th.Value
	}
	pass, known := compare(r.Observed, th.Op, r.Target)
	if !known {
		r.Detail = fmt.Sprintf("unknown operator %q (want <, <=, >, >=, == or !=)", th.Op)
		return r
	}
	r.Pass = pass
	if !pass {
		show := func(v float64) string { return formatNumber(v) + unit }
		if th.Unit == "%" && !th.Baseline {
			show = percent
		}
		r.Detail = fmt.Sprintf("%s = %s, want %s %s%s", th.Metric, show(r.Observed), th.Op, show(r.Target), against)
	}
	return r
}

// unmeasured says why a threshold cannot be evaluated on s (and base, when
// it compares with one): no runs, or runs that were stale or errored, whose
// calls, tokens and latency were never measured; "" when it can.
func unmeasured(s report.Summary, base *report.Summary, th scenario.Threshold) string {
	what := func(s report.Summary, whose string) string {
		runs := max(s.Runs, s.Scenarios)
		switch {
		case runs == 0:
			return whose + "no runs"
		case s.Incomplete > 0:
			return fmt.Sprintf("%s%d of %d runs are stale or errored, so %s was not measured; fix them first", whose, s.Incomplete, runs, th.Metric)
		case s.LLMCallsMean == 0 && overModelCalls(th.Metric):
			// An agent that testbed saw make no model call (one that
			// bypasses the proxy, say) left nothing to measure: a mean or
			// percentile of nothing is not 0.
			return fmt.Sprintf("%sits %d runs made no model call, so %s was not measured", whose, runs, th.Metric)
		case s.Routed == 0 && th.Metric == "routing_accuracy":
			return whose + "no scenario expects a route, so routing_accuracy was not measured"
		}
		return ""
	}
	if why := what(s, ""); why != "" {
		return why
	}
	if why := streamMissing(th.Metric, s); why != "" {
		return why
	}
	if th.Baseline && base == nil {
		// The loader refuses such a threshold; a caller that builds its
		// own gets the same answer.
		return "it compares the baseline variant with itself"
	}
	if why := missing(th.Metric, s); why != "" {
		return why
	}
	if th.Baseline {
		whose := "the baseline: "
		if th.Against != "" {
			whose = th.Against + ": "
		}
		if why := what(*base, whose); why != "" {
			return why
		}
		if why := missing(th.Metric, *base); why != "" {
			return whose + why
		}
	}
	return ""
}

// overModelCalls reports whether metric is measured over the model calls
// of a variant's runs (their count, tokens, latency, tools and trimming):
// every metric but the pass rate, routing accuracy, artifacts and the
// grader's.
func overModelCalls(metric string) bool {
	return !slices.Contains([]string{"pass_rate", "routing_accuracy", "artifacts", "rubric_score_mean", "grader_kappa"}, metric)
}

// compare applies op; equality allows for rounding in the summary's means.
func compare(a float64, op string, b float64) (pass, known bool) {
	eq := math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
	switch op {
	case "<":
		return a < b && !eq, true
	case "<=":
		return a <= b || eq, true
	case ">":
		return a > b && !eq, true
	case ">=":
		return a >= b || eq, true
	case "==":
		return eq, true
	case "!=":
		return !eq, true
	}
	return false, false
}

// formatNumber prints v with at most three decimals, or four significant
// digits below one, and no trailing zeros.
func formatNumber(v float64) string {
	if v != 0 && math.Abs(v) < 1 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}
