package report

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

// RouteCorrect reports whether the observed route matches the expected one:
// equal, or the same mode when no tool was expected.
func (s Scenario) RouteCorrect() bool {
	if s.ExpectedRoute == "" {
		return false
	}
	if s.Route == s.ExpectedRoute {
		return true
	}
	return !strings.Contains(s.ExpectedRoute, ":") && strings.SplitN(s.Route, ":", 2)[0] == s.ExpectedRoute
}

// Summarize aggregates scenario results. Latency percentiles use the
// nearest-rank method.
func Summarize(scs []Scenario) Summary {
	s := Summary{Scenarios: len(scs)}
	if len(scs) == 0 {
		return s
	}
	var llm, tools, in, out, raw, ctx, prompt float64
	correct := 0
	lat := make([]float64, 0, len(scs))
	for _, sc := range scs {
		if sc.Verdict == VerdictPass {
			s.Passed++
		}
		if sc.ExpectedRoute != "" {
			s.Routed++
			if sc.RouteCorrect() {
				correct++
			}
		}
		m := sc.Metrics
		llm += float64(m.LLMCalls)
		prompt += float64(m.Input.System + m.Input.Tools)
		tools += float64(m.ToolCalls)
		in += float64(m.InputTokens)
		out += float64(m.OutputTokens)
		raw += float64(m.RawTokens)
		ctx += float64(m.ContextTokens)
		lat = append(lat, float64(m.Latency.Microseconds())/1000)
		for _, e := range sc.Events {
			if e.Kind == trace.KindNote && e.Note.Key == "artifact" {
				s.Artifacts++
			}
		}
	}
	n := float64(len(scs))
	s.PassRate = float64(s.Passed) / n
	if s.Routed > 0 {
		s.RoutingAccuracy = float64(correct) / float64(s.Routed)
	}
	s.LLMCallsMean, s.ToolCallsMean = llm/n, tools/n
	if llm > 0 {
		s.PromptTokensPerCall = prompt / llm
	}
	s.InputTokensMean, s.OutputTokensMean = in/n, out/n
	if raw > 0 {
		s.TokenReduction = 1 - ctx/raw
	}
	sort.Float64s(lat)
	var sum float64
	for _, v := range lat {
		sum += v
	}
	s.LatencyMean = sum / n
	s.LatencyP50, s.LatencyP95, s.LatencyP99 = rank(lat, 0.50), rank(lat, 0.95), rank(lat, 0.99)
	return s
}

// Confusion counts, over the scenarios with an ExpectedRoute, each
// (expected, observed) pair of routes (Scenario.ExpectedRoute and
// Scenario.Route) — for tool-calling agents the route is "tool:<first tool
// called>" or "answer" — sorted by expected then observed. An observed
// route is "" when nothing was routed. It returns nil when no scenario
// expects a route.
func Confusion(scs []Scenario) []ConfusionCell {
	counts := map[ConfusionCell]int{}
	for _, sc := range scs {
		if sc.ExpectedRoute != "" {
			counts[ConfusionCell{Expected: sc.ExpectedRoute, Observed: sc.Route}]++
		}
	}
	if len(counts) == 0 {
		return nil
	}
	cells := make([]ConfusionCell, 0, len(counts))
	for c, n := range counts {
		c.Count = n
		cells = append(cells, c)
	}
	slices.SortFunc(cells, func(a, b ConfusionCell) int {
		return cmp.Or(cmp.Compare(a.Expected, b.Expected), cmp.Compare(a.Observed, b.Observed))
	})
	return cells
}

// Trimming sums, per tool name, the calls, RawTokens and ContextTokens of
// the KindTool events in the scenarios' Events, with Reduction = 1 −
// context/raw (0 when raw is 0), sorted by tool name. It returns nil when
// there are no tool events.
func Trimming(scs []Scenario) []ToolTrim {
	byTool := map[string]ToolTrim{}
	for _, sc := range scs {
		for _, e := range sc.Events {
			if e.Kind != trace.KindTool || e.Tool == nil {
				continue
			}
			t := byTool[e.Tool.Name]
			t.Tool = e.Tool.Name
			t.Calls++
			t.RawTokens += e.Tool.RawTokens
			t.ContextTokens += e.Tool.ContextTokens
			byTool[e.Tool.Name] = t
		}
	}
	if len(byTool) == 0 {
		return nil
	}
	trims := make([]ToolTrim, 0, len(byTool))
	for _, t := range byTool {
		t.Reduction = reduction(t.RawTokens, t.ContextTokens)
		trims = append(trims, t)
	}
	slices.SortFunc(trims, func(a, b ToolTrim) int { return cmp.Compare(a.Tool, b.Tool) })
	return trims
}

// reduction is 1 − context/raw, or 0 when raw is 0.
func reduction(raw, context int) float64 {
	if raw == 0 {
		return 0
	}
	return 1 - float64(context)/float64(raw)
}

func rank(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
