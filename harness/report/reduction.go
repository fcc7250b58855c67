package report

import (
	"fmt"
	"slices"
	"strings"
)

// ReductionWarning explains a negative token reduction of v, or is "" when
// its reduction is not negative: the tool results put into the model's
// context hold more tokens than the payloads they came from, and it names
// the tools whose context outgrew their raw payload, the largest growth
// first. An agent that wraps, annotates or explains what its tools
// returned (or reports a short error at length) grows its context so;
// trimming is then not what the figure measures.
func ReductionWarning(v *Variant) string {
	s := v.Summary
	if s.TokenReduction >= 0 {
		return ""
	}
	grown := slices.Clone(v.Trimming)
	grown = slices.DeleteFunc(grown, func(t ToolTrim) bool { return t.ContextTokens <= t.RawTokens })
	slices.SortStableFunc(grown, func(a, b ToolTrim) int {
		return (b.ContextTokens - b.RawTokens) - (a.ContextTokens - a.RawTokens)
	})
	var tools []string
	for _, t := range grown[:min(len(grown), 4)] {
		tools = append(tools, fmt.Sprintf("%s (raw %d → context %d tokens over %s)", t.Tool, t.RawTokens, t.ContextTokens, count(t.Calls, "call")))
	}
	if len(grown) > 4 {
		tools = append(tools, fmt.Sprintf("%d more", len(grown)-4))
	}
	text := fmt.Sprintf("token reduction is %s: the tool results the agent put into the model's context hold more tokens than the raw payloads they came from, so the figure measures growth, not trimming",
		percent(s.TokenReduction))
	if len(tools) > 0 {
		text += "; grown: " + strings.Join(tools, ", ")
	}
	return text
}
