package report

import (
	"math"
	"sort"
	"strings"
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
	var llm, tools, in, out, raw, ctx float64
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
		tools += float64(m.ToolCalls)
		in += float64(m.InputTokens)
		out += float64(m.OutputTokens)
		raw += float64(m.RawTokens)
		ctx += float64(m.ContextTokens)
		lat = append(lat, float64(m.Latency.Microseconds())/1000)
	}
	n := float64(len(scs))
	s.PassRate = float64(s.Passed) / n
	if s.Routed > 0 {
		s.RoutingAccuracy = float64(correct) / float64(s.Routed)
	}
	s.LLMCallsMean, s.ToolCallsMean = llm/n, tools/n
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

func rank(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
