package generic

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// How the generic policy chains two tools, as a weak model does when a
// tool it wants needs a value the user did not give: it calls first a tool
// that can supply the value, then the tool it wanted, with the value read
// from the first one's result. It decides from the request alone:
//
//   - A required property is missing when the conversation cannot fill it:
//     a string that would take the whole message, when its name says it is
//     an identifier (genericIDWords) or its schema gives a pattern or the
//     uuid format; a number or integer with no number of the message left
//     and no default or minimum. A value in an earlier tool result whose
//     key is the property's name fills it (see argText.fromResults).
//   - A supplier of a missing property is another tool that does not
//     itself require a property of that name, scored against the
//     property's name and description: 2 per term of the supplier's name,
//     1 per further term of its description, and 3 when the property's
//     description names the supplier. The best one scoring at least
//     genericMinScore is called first (the first in the request's order on
//     a tie).
//   - When the results of the current turn hold no call of the tool the
//     message asks for, and that tool's missing properties are now filled
//     from them, it is called next; else the policy answers from the
//     results. So a turn has at most two rounds of tool calls.

// genericIDWords name string properties that want an identifier, which
// the message's whole text never is.
var genericIDWords = lexicon.SetOf([]string{"id", "ids", "identifier", "code", "key", "ref", "reference", "symbol", "slug", "uuid", "handle"})

// missing returns the required properties of tool that the conversation
// in t cannot fill.
func missing(tool llm.Tool, t *argText) []string {
	probe := *t
	probe.numbers = slices.Clone(t.numbers)
	probe.missing = nil
	fillObject(policy.SchemaOf(tool.Parameters), &probe, false, 0)
	return probe.missing
}

// wantsID reports whether the string property name of schema s wants an
// identifier.
func wantsID(name string, s map[string]any) bool {
	if _, ok := s["pattern"]; ok {
		return true
	}
	if f, _ := s["format"].(string); f == "uuid" {
		return true
	}
	for _, w := range lexicon.Words(name) {
		if genericIDWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// supplier is the tool of tools, other than target, that can best supply
// the property name of target (see the top of this file).
func supplier(tools []llm.Tool, target llm.Tool, name string) (llm.Tool, bool) {
	props, _ := policy.SchemaOf(target.Parameters)["properties"].(map[string]any)
	ps, _ := props[name].(map[string]any)
	desc, _ := ps["description"].(string)
	want := lexicon.Terms(strings.ReplaceAll(name, "_", " ") + " " + desc)
	best, score := -1, genericMinScore-1
	for i, s := range tools {
		if s.Name == target.Name || requires(s, name) {
			continue
		}
		nameTerms := lexicon.Terms(s.Name)
		descTerms := lexicon.Terms(s.Description)
		for w := range nameTerms {
			delete(descTerms, w)
		}
		n := 2*lexicon.Overlap(want, nameTerms) + lexicon.Overlap(want, descTerms)
		if desc != "" && strings.Contains(desc, s.Name) {
			n += 3
		}
		if n > score {
			best, score = i, n
		}
	}
	if best < 0 {
		return llm.Tool{}, false
	}
	return tools[best], true
}

// requires reports whether tool requires a property called name.
func requires(tool llm.Tool, name string) bool {
	req, _ := policy.SchemaOf(tool.Parameters)["required"].([]any)
	return slices.Contains(req, any(name))
}

// calledSinceUser returns the names of the tools r's agent called after
// the last user message (not another agent's handoff: ownCall).
func calledSinceUser(r policy.Request) []string {
	var out []string
	for _, m := range r.Messages {
		switch m.Role {
		case llm.RoleUser:
			out = nil
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				if ownCall(r, c.Name) {
					out = append(out, c.Name)
				}
			}
		}
	}
	return out
}

// resultLeaves returns the scalar values of every tool result in msgs,
// the latest result first.
func resultLeaves(msgs []llm.Message) []leaf {
	var out []leaf
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == llm.RoleTool && json.Valid([]byte(m.Content)) {
			out = append(out, flatten(m.Content)...)
		}
	}
	return out
}

// fromResults is the value of the latest tool result whose key, or dotted
// path, is name once case, underscores, dashes and dots are dropped
// ("flight_id" matches "flightId" and "flight.id").
func (t *argText) fromResults(name string) (string, bool) {
	want := squash(name)
	for _, l := range t.leaves {
		last := l.path[strings.LastIndex(l.path, ".")+1:]
		if squash(last) == want || squash(l.path) == want {
			return l.value, true
		}
	}
	return "", false
}

// squash lowercases s and drops what is not a letter or digit.
func squash(s string) string {
	return strings.ToLower(strings.Join(lexicon.Words(s), ""))
}
