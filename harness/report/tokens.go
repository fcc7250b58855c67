package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

// tokenSection lays out the input tokens by part, counted with the suite's
// encoding, beside the provider's own count, over the runs that were
// measured (a note says how many were not); for a provider other than
// OpenAI a note says the counts are estimates, and the provider's cache
// reads and writes are shown when it reported any. When a provider
// reported thinking tokens, a note gives them as their own part of its
// reported output.
func tokenSection(order []*Variant, tokenizer string) section {
	sec := section{title: "input tokens by part (mean per scenario)", table: table{
		header: []string{"variant", "system", "tools", "history", "tool_results", "user", "overhead", "total", "provider-reported"},
		right:  []bool{false, true, true, true, true, true, true, true, true},
	}}
	var estimated, thinking []string
	for _, v := range order {
		if v.Provider != "" && v.Provider != "openai" {
			estimated = append(estimated, v.Name+" ("+v.Provider+")")
		}
		var sum trace.Parts
		reported, read, write, output, reasoning := 0, 0, 0, 0, 0
		measured := measuredRuns(v)
		for _, run := range measured {
			m := run.Metrics
			sum = sum.Add(m.Input)
			reported += m.ReportedInput
			read += m.ReportedCacheRead
			write += m.ReportedCacheWrite
			output += m.ReportedOutput
			reasoning += m.ReportedReasoning
		}
		mean := func(n int) string {
			switch {
			case len(measured) > 0:
				return strconv.FormatFloat(float64(n)/float64(len(measured)), 'f', 0, 64)
			case len(v.Scenarios) > 0:
				return "—" // none measured
			}
			return "0"
		}
		rep := "—"
		if reported > 0 {
			rep = mean(reported)
		}
		if read+write > 0 {
			rep += " (cache: " + mean(read) + " read, " + mean(write) + " written)"
		}
		if reasoning > 0 {
			thinking = append(thinking, v.Name+" "+mean(output)+" = "+mean(output-reasoning)+" answer + "+mean(reasoning)+" thinking")
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name,
			mean(sum.System), mean(sum.Tools), mean(sum.History), mean(sum.ToolResults),
			mean(sum.User), mean(sum.Overhead), mean(sum.Total()), rep})
		if n := overMeasured(v.Name, len(measured), max(v.Summary.Runs, v.Summary.Scenarios), "run"); n != "" {
			sec.notes = append(sec.notes, note{mark: "⚠", text: n})
		}
	}
	if len(estimated) > 0 {
		sec.notes = append(sec.notes, note{text: fmt.Sprintf(
			"%s: the parts and total are estimates with %s, not the model's own tokenizer; provider-reported is the count the endpoint returned, prompt-cache reads and writes included (a stand-in counts with o200k_base)",
			strings.Join(estimated, ", "), tokenizer)})
	}
	if len(thinking) > 0 {
		sec.notes = append(sec.notes, note{text: "provider-reported output tokens (mean per scenario), thinking as its own part: " + strings.Join(thinking, "; ")})
	}
	return sec
}

// roleSection totals the LLM calls of each variant by role, over the runs
// that were measured (a note says how many were not).
func roleSection(order []*Variant) (section, bool) {
	sec := section{title: "LLM calls by role (total)", table: table{
		header: []string{"variant", "role", "calls", "in tok", "out tok", "latency"},
		right:  []bool{false, false, true, true, true, true},
	}}
	for _, v := range order {
		roles := map[string]trace.Role{}
		measured := measuredRuns(v)
		for _, run := range measured {
			for name, r := range run.Metrics.Roles {
				sum := roles[name]
				sum.Calls += r.Calls
				sum.InputTokens += r.InputTokens
				sum.OutputTokens += r.OutputTokens
				sum.Latency += r.Latency
				roles[name] = sum
			}
		}
		names := make([]string, 0, len(roles))
		for name := range roles {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			r := roles[name]
			sec.table.rows = append(sec.table.rows, []string{v.Name, name,
				strconv.Itoa(r.Calls), strconv.Itoa(r.InputTokens), strconv.Itoa(r.OutputTokens), ms(r.Latency)})
		}
		shown := len(names) > 0
		if !shown && slices.ContainsFunc(v.Scenarios, func(sc Scenario) bool { return len(sc.Metrics.Roles) > 0 }) {
			// only runs that were not measured called a model by role
			sec.table.rows = append(sec.table.rows, []string{v.Name, "—", "—", "—", "—", "not measured"})
			shown = true
		}
		if n := overMeasured(v.Name, len(measured), max(v.Summary.Runs, v.Summary.Scenarios), "run"); n != "" && shown {
			sec.notes = append(sec.notes, note{mark: "⚠", text: n})
		}
	}
	return sec, len(sec.table.rows) > 0
}
