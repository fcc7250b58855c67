package policy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
)

// What a policy is told. Every policy that obeys an instruction reads it
// here, from the request's system prompt (and, for hints, its other
// messages), through package instruct; when the prompt does not state
// it, the policy does what the form's default says (instruct.Forms).

// InstructionsOf reads what r's system prompt instructs, with the names of
// the tools r offers.
func InstructionsOf(r Request) instruct.Set {
	return instruct.Read(r.System(), ToolNames(r.Tools))
}

// HintsOf reads what the messages after the system prompt instruct: the
// notes a framework puts in tool results and injected messages ("use the
// 'x' tool to …").
func HintsOf(r Request) instruct.Set {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool || m.Role == llm.RoleUser {
			b.WriteString(m.Content)
			b.WriteString("\n")
		}
	}
	return instruct.Read(b.String(), ToolNames(r.Tools))
}

// ToolNames are the names of tools, in order.
func ToolNames(tools []llm.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// RoutedTo reports whether a route of s targets tool.
func RoutedTo(s instruct.Set, tool string) bool {
	for _, rt := range s.Routes {
		if rt.Target == tool {
			return true
		}
	}
	return false
}

// Precedes reports whether tool a comes before tool b: by a stated
// ordering, else (the default) by the order the request lists them.
func Precedes(ins instruct.Set, tools []llm.Tool, a, b string) bool {
	if before, stated := ins.Precedes(a, b); stated {
		return before
	}
	ia, ib := -1, -1
	for i, t := range tools {
		switch t.Name {
		case a:
			ia = i
		case b:
			ib = i
		}
	}
	return ia >= 0 && ia < ib
}

var exampleRe = regexp.MustCompile(`^(-?\d+)(?:\.(\d+))?(.*)$`)

// Formatted writes v as format f writes it: with the decimals and the
// suffix of the example whose qualifier names unit (else the first
// example). Without a format (the default) it is the value as the data
// has it, then the data's unit word.
func Formatted(f instruct.Format, ok bool, v float64, unit string) string {
	if ok {
		ex := f.Examples[0]
		for _, e := range f.Examples {
			if unit != "" && strings.Contains(strings.ToLower(e.Qualifier), strings.ToLower(unit)) {
				ex = e
			}
		}
		if m := exampleRe.FindStringSubmatch(ex.Text); m != nil {
			return fmt.Sprintf("%.*f", len(m[2]), v) + m[3]
		}
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if unit != "" {
		s += " " + unit
	}
	return s
}

// onlyWhen is the condition a call-only-when rule of s sets on calling
// tool ("call X only when C", "do not call X unless C"), and whether one
// does.
func onlyWhen(s instruct.Set, tool string) (string, bool) {
	for _, rt := range s.Routes {
		if rt.Only && rt.Target == tool {
			return rt.When, true
		}
	}
	return "", false
}

// Holds reports whether the question q says what condition when speaks
// of: a concept of the lexicon both name, the condition read in its own
// language (so "sourced" is not the French "source*") and its negated
// parts ("not for …") left out, the question in any. The prepositions a
// place follows (markers) are no topic: a condition and a question that
// both say "to" share nothing.
func Holds(when string, q lexicon.Text) bool {
	when = negation.ReplaceAllString(when, "")
	c, lang := lexicon.Read(when), lexicon.UserLanguage(when)
	for _, concept := range lexicon.ConceptNames() {
		if markers[concept] {
			continue
		}
		if c.HasIn(concept, lang) && q.Has(concept) {
			return true
		}
	}
	return false
}

// markers are the lexicon's concepts of prepositions that come before a
// place.
var markers = map[string]bool{"from_place": true, "to_place": true, "in_place": true}

// MayCall reports whether a tool whose purpose the question says (by the
// lexicon: fits) may be called for q: when the prompt sets a condition on
// calling it, by that condition alone, else (the default) whenever its
// purpose fits.
func MayCall(ins instruct.Set, tool string, q lexicon.Text, fits bool) bool {
	if when, ok := onlyWhen(ins, tool); ok {
		return Holds(when, q)
	}
	return fits
}
