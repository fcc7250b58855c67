package generic

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
	"github.com/agentreplay/testbed/harness/wire"
)

// What the generic policy is told. It reads the instructions of the
// system prompt and of the tools' descriptions (package instruct) and
// obeys the forms that apply to an agent it does not know: which tools it
// may call and which first (prohibition, call-only-when, route and the
// ordering forms), what it may name or quote (prohibition,
// mention-only-when), how it writes values (format-example), its prose
// (language, sentences, through prose.go) and a JSON shape (json-shape,
// default-value). A form the request does not state gets the form's
// default (instruct.Forms).

// genericInstructions reads what r's system prompt and its tools'
// descriptions instruct: each description under a heading of its tool's
// name, so that what it says of one case stays with it.
func genericInstructions(r policy.Request) instruct.Set {
	var b strings.Builder
	b.WriteString(r.System())
	for _, t := range r.Tools {
		if strings.TrimSpace(t.Description) != "" {
			b.WriteString("\n\n# " + t.Name + "\n" + t.Description)
		}
	}
	return instruct.Read(b.String(), policy.ToolNames(r.Tools))
}

// mayCallGeneric reports whether the prompt lets the generic policy call
// tool for the question q: never when a prohibition forbids calling it;
// when a rule sets a condition on calling it, only when the condition
// holds (mayCall); else (the default) always.
func mayCallGeneric(ins instruct.Set, tool string, q lexicon.Text) bool {
	return !ins.Forbids("call", tool) && policy.MayCall(ins, tool, q, true)
}

// chooseGeneric is the tool the generic policy calls for text, and
// whether it calls one: among the tools it may call, the target of the
// first routing rule whose condition the question meets; else the tool
// that scores best (bestTool, the default); else the target of the rule
// for the rest.
func chooseGeneric(ins instruct.Set, tools []llm.Tool, text string, prompt promptText) (llm.Tool, bool) {
	q := lexicon.Read(text)
	var open []llm.Tool
	for _, t := range tools {
		if mayCallGeneric(ins, t.Name, q) {
			open = append(open, t)
		}
	}
	byName := func(name string) (llm.Tool, bool) {
		i := slices.IndexFunc(open, func(t llm.Tool) bool { return t.Name == name })
		if i < 0 {
			return llm.Tool{}, false
		}
		return open[i], true
	}
	for _, rt := range ins.Routes {
		if t, ok := byName(rt.Target); ok && !rt.Else && policy.Holds(clauseOf(rt.When, tools), q) {
			return t, true
		}
	}
	if t, ok := bestTool(open, text, prompt); ok {
		return t, true
	}
	for _, rt := range ins.Routes {
		if t, ok := byName(rt.Target); ok && rt.Else {
			return t, true
		}
	}
	return llm.Tool{}, false
}

// clauseOf is a rule's condition up to the first tool it names: what
// follows belongs to another rule ("use A for C and B for D").
func clauseOf(when string, tools []llm.Tool) string {
	end := len(when)
	for _, t := range tools {
		if loc := wholeName(t.Name).FindStringIndex(when); loc != nil && loc[0] < end {
			end = loc[0]
		}
	}
	return when[:end]
}

func wholeName(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w.-])` + regexp.QuoteMeta(name) + `(?:$|[^\w-])`)
}

// prerequisite is the tool to call before tool, and whether there is
// one: an offered tool the prompt states comes before it (call-first,
// only-after, before, then, numbered steps) that the conversation has
// not called and that the policy may call, itself with no such
// prerequisite. Without a stated ordering (the default) there is none.
func prerequisite(ins instruct.Set, r policy.Request, tool llm.Tool, q lexicon.Text) (llm.Tool, bool) {
	called := map[string]bool{}
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			called[c.Name] = true
		}
	}
	cur := tool
	for range r.Tools {
		i := slices.IndexFunc(r.Tools, func(t llm.Tool) bool {
			before, stated := ins.Precedes(t.Name, cur.Name)
			return t.Name != cur.Name && before && stated && !called[t.Name] && mayCallGeneric(ins, t.Name, q)
		})
		if i < 0 {
			break
		}
		cur = r.Tools[i]
	}
	return cur, cur.Name != tool.Name
}

// onlyPrerequisites reports whether every tool called since the last user
// message is one the prompt states comes before tool, and tool is not
// among them: the calls of this turn so far were its prerequisites.
func onlyPrerequisites(ins instruct.Set, r policy.Request, tool string) bool {
	called := calledSinceUser(r)
	return len(called) > 0 && !slices.ContainsFunc(called, func(n string) bool {
		before, stated := ins.Precedes(n, tool)
		return n == tool || !before || !stated
	})
}

// nameOf is how an answer names a tool: by its name, or, when the prompt
// forbids naming it, as "a tool".
func nameOf(ins instruct.Set, tool string) string {
	if ins.Forbids("name", tool) {
		return "a tool"
	}
	return tool
}

// quotable reports whether the answer may quote the value at path: not
// when a prohibition to name or show something says a word of the path,
// nor when a conditional mention of one of its words does not hold for
// the question q.
func quotable(ins instruct.Set, path string, q lexicon.Text) bool {
	ws := lexicon.Words(path)
	if ins.Forbids("show", "", ws...) || ins.Forbids("name", "", ws...) {
		return false
	}
	for _, m := range ins.Mentions {
		if saysWord(m.What, ws) && !policy.Holds(m.When, q) {
			return false
		}
	}
	return true
}

// saysWord reports whether text shares a term with one of ws.
func saysWord(text string, ws []string) bool {
	return lexicon.Overlap(lexicon.Terms(text), lexicon.Terms(strings.Join(ws, " "))) > 0
}

var genericValueRe = regexp.MustCompile(`^(-?\d+(?:\.\d+)?)(?:\s*(\S.*))?$`)

// formattedValue is a numeric value at path written as a format-example
// rule for the path's words says: with the example of the value's unit
// (the example's text or its qualifier says the unit), or the first when
// the value has none. A value in a unit no example shows is left as it is
// (a weak model does not convert units), and so is every value when the
// prompt states no format (the default).
func formattedValue(ins instruct.Set, path, value string) string {
	f, ok := ins.FormatOf(lexicon.Words(path)...)
	m := genericValueRe.FindStringSubmatch(value)
	if !ok || m == nil {
		return value
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return value
	}
	unit := m[2]
	if unit != "" {
		f.Examples = slices.DeleteFunc(slices.Clone(f.Examples), func(e instruct.Example) bool {
			return !strings.Contains(strings.ToLower(e.Text+" "+e.Qualifier), strings.ToLower(unit))
		})
		if len(f.Examples) == 0 {
			return value
		}
	}
	return policy.Formatted(f, true, v, unit)
}

// shapedAnswer is a text answer as the JSON object the prompt requires
// (json-shape), its fields in the prompt's order: a field's stated
// default, else the first value the prompt lists for it, else, for the
// first field with neither, the text; the others null.
func shapedAnswer(ins instruct.Set, text string) string {
	var b strings.Builder
	b.WriteString("{")
	placed := false
	for i, f := range ins.Shape {
		var v any
		switch d, ok := ins.Defaults[f]; {
		case ok:
			v = d
		case len(ins.Values[f]) > 0:
			v = ins.Values[f][0]
		case !placed:
			v, placed = text, true
		}
		if i > 0 {
			b.WriteString(",")
		}
		k, _ := json.Marshal(f)
		val, _ := wire.MarshalPlain(v)
		b.Write(k)
		b.WriteString(":")
		b.Write(val)
	}
	b.WriteString("}")
	return b.String()
}
