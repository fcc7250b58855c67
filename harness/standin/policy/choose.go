package policy

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
)

// Choosing a tool by what it says it does. A policy that needs a kind of
// tool (one that lists, one that opens a record, one that searches a
// knowledge base) states the need as a purpose, a few plain words, and
// ChooseTool takes the offered tool whose description, parameter names
// and parameter descriptions say most of them, read through the terms of
// package lexicon (stems and the lexicon's general concepts). So a
// policy never names a tool: swap two tools' descriptions and its choice
// follows the descriptions, not the names.

// Purpose is a kind of tool a policy needs, in plain words.
type Purpose struct {
	Name  string // "browse", "open-record"
	Words string // what a tool for it says it does
	// Every takes only a tool whose description says every one of words:
	// for a tool the policy must not mistake another for.
	Every bool
}

// describedScore is how well tool t's words meet purpose words want: how
// many times its description says one of them (see saidTerms), then, to
// break a tie, how many of them its name, parameters' names and parameters'
// descriptions say. So a tool is chosen by what it says it does, and its
// name only decides between two descriptions that say as much.
func describedScore(t llm.Tool, want map[string]bool) (said, named int) {
	said, _ = saidScore(t, want)
	return said, namedScore(t, want)
}

// saidScore is how many times t's description says a term of want, and
// how many distinct terms of want it says.
func saidScore(t llm.Tool, want map[string]bool) (times, distinct int) {
	for w, n := range saidTerms(t.Description) {
		if want[w] {
			times += n
			distinct++
		}
	}
	return times, distinct
}

// namedScore is how many terms of want t's name, parameters' names and
// parameters' descriptions say.
func namedScore(t llm.Tool, want map[string]bool) int {
	rest := lexicon.Terms(t.Name)
	props, _ := SchemaOf(t.Parameters)["properties"].(map[string]any)
	for name, p := range props {
		maps.Copy(rest, lexicon.Terms(name))
		if p, ok := p.(map[string]any); ok {
			d, _ := p["description"].(string)
			maps.Copy(rest, lexicon.Terms(d))
		}
	}
	return lexicon.Overlap(want, rest)
}

// negation starts the part of a clause that says what a tool is not for
// ("without a name", "do not use it for …"): saidTerms does not count it.
var negation = regexp.MustCompile(`(?i)\b(?:without|not|never|no|don't|doesn't|sans|sin|ne|pas)\b[^.;:!?\n]*`)

// clause ends a clause of a description.
var clause = regexp.MustCompile(`[.;:!?\n]+`)

// saidTerms counts the terms of a description (as terms cuts them) outside
// its negated parts: a description that says "city" twice is more about
// cities than one that lists it once among its fields.
func saidTerms(desc string) map[string]int {
	out := map[string]int{}
	for _, c := range clause.Split(desc, -1) {
		c = negation.ReplaceAllString(c, "")
		for _, w := range lexicon.Words(c) {
			for t := range lexicon.Terms(w) {
				out[t]++
			}
		}
	}
	return out
}

// ChooseTool is the offered tool that scores best for p (the first in the
// request's order on a tie), if one's description says at least one of
// its words (every one, for a purpose that says so). When no offered tool
// has a description that says one, a tool is chosen by its name and
// parameters alone, as a model reads a tool given without a description.
func ChooseTool(tools []llm.Tool, p Purpose) (llm.Tool, bool) {
	want := lexicon.Terms(p.Words)
	best, bs, bn := -1, 0, 0
	for i, t := range tools {
		if _, d := saidScore(t, want); p.Every && d < len(want) {
			continue
		}
		if s, n := describedScore(t, want); s > bs || s == bs && n > bn {
			best, bs, bn = i, s, n
		}
	}
	if best < 0 || bs == 0 && p.Every {
		return llm.Tool{}, false
	}
	return tools[best], true
}

// Serves reports whether the tool called name is the one ChooseTool takes
// for p among tools: what the policy believes a tool does is what its
// description says.
func Serves(tools []llm.Tool, name string, p Purpose) bool {
	t, ok := ChooseTool(tools, p)
	return ok && name != "" && t.Name == name
}

// Slot is one value a policy has for a tool's arguments, and the words of
// which a parameter that takes it names one ("city", "year", "id").
type Slot struct {
	Word  string
	Value any
}

// ArgsFor fills tool's parameters from slots: each parameter takes the
// slot slotFor gives it; a parameter no slot fits is left out, and so is a
// slot with a zero value.
func ArgsFor(tool llm.Tool, slots []Slot) map[string]any {
	args := map[string]any{}
	props, _ := SchemaOf(tool.Parameters)["properties"].(map[string]any)
	for name, p := range props {
		if i := slotFor(name, p, slots); i >= 0 && slots[i].Value != nil {
			args[name] = slots[i].Value
		}
	}
	return args
}

// slotFor is the index of the slot parameter name (schema p) takes: the
// first whose word is a term of its name, else of its description; -1 when
// none is.
func slotFor(name string, p any, slots []Slot) int {
	desc := ""
	if p, ok := p.(map[string]any); ok {
		desc, _ = p["description"].(string)
	}
	for _, in := range []map[string]bool{lexicon.Terms(name), lexicon.Terms(desc)} {
		if i := slices.IndexFunc(slots, func(s Slot) bool { return lexicon.Overlap(lexicon.Terms(s.Word), in) > 0 }); i >= 0 {
			return i
		}
	}
	return -1
}

// CallFor calls the tool chosen for p among r's tools, its arguments
// filled from slots, with the next free call id.
func CallFor(r Request, p Purpose, slots ...Slot) (llm.Message, error) {
	tool, ok := ChooseTool(r.Tools, p)
	if !ok {
		return llm.Message{}, fmt.Errorf("no tool offered for %s", p.Name)
	}
	return ToolCaller(r)(tool.Name, ArgsFor(tool, slots))
}

// Offers reports whether r offers a tool for p.
func Offers(r Request, p Purpose) bool {
	_, ok := ChooseTool(r.Tools, p)
	return ok
}

// ParamFor is the parameter of the tool called name that takes a slot of
// word w (the first in name order), or "".
func ParamFor(tools []llm.Tool, name, w string) string {
	i := slices.IndexFunc(tools, func(t llm.Tool) bool { return t.Name == name })
	if i < 0 {
		return ""
	}
	props, _ := SchemaOf(tools[i].Parameters)["properties"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if slotFor(k, props[k], []Slot{{Word: w}}) == 0 {
			return k
		}
	}
	return ""
}
