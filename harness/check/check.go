// Package check judges runs: it compares an agent's replies and trace events
// with a scenario's expectations (Turn), and a variant's summary with the
// suite's thresholds (Thresholds).
//
// Every function here is pure: it takes what was observed and what was
// expected and returns report.Check or report.Threshold values whose Detail
// says, for a failure, what was wanted and what was seen. It does not run
// agents, read files or decide verdicts; package runner does that.
package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// Turn checks the reply to user turn turn (0-based) against exp, using that
// turn's events (see trace.OfTurn). It returns one Check per expectation that
// is set, in this order: "route", "tools", "args", "answer.contains",
// "answer.not_contains", "answer.matches", "answer.language", "jq[0]"…,
// "llm_calls", "tool_calls", "budget.latency", "budget.input_tokens",
// "budget.context_tokens", "budget.token_reduction". Unset expectations give
// no Check. A failing Check's Detail states what was wanted and what was got.
// Regular expressions are compiled through res (nil: every time).
func Turn(turn int, exp scenario.Expect, reply agents.Reply, events []trace.Event, res *Regexps) []report.Check {
	var out []report.Check
	add := func(name string, detail string) {
		out = append(out, report.Check{Turn: turn, Name: name, Pass: detail == "", Detail: detail})
	}
	if exp.Route != nil {
		add("route", checkRoute(exp.Route, events))
	}
	if exp.Tools != nil {
		add("tools", checkTools(exp.Tools, toolNames(events)))
	}
	if len(exp.MustCall) > 0 {
		add("must_call", checkMustCall(exp.MustCall, toolNames(events)))
	}
	if exp.Chart != nil {
		add("chart", checkChart(exp.Chart, events))
	}
	if len(exp.Forbid) > 0 {
		add("forbid", checkForbid(res, exp.Forbid, reply.Text))
	}
	if len(exp.Args) > 0 {
		tool := ""
		if exp.Route != nil {
			tool = exp.Route.Tool
		}
		add("args", checkArgs(exp.Args, exp.Tolerance, tool, events))
	}
	if a := exp.Answer; a != nil {
		if len(a.Contains) > 0 {
			add("answer.contains", checkContains(a.Contains, reply.Text))
		}
		if len(a.NotContains) > 0 {
			add("answer.not_contains", checkNotContains(a.NotContains, reply.Text))
		}
		if a.Matches != "" {
			add("answer.matches", checkMatches(res, a.Matches, reply.Text))
		}
		if a.Language != "" {
			add("answer.language", checkLanguage(a.Language, reply.Text))
		}
	}
	if len(exp.JQ) > 0 {
		in, err := jqInputs(reply, events, exp.JQ)
		for i, expr := range exp.JQ {
			name := fmt.Sprintf("jq[%d]", i)
			if err != nil {
				add(name, err.Error())
				continue
			}
			add(name, checkJQ(expr, in))
		}
	}
	m := trace.Measure(events)
	if exp.LLMCalls != nil {
		add("llm_calls", checkCount(*exp.LLMCalls, m.LLMCalls, "LLM call"))
	}
	if exp.ToolCalls != nil {
		add("tool_calls", checkCount(*exp.ToolCalls, m.ToolCalls, "tool call"))
	}
	if b := exp.Budget; b != nil {
		if b.Latency > 0 {
			d := ""
			if m.Latency > b.Latency {
				d = fmt.Sprintf("want latency <= %s, got %s", b.Latency, m.Latency.Round(time.Millisecond))
			}
			add("budget.latency", d)
		}
		if b.InputTokens > 0 {
			d := ""
			if m.InputTokens > b.InputTokens {
				d = fmt.Sprintf("want input tokens <= %d, got %d", b.InputTokens, m.InputTokens)
			}
			add("budget.input_tokens", d)
		}
		if b.ContextTokens > 0 {
			d := ""
			if m.ContextTokens > b.ContextTokens {
				d = fmt.Sprintf("want context tokens <= %d, got %d", b.ContextTokens, m.ContextTokens)
			}
			add("budget.context_tokens", d)
		}
		if b.TokenReduction > 0 {
			d := ""
			if r := m.TokenReduction(); r < b.TokenReduction {
				d = fmt.Sprintf("want token reduction >= %s, got %s (%d raw tokens, %d in context)",
					percent(b.TokenReduction), percent(r), m.RawTokens, m.ContextTokens)
			}
			add("budget.token_reduction", d)
		}
	}
	return out
}

// checkCount compares a count of things named noun.
func checkCount(want, got int, noun string) string {
	if want == got {
		return ""
	}
	return fmt.Sprintf("want %s, got %d", report.Count(want, noun), got)
}

// toolNames returns the names of the executed tools, in order.
func toolNames(events []trace.Event) []string {
	var names []string
	for _, e := range events {
		if e.Kind == trace.KindTool && e.Tool != nil {
			names = append(names, e.Tool.Name)
		}
	}
	return names
}

// checkTools compares executed tool names with a ToolSequence. An empty
// Match means "exact".
func checkTools(exp *scenario.ToolSequence, got []string) string {
	var problems []string
	switch exp.Match {
	case "", "exact":
		if !slices.Equal(exp.Names, got) {
			problems = append(problems, fmt.Sprintf("want exactly %s", list(exp.Names)))
		}
	case "ordered":
		if i := subsequence(exp.Names, got); i >= 0 {
			problems = append(problems, fmt.Sprintf("want %s in this order, %s missing after %s",
				list(exp.Names), exp.Names[i], list(exp.Names[:i])))
		}
	case "subset":
		var missing []string
		for _, n := range exp.Names {
			if !slices.Contains(got, n) {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("want %s in any order, missing %s", list(exp.Names), list(missing)))
		}
	default:
		problems = append(problems, fmt.Sprintf("unknown match %q (want exact, ordered or subset)", exp.Match))
	}
	var called []string
	for _, n := range exp.NotCall {
		if slices.Contains(got, n) {
			called = append(called, n)
		}
	}
	if len(called) > 0 {
		problems = append(problems, fmt.Sprintf("want no call to %s", list(called)))
	}
	if len(problems) == 0 {
		return ""
	}
	return strings.Join(problems, "; ") + ", got " + list(got)
}

// subsequence returns -1 when want appears in got in order (not necessarily
// adjacent), or else the index in want of the first name not found.
func subsequence(want, got []string) int {
	i := 0
	for _, g := range got {
		if i < len(want) && want[i] == g {
			i++
		}
	}
	if i == len(want) {
		return -1
	}
	return i
}

// list formats names as "[a, b]", or "no tools" when there are none.
func list(names []string) string {
	if len(names) == 0 {
		return "no tools"
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// percent formats a fraction as a percentage with one decimal.
func percent(f float64) string {
	return fmt.Sprintf("%.1f%%", f*100)
}
