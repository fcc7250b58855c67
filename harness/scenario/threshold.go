package scenario

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// thresholdOps are the comparison operators of a threshold, longest first so
// that "<=" is not read as "<".
var thresholdOps = []string{"<=", ">=", "==", "!=", "<", ">"}

// ParseThreshold parses one threshold expression, "metric op value", such as
// "latency_p95 < 2s". The metric is a name of letters, digits and
// underscores that does not start with a digit; op is one of < <= > >= == !=; value is "baseline", a number,
// a percentage ("95%", stored as 0.95 with Unit "%") or a duration ("350ms",
// stored in seconds with Unit "s"). Spaces around op are optional. It does
// not check that the metric exists, and leaves Line zero.
func ParseThreshold(expr string) (Threshold, error) {
	t := Threshold{Source: expr}
	s := strings.TrimSpace(expr)
	if s == "" {
		return t, fmt.Errorf(`empty threshold; write one like "latency_p95 < 2s"`)
	}
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
	if end < 0 {
		end = len(s)
	}
	t.Metric = s[:end]
	rest := strings.TrimLeft(s[end:], " \t")
	if t.Metric == "" || '0' <= t.Metric[0] && t.Metric[0] <= '9' {
		return t, fmt.Errorf(`threshold %q: want a metric name first, like "latency_p95 < 2s"`, expr)
	}
	for _, op := range thresholdOps {
		if strings.HasPrefix(rest, op) {
			t.Op = op
			break
		}
	}
	if t.Op == "" {
		if rest == "" {
			return t, fmt.Errorf("threshold %q: want an operator (< <= > >= == !=) and a value after %q", expr, t.Metric)
		}
		return t, fmt.Errorf("threshold %q: want an operator (< <= > >= == !=) after %q, got %q", expr, t.Metric, rest)
	}
	value := strings.TrimSpace(rest[len(t.Op):])
	if value == "" {
		return t, fmt.Errorf("threshold %q: want a value after %q: baseline, a number, a percentage or a duration", expr, t.Op)
	}
	if err := t.parseValue(value); err != nil {
		return t, fmt.Errorf("threshold %q: %w", expr, err)
	}
	return t, nil
}

// variantRef is how a threshold names another variant to compare to.
var variantRef = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.+-]*$`)

// parseValue sets the Baseline, Value and Unit of t from its written value.
func (t *Threshold) parseValue(value string) error {
	if value == "baseline" {
		t.Baseline = true
		return nil
	}
	if name, ok := strings.CutPrefix(value, "variant:"); ok {
		if !variantRef.MatchString(name) {
			return fmt.Errorf("value %q does not name a variant; write variant:<name>", value)
		}
		t.Baseline, t.Against = true, name
		return nil
	}
	if f, ok := parsePercent(value); ok {
		t.Value, t.Unit = f, "%"
		return nil
	}
	if dollars, ok := strings.CutPrefix(value, "$"); ok {
		if f, err := strconv.ParseFloat(dollars, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			t.Value, t.Unit = f, "$"
			return nil
		}
		return fmt.Errorf("value %q is not an amount of US dollars; write it like $0.002", value)
	}
	if f, err := strconv.ParseFloat(value, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		t.Value = f
		return nil
	}
	if d, err := time.ParseDuration(value); err == nil {
		t.Value, t.Unit = d.Seconds(), "s"
		return nil
	}
	return fmt.Errorf("value %q is not baseline, variant:<name>, a number (0.95), a percentage (95%%) or a duration (2s, 350ms)", value)
}

// parsePercent parses "69%" as 0.69.
func parsePercent(s string) (float64, bool) {
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f / 100, true
}

// IsCost reports whether a threshold metric is a cost in US dollars
// (cost_mean, cost_p95, cost_total), written as $0.002 or 0.002.
func IsCost(metric string) bool {
	return strings.HasPrefix(metric, "cost_")
}

// rateMetrics are the metrics that are fractions, written as 0.95 or 95%
// (a rubric's min_score is written either way too).
var rateMetrics = []string{"pass_rate", "routing_accuracy", "token_reduction", "goodput", "rubric_score_mean"}

// bounds are the least and the greatest value a threshold metric takes:
// a share from 0 to 1, a kappa from -1 to 1, a token reduction at most 1
// (a prompt can grow), and any count, time or cost 0 or more.
func bounds(metric string) (lo, hi float64) {
	switch metric {
	case "pass_rate", "routing_accuracy", "goodput", "rubric_score_mean":
		return 0, 1
	case "grader_kappa":
		return -1, 1
	case "token_reduction":
		return math.Inf(-1), 1
	}
	return 0, math.Inf(1)
}

// foregone says what t decides whatever its metric measures, its target
// at or past a bound the metric never crosses, as "could only pass: …"
// (pass_rate >= 0, rubric_score_mean <= 1, latency_p95 >= 0s) or "could
// only fail: …" (pass_rate > 100%, grader_kappa > 1, latency_p95 < 0s),
// with what to do; or "" when a run can meet it and miss it.
func (t Threshold) foregone() string {
	if t.Baseline {
		return ""
	}
	lo, hi := bounds(t.Metric)
	var only, why string
	switch {
	case t.Op == ">=" && t.Value <= lo, t.Op == ">" && t.Value < lo:
		only, why = "pass", fmt.Sprintf("%s is never below %v", t.Metric, lo)
	case t.Op == "<=" && t.Value >= hi, t.Op == "<" && t.Value > hi:
		only, why = "pass", fmt.Sprintf("%s is never above %v", t.Metric, hi)
	case t.Op == "!=" && (t.Value < lo || t.Value > hi):
		only, why = "pass", fmt.Sprintf("%s is never %v", t.Metric, t.Value)
	case t.Op == "<=" && t.Value < lo, t.Op == "<" && t.Value <= lo:
		only, why = "fail", fmt.Sprintf("%s is never below %v", t.Metric, lo)
	case t.Op == ">=" && t.Value > hi, t.Op == ">" && t.Value >= hi:
		only, why = "fail", fmt.Sprintf("%s is never above %v", t.Metric, hi)
	case t.Op == "==" && (t.Value < lo || t.Value > hi):
		only, why = "fail", fmt.Sprintf("%s is never %v", t.Metric, t.Value)
	default:
		return ""
	}
	if only == "pass" {
		return fmt.Sprintf("could only pass: %s; give a target it can miss", why)
	}
	if hi == 1 && t.Unit == "" && t.Value > 1 {
		why += fmt.Sprintf(" (write a percentage with %%, as %v%%)", t.Value)
	}
	return fmt.Sprintf("could only fail: %s; give a target it can meet", why)
}

// IsDuration reports whether a threshold metric is a time (latency, time to
// first token, gaps between tokens, time per output token, stream
// duration), written with a unit such as 2s or 350ms.
func IsDuration(metric string) bool {
	for _, p := range []string{"latency_", "ttft_", "gap_"} {
		if strings.HasPrefix(metric, p) {
			return true
		}
	}
	return metric == "tpot_mean" || metric == "stream_duration_mean"
}

// unitProblem says what is wrong with the unit of t's value for its metric,
// or "": a latency wants a duration (2s, 350ms), a rate a number or a
// percentage, and anything else a plain number. A threshold against a
// baseline or a variant has no unit of its own.
func (t Threshold) unitProblem() string {
	if t.Baseline {
		return ""
	}
	latency := IsDuration(t.Metric)
	rate := slices.Contains(rateMetrics, t.Metric)
	dollars := IsCost(t.Metric)
	switch {
	case !dollars && t.Unit == "$":
		return fmt.Sprintf("%s is not a cost: write its target without a $", t.Metric)
	case latency && t.Unit != "s":
		return fmt.Sprintf("%s is a latency: write its target as a duration, such as 2s or 350ms", t.Metric)
	case !latency && t.Unit == "s":
		return fmt.Sprintf("%s is not a latency: write its target without a duration unit", t.Metric)
	case !rate && t.Unit == "%":
		return fmt.Sprintf("%s is not a rate: write its target as a number, not a percentage", t.Metric)
	}
	return ""
}
