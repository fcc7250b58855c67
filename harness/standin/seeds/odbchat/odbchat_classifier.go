package odbchat

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Classifier is the legacy two-way classifier. Like the weak
// classifier the seed describes, it sends questions that want data (an SST
// word with a place) to code, since explain cannot fetch numbers. Its
// request carries no registry, so a place is coordinates, a bbox list, or
// a word of the lexicon's place concepts.
type Classifier struct{}

// Name is "odbchat/classifier".
func (Classifier) Name() string { return "odbchat/classifier" }

// Accepts reports whether r follows its protocol.
func (Classifier) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "question classifier")
}

// Decide answers by classifierRules and names the rule.
func (Classifier) Decide(r policy.Request) (llm.Message, string, error) {
	o := readODBQuestion(r.LastUser(), time.Time{}, nil)
	o.ins = policy.InstructionsOf(r)
	return policy.Decide(classifierRules(), o)
}

// RuleNames lists the names of its rules, in table order.
func (Classifier) RuleNames() []string { return policy.Names(classifierRules()) }

// odbPlaceConcepts are the lexicon's place concepts the classifier knows.
var odbPlaceConcepts = []string{"taiwan", "hawaii", "strait", "islands", "nearby"}

// classified writes the classifier's answer in the shape its prompt
// requires: the mode in the first field whose values the prompt lists, the
// confidence in a field named for it, in the prompt's order; without a
// shape (the default), prose.
func (o *odbQuestion) classified(mode string, conf float64) (llm.Message, error) {
	if o.ins.Shape == nil {
		return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("%s (confidence %g)", mode, conf)}, nil
	}
	var parts []string
	said := false
	for _, f := range o.ins.Shape {
		switch {
		case !said && len(o.ins.Values[f]) > 0:
			parts = append(parts, fmt.Sprintf("%q: %q", f, mode))
			said = true
		case strings.Contains(f, "confidence"):
			parts = append(parts, fmt.Sprintf("%q: %g", f, conf))
		}
	}
	return llm.Message{Role: llm.RoleAssistant, Content: "{" + strings.Join(parts, ", ") + "}"}, nil
}

// classifierRules is the legacy classifier's table, tried in order: a code
// word, a definition word, or data (coordinates, an SST word with a place
// word) goes to the prompt's routing rule whose condition names that kind
// (a program, definitions, data); anything else, or a kind with no rule, to
// the rule for the rest, else the shape's first listed value.
func classifierRules() []policy.Rule[*odbQuestion] {
	routed := func(c string, conf float64) func(*odbQuestion) (llm.Message, error) {
		return func(o *odbQuestion) (llm.Message, error) { return o.classified(o.routeOf(c).Target, conf) }
	}
	has := func(c string, f func(*odbQuestion) bool) func(*odbQuestion) bool {
		return func(o *odbQuestion) bool { return o.routeOf(c) != nil && f(o) }
	}
	return []policy.Rule[*odbQuestion]{
		{Name: "code", Doc: "a code word and a routing rule for programs: its mode",
			Match: has("code", func(o *odbQuestion) bool { return o.text.Has("code") }), Act: routed("code", 0.74)},
		{Name: "definition", Doc: "a definition word and a routing rule for definitions: its mode",
			Match: has("definition", func(o *odbQuestion) bool { return o.text.Has("definition") }), Act: routed("definition", 0.7)},
		{Name: "coordinates", Doc: "a point or a bbox list and a routing rule for data: its mode (code in the seed's prompt, the only branch that fetches numbers)",
			Match: has("data", func(o *odbQuestion) bool { return o.point || o.bbox != nil }), Act: routed("data", 0.74)},
		{Name: "sst-and-place", Doc: "an SST word, a place word and a routing rule for data: its mode (code in the seed's prompt: the seed's failure mode)",
			Match: has("data", func(o *odbQuestion) bool {
				if !o.hasSST() {
					return false
				}
				for _, c := range odbPlaceConcepts {
					if o.text.Has(c) {
						return true
					}
				}
				return false
			}), Act: routed("data", 0.74)},
		{Name: "otherwise-explain", Doc: "anything else: the rule for the rest, else the first mode the shape lists",
			Match: func(*odbQuestion) bool { return true },
			Act:   func(o *odbQuestion) (llm.Message, error) { return o.classified(o.otherwise(), 0.7) }},
	}
}
