package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/scenario"
)

// executor is an agent that lists every tool it executes, the model's
// and those its own code runs.
type executor interface {
	Tools() []string
}

// Tools returns the tools an expectation of agent a may name: those it
// lists if it has a Tools() []string method, else the tools its model has
// under some prompt, in order of first mention.
func Tools(a agents.Prompted) []string {
	if e, ok := a.(executor); ok {
		return e.Tools()
	}
	var out []string
	for _, set := range a.PromptSets() {
		for _, t := range set.Active {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Expectations returns every tool that an expectation of suite s names
// (route.tool, tools.names, tools.not_call, must_call; args are checked
// against route.tool's call) that is not in tools, the tool set of s's
// agent under variant, each at the line of the expectation that names it.
func Expectations(s *scenario.Suite, variant string, tools []string) []Problem {
	var out []Problem
	for _, sc := range s.Scenarios {
		for i, t := range sc.Turns {
			o, overridden := t.Overrides[variant]
			check := func(field string, set bool, names ...string) {
				line := t.Expect.Line
				if overridden && set {
					line = o.Line
				}
				for _, n := range names {
					if n == "" || slices.Contains(tools, n) {
						continue
					}
					path := s.Path
					if sc.File != "" {
						path = sc.File // a row of a data file
					}
					out = append(out, Problem{
						Suite: s.Name, Variant: variant, Agent: s.Agent, Path: path, Line: line,
						Tool: n, Field: expectField(sc, i, field), Known: tools,
					})
				}
			}
			e := t.ExpectFor(variant)
			if e.Route != nil {
				check("route.tool", o.Route != nil, e.Route.Tool)
			}
			if e.Tools != nil && !unknownTool(sc) {
				check("tools", o.Tools != nil, e.Tools.Names...)
			}
			if e.Tools != nil {
				check("tools.not_call", o.Tools != nil, e.Tools.NotCall...)
			}
			check("must_call", o.MustCall != nil, e.MustCall...)
		}
	}
	return out
}

// unknownTool reports whether sc makes the model call a tool the agent
// does not have (the stand-in's unknown_tool fault), which its
// expectations then name.
func unknownTool(sc scenario.Scenario) bool {
	return slices.ContainsFunc(sc.Faults, func(f scenario.FaultRule) bool { return f.Kind == "unknown_tool" })
}

// expectField names the expectation field of turn i of sc for a message.
func expectField(sc scenario.Scenario, i int, field string) string {
	if len(sc.Turns) > 1 {
		return fmt.Sprintf("scenario %s turn %d: expect.%s", sc.ID, i+1, field)
	}
	return fmt.Sprintf("scenario %s: expect.%s", sc.ID, field)
}

// expectString is Problem.String for a tool an expectation names.
func (p Problem) expectString() string {
	msg := fmt.Sprintf("%s:%d: %s names tool %q, which variant %s of agent %s does not have", p.Path, p.Line, p.Field, p.Tool, p.Variant, p.Agent)
	if near := nearestTool(p.Tool, p.Known); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return msg + fmt.Sprintf(" (its tools: %s)", strings.Join(p.Known, ", "))
}

// nearestTool is the tool in known within two edits of name, or "".
func nearestTool(name string, known []string) string {
	best, dist := "", 3
	for _, k := range known {
		if d := levenshtein.ComputeDistance(name, k); d < dist {
			best, dist = k, d
		}
	}
	return best
}
