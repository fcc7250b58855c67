package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// reduced reports whether v's token reduction is a figure: a tool call of
// a run it measured had a raw payload, as Summarize's TokenReduction is
// 1 − context/raw over them. A reduction of exactly 0% (payloads put into
// the context whole) is one; a variant whose tools passed no payload, or
// whose only tool calls were in runs not measured, has none ("—").
func reduced(v *Variant) bool {
	return slices.ContainsFunc(v.Trimming, func(t ToolTrim) bool { return t.RawTokens > 0 })
}

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
		tools = append(tools, fmt.Sprintf("%s (raw %d → context %d tokens over %s)", t.Tool, t.RawTokens, t.ContextTokens, Count(t.Calls, "call")))
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

// none reports whether no call of t was measured: every run that called
// the tool was stale or errored, so it has no figure.
func (t ToolTrim) none() bool { return t.Calls == 0 && t.Unmeasured > 0 }

// MarshalJSON writes t with its figures (raw_tokens, context_tokens,
// reduction) null when none of its calls was measured, beside the counts
// that say why (calls 0, unmeasured_runs), as Spend writes a cost no run
// measured: never a 0 that nothing measured. A null reads back as 0.
func (t ToolTrim) MarshalJSON() ([]byte, error) {
	type fields ToolTrim // without this method
	if !t.none() {
		return wire.MarshalPlain(fields(t))
	}
	return wire.MarshalPlain(struct {
		Tool          string   `json:"tool"`
		Calls         int      `json:"calls"`
		RawTokens     *int     `json:"raw_tokens"`
		ContextTokens *int     `json:"context_tokens"`
		Reduction     *float64 `json:"reduction"`
		Unmeasured    int      `json:"unmeasured_runs"`
	}{Tool: t.Tool, Unmeasured: t.Unmeasured})
}

// trimmingSection compares the variants' payload trimming per tool, with a
// total per variant, over the runs that were measured: a note says how
// many a variant left out, and a row of a tool only they called says it
// was not measured.
func trimmingSection(order []*Variant, base *Variant, without []string) (section, bool) {
	sec := section{title: "payload trimming by tool", table: table{
		header: []string{"variant", "tool", "calls", "raw tok", "context tok", "reduction"},
		right:  []bool{false, false, true, true, true, true},
		wrap:   []bool{false, true, false, false, false, false},
	}}
	row := func(variant string, t ToolTrim) []string {
		if t.none() {
			return []string{variant, t.Tool, "—", "—", "—", "not measured"}
		}
		cell := "—"
		if t.RawTokens != 0 {
			cell = percent(t.Reduction)
		}
		return []string{variant, t.Tool, strconv.Itoa(t.Calls), strconv.Itoa(t.RawTokens), strconv.Itoa(t.ContextTokens), cell}
	}
	for _, v := range order {
		if len(v.Trimming) == 0 {
			continue
		}
		for _, t := range v.Trimming {
			sec.table.rows = append(sec.table.rows, row(v.Name, t))
		}
		all := trimTotal(v.Trimming, "total", func(string) bool { return true })
		sec.table.rows = append(sec.table.rows, row(v.Name, all))
		if n := overMeasured(v.Name, v.Summary.Measured(), max(v.Summary.Runs, v.Summary.Scenarios), "run"); n != "" {
			sec.notes = append(sec.notes, note{mark: "⚠", text: n + ": their tool calls are left out"})
		}
		if base != nil && v != base && all.RawTokens != 0 {
			if c, b := v.Spend(), base.Spend(); c.Whole() && b.Whole() {
				sec.notes = append(sec.notes, note{text: fmt.Sprintf("%s: %s fewer payload tokens; %s per scenario run against %s for %s (%s)",
					v.Name, percent(all.Reduction), c.Short(), b.Short(), base.Name, costDelta(b.Mean, c.Mean))})
			}
		}
		if w := ReductionWarning(v); w != "" {
			sec.notes = append(sec.notes, note{mark: "⚠", text: v.Name + ": " + w})
		}
		if len(without) > 0 {
			sec.table.rows = append(sec.table.rows, row(v.Name, trimTotal(v.Trimming, "total without "+strings.Join(without, ", "),
				func(tool string) bool { return !slices.Contains(without, tool) })))
		}
	}
	return sec, len(sec.table.rows) > 0
}

// trimTotal adds up the trims whose tool keep keeps into one named tool;
// its Unmeasured is the most of any of them (a run may call several).
func trimTotal(trims []ToolTrim, name string, keep func(tool string) bool) ToolTrim {
	sum := ToolTrim{Tool: name}
	for _, t := range trims {
		if keep(t.Tool) {
			sum.Calls, sum.RawTokens, sum.ContextTokens = sum.Calls+t.Calls, sum.RawTokens+t.RawTokens, sum.ContextTokens+t.ContextTokens
			sum.Unmeasured = max(sum.Unmeasured, t.Unmeasured)
		}
	}
	sum.Reduction = reduction(sum.RawTokens, sum.ContextTokens)
	return sum
}
