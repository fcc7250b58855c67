package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

// Comparison is one suite's results under two variants (or two reports),
// side by side. It is data; WriteComparisonText and WriteComparisonJSON
// render it.
type Comparison struct {
	Suite string     `json:"suite"`
	Base  string     `json:"base"` // a label: the variant, or file:variant
	Head  string     `json:"head"`
	Rows  []Compared `json:"rows"`
	// BaseSummary and HeadSummary are over the scenarios both ran.
	BaseSummary Summary `json:"base_summary"`
	HeadSummary Summary `json:"head_summary"`
	// Noise says, per sampled metric, whether the difference of the means
	// is larger than the samples' noise; empty when neither side was
	// sampled.
	Noise []Noise `json:"noise,omitempty"`
	// Pairwise is the grader's verdict on the two variants' answers
	// (compare --judge); nil when not asked.
	Pairwise *Pairwise `json:"pairwise,omitempty"`
	// Prices names the price table both sides' calls were priced with
	// again (compare --prices); empty when each kept its own prices.
	Prices string `json:"prices,omitempty"`
}

// Side is one scenario's figures under one variant.
type Side struct {
	Verdict       string   `json:"verdict"`
	Route         string   `json:"route,omitempty"`
	Tools         []string `json:"tools"`
	InputTokens   float64  `json:"input_tokens"`
	OutputTokens  float64  `json:"output_tokens"`
	ContextTokens int      `json:"context_tokens"`
	LLMCalls      float64  `json:"llm_calls"`
	LatencyMS     float64  `json:"latency_ms"`
	Answer        string   `json:"answer"`
	// Samples is the number of samples when the scenario was sampled; the
	// input and output tokens, calls and latency are then the means over
	// them, unrounded (the context tokens are the representative run's).
	Samples int `json:"samples,omitempty"`
	// Unmeasured counts the runs (samples) left out of the figures because
	// they were stale or errored (Run.Measured): with all of them left
	// out, the figures are 0 and mean nothing.
	Unmeasured int `json:"unmeasured_runs,omitempty"`
}

// measured reports whether every run of the side was measured, so that
// its figures can be set against another side's.
func (s Side) measured() bool { return s.Unmeasured == 0 }

// figure is v, or "—" when no run of the side was measured.
func (s Side) figure(v string) string {
	if s.Unmeasured > 0 && s.Unmeasured >= max(1, s.Samples) {
		return "—"
	}
	return v
}

// Compared is one scenario under both variants.
type Compared struct {
	ID   string `json:"id"`
	Base Side   `json:"base"`
	Head Side   `json:"head"`
	// AnswerDiff is the first line that differs, "base → head", or "".
	AnswerDiff string `json:"answer_diff,omitempty"`
	Changed    bool   `json:"changed"`
	// Regressed is true when head is worse: a verdict no longer passes, a
	// correct route went wrong, or it spends more LLM calls, input tokens or
	// latency — for sampled scenarios, only by more than the noise, and
	// only when both sides measured every run (Side.Unmeasured).
	Regressed bool `json:"regressed"`
	// Noise compares the sampled metrics' means when either side was
	// sampled.
	Noise []Noise `json:"noise,omitempty"`
	// runs are the two scenario runs, for the step-by-step view of
	// WriteComparisonHTML.
	runs [2]Scenario
}

func side(sc Scenario) Side {
	s := Side{Verdict: sc.Verdict, Route: sc.Route, Tools: []string{}, InputTokens: float64(sc.Metrics.InputTokens),
		OutputTokens: float64(sc.Metrics.OutputTokens), ContextTokens: sc.Metrics.ContextTokens, LLMCalls: float64(sc.Metrics.LLMCalls),
		LatencyMS: float64(sc.Metrics.Latency.Microseconds()) / 1000, Answer: strings.Join(sc.Answer, "\n")}
	for _, e := range sc.Events {
		if e.Kind == trace.KindTool {
			s.Tools = append(s.Tools, e.Tool.Name)
		}
	}
	if !measured(sc.Verdict) {
		s.Unmeasured = 1
	}
	if sp := sc.Sampling; sp != nil {
		s.Samples, s.Unmeasured = sp.N, sp.Unmeasured()
		s.InputTokens = sp.Metrics[MetricInputTokens].Mean
		s.OutputTokens = sp.Metrics[MetricOutputTokens].Mean
		s.LLMCalls = sp.Metrics[MetricLLMCalls].Mean
		s.LatencyMS = sp.Metrics[MetricLatencyMS].Mean
	}
	return s
}

// samplesOf is a scenario's sampled metrics as intervals, and their count:
// a single run is an interval of width zero.
func samplesOf(sc Scenario) (map[string]Interval, int) {
	if sc.Sampling != nil {
		return sc.Sampling.Metrics, sc.Sampling.N
	}
	out := map[string]Interval{}
	for _, name := range sampledMetrics(sc) {
		v := metricOf(sc.Metrics, name)
		out[name] = Interval{Mean: v, Lo: v, Hi: v}
	}
	return out, 1
}

// scenarioNoise compares one scenario's sampled metrics by Welch's t.
func scenarioNoise(b, h Scenario) []Noise {
	if b.Sampling == nil && h.Sampling == nil {
		return nil
	}
	bm, nb := samplesOf(b)
	hm, nh := samplesOf(h)
	var out []Noise
	for _, name := range sampledMetrics(b, h) {
		out = append(out, welch(name, bm[name], hm[name], nb, nh))
	}
	return out
}

// summaryNoise compares the variants' means of each sampled metric over
// the scenarios both ran: the difference's standard error comes from the
// within-scenario variances of both sides.
func summaryNoise(bs, hs []Scenario) []Noise {
	sampled := false
	for i := range bs {
		sampled = sampled || bs[i].Sampling != nil || hs[i].Sampling != nil
	}
	if !sampled {
		return nil
	}
	var out []Noise
	for _, name := range sampledMetrics(append(append([]Scenario(nil), bs...), hs...)...) {
		mb, vb, db := pooled(bs, name)
		mh, vh, dh := pooled(hs, name)
		d := Noise{Metric: name, Base: mb, Head: mh, Delta: mh - mb}
		if se2 := vb + vh; se2 > 0 {
			d.HalfWidth = tCrit(db+dh) * math.Sqrt(se2)
			d.Beyond = math.Abs(d.Delta) > d.HalfWidth
		} else {
			d.Beyond = d.Delta != 0
		}
		out = append(out, d)
	}
	return out
}

// worse reports whether head is higher than base for a metric: beyond the
// noise when the row has noise figures, else by any amount.
func (r Compared) worse(metric string, base, head float64) bool {
	for _, n := range r.Noise {
		if n.Metric == metric {
			return n.Beyond && n.Delta > 0
		}
	}
	return head > base
}

// CompareVariants compares head with base over the scenarios both ran, in
// base's order.
func CompareVariants(suite string, base, head *Variant, baseLabel, headLabel string) Comparison {
	c := Comparison{Suite: suite, Base: baseLabel, Head: headLabel, Rows: []Compared{}}
	byID := map[string]Scenario{}
	for _, sc := range head.Scenarios {
		byID[sc.ID] = sc
	}
	var bs, hs []Scenario
	for _, b := range base.Scenarios {
		h, ok := byID[b.ID]
		if !ok {
			continue
		}
		bs, hs = append(bs, b), append(hs, h)
		row := Compared{ID: b.ID, Base: side(b), Head: side(h), AnswerDiff: firstDiff(side(b).Answer, side(h).Answer), runs: [2]Scenario{b, h}}
		// Figures are set side by side only when both sides measured every
		// run: a stale run's 0 tokens are no saving, nor a regression.
		figures := row.Base.measured() && row.Head.measured()
		if figures {
			row.Noise = scenarioNoise(b, h)
		}
		row.Changed = row.Base.Verdict != row.Head.Verdict || row.Base.Route != row.Head.Route ||
			!slices.Equal(row.Base.Tools, row.Head.Tools) || row.Base.InputTokens != row.Head.InputTokens ||
			row.Base.OutputTokens != row.Head.OutputTokens || row.Base.LLMCalls != row.Head.LLMCalls ||
			row.Base.LatencyMS != row.Head.LatencyMS || row.AnswerDiff != ""
		row.Regressed = b.Verdict == VerdictPass && h.Verdict != VerdictPass ||
			b.RouteCorrect() && !h.RouteCorrect() ||
			figures && (row.worse(MetricLLMCalls, row.Base.LLMCalls, row.Head.LLMCalls) ||
				row.worse(MetricInputTokens, row.Base.InputTokens, row.Head.InputTokens) ||
				row.worse(MetricLatencyMS, row.Base.LatencyMS, row.Head.LatencyMS))
		c.Rows = append(c.Rows, row)
	}
	c.BaseSummary, c.HeadSummary = Summarize(bs), Summarize(hs)
	// Goodput needs the suite's budget, which only the variants' own
	// summaries had: kept when every scenario of both is compared.
	if len(bs) == len(base.Scenarios) && len(hs) == len(head.Scenarios) {
		keepGoodput(&c.BaseSummary, base.Summary)
		keepGoodput(&c.HeadSummary, head.Summary)
	}
	if Unmeasured(c.BaseSummary, c.HeadSummary) == "" {
		c.Noise = summaryNoise(bs, hs)
	}
	return c
}

// Compare pairs the suites and variants two reports share, in base's order.
func Compare(base, head *Report, baseName, headName string) []Comparison {
	var out []Comparison
	for _, bs := range base.Suites {
		for _, hsuite := range head.Suites {
			if hsuite.Name != bs.Name {
				continue
			}
			for i := range bs.Variants {
				for j := range hsuite.Variants {
					if hsuite.Variants[j].Name == bs.Variants[i].Name {
						out = append(out, CompareVariants(bs.Name, &bs.Variants[i], &hsuite.Variants[j],
							baseName+":"+bs.Variants[i].Name, headName+":"+hsuite.Variants[j].Name))
					}
				}
			}
		}
	}
	return out
}

// firstDiff returns the first differing line of two answers, or "".
func firstDiff(a, b string) string {
	if a == b {
		return ""
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: %q → %q", i+1, clipRunes(x, 70), clipRunes(y, 70))
		}
	}
	return ""
}

func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// keepGoodput copies own's goodput into s.
func keepGoodput(s *Summary, own Summary) {
	if s.Streaming != nil && own.Streaming != nil {
		s.Streaming.Goodput = own.Streaming.Goodput
	}
}
