// Package cba is the stand-in's policy for the CBA indicators assistant
// (agents/cba): Assistant, two tables of named rules over the shared
// lexicon.
package cba

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// The CBA assistant policy is two tables of named rules. cbaRules decide
// what to do with a turn: answer a question about the assistant itself,
// follow a tool lookup, answer from a result, or call the tool the
// question needs. cbaIntents (cba_intents.go) decide which tool that is,
// from the shared lexicon's concepts, numbers and capitalised place names;
// its arguments come from the tool's schema (enum values, a property list
// in a description). The policy trusts only the tools its system prompt
// names: a needed tool the prompt does not name is found with list_tools
// (then describe_tool) when the request offers them, and otherwise replaced
// by a tool the prompt names, as a weak model would. Questions about its
// own tools and how it worked obey the prompt's prohibitions (instruct):
// a tool the prompt forbids naming is neither named nor counted, and a
// sentence the prompt allows is said instead; without a prohibition it
// names every tool, as a weak model does.

// Assistant is the CBA assistant's policy (see above).
type Assistant struct{}

// Name is "cba/assistant".
func (Assistant) Name() string { return "cba/assistant" }

// Accepts reports whether r follows its protocol.
func (Assistant) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "data assistant for sustainable agriculture")
}

// cbaTurn is what the CBA rules read from a request.
type cbaTurn struct {
	r       policy.Request
	system  string
	user    string
	text    lexicon.Text
	turn    []llm.Message // the messages after the last user message
	last    *llm.ToolCall // the last tool call of the turn, if any
	result  string        // its result
	offered map[string]llm.Tool
	ins     instruct.Set  // what the system prompt instructs
	prose   lexicon.Prose // how it writes: the prompt's language and length
	help    bool          // list_tools and describe_tool are offered
	want    string        // the tool the question needs, "" when none
	args    map[string]any
	intent  string // the cbaIntents rule that chose want
}

// Decide answers by cbaRules and names the rule, and the intent when one
// chose the tool ("call-named+forecast").
func (Assistant) Decide(r policy.Request) (llm.Message, string, error) {
	t, err := readCBATurn(r)
	if err != nil {
		return llm.Message{}, "", err
	}
	m, name, err := policy.Decide(cbaRules(), t)
	if t.intent != "" && t.want != "" {
		name += "+" + t.intent
	}
	return m, name, err
}

// RuleNames lists the names of its rules, in table order: its turn rules,
// then its intent rules.
func (Assistant) RuleNames() []string {
	names := policy.Names(cbaRules())
	for _, r := range cbaIntents() {
		names = append(names, r.name)
	}
	return names
}

func readCBATurn(r policy.Request) (*cbaTurn, error) {
	t := &cbaTurn{r: r, system: r.System(), offered: map[string]llm.Tool{}, ins: policy.InstructionsOf(r)}
	at := -1
	for i, m := range r.Messages {
		if m.Role == llm.RoleUser {
			t.user, at = m.Content, i
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("no user message")
	}
	t.text = lexicon.Read(t.user)
	t.prose = lexicon.ProseOf(t.ins, t.user)
	t.turn = r.Messages[at+1:]
	if t.last = policy.LastCall(t.turn); t.last != nil {
		t.result = policy.ResultOf(t.turn, t.last.ID)
	}
	for _, tool := range r.Tools {
		t.offered[tool.Name] = tool
	}
	_, list := policy.ChooseTool(r.Tools, cbaListHelp)
	_, describe := policy.ChooseTool(r.Tools, cbaDescribeHelp)
	t.help = list && describe
	t.want, t.args, t.intent = cbaIntent(t)
	return t, nil
}

// named reports whether tool is offered and named in the system prompt.
func (t *cbaTurn) named(tool string) bool {
	_, ok := t.offered[tool]
	return ok && regexp.MustCompile(`\b`+regexp.QuoteMeta(tool)+`\b`).MatchString(t.system)
}

// say answers in the prompt's language and length (prose).
func (t *cbaTurn) say(format string, a ...any) (llm.Message, error) {
	return llm.Message{Role: llm.RoleAssistant, Content: t.prose.Finish(t.prose.Say(format, a...))}, nil
}

func (t *cbaTurn) call(tool string, args map[string]any) (llm.Message, error) {
	return policy.ToolCaller(t.r)(tool, args)
}

// isHelp reports whether the tool called name is one of the help tools
// (the one that lists the tools, the one that describes one).
func (t *cbaTurn) isHelp(name string) bool {
	return policy.Serves(t.r.Tools, name, cbaListHelp) || policy.Serves(t.r.Tools, name, cbaDescribeHelp)
}

// callFor calls the tool chosen for p, its arguments filled from slots.
func (t *cbaTurn) callFor(p policy.Purpose, slots ...policy.Slot) (llm.Message, error) {
	if !policy.Offers(t.r, p) {
		return t.say("I cannot look that up with the tools I have.")
	}
	return policy.CallFor(t.r, p, slots...)
}

// fallback calls the tool a weak model reaches for instead of want: the
// weather now, for a forecast with a place; else the indicator search, with
// the question.
func (t *cbaTurn) fallback() (llm.Message, error) {
	if city := cbaPlace(t.user); t.intent == "forecast" && city != "" {
		return t.callFor(cbaWeatherNow, policy.Slot{Word: "city", Value: city})
	}
	return t.callFor(cbaIndicatorSearch, policy.Slot{Word: "query question", Value: t.user})
}

// cbaRules is the CBA policy's turn table, tried in order.
func cbaRules() []policy.Rule[*cbaTurn] {
	return []policy.Rule[*cbaTurn]{
		{Name: "own-tools", Doc: "the user asks about the assistant's tools: when the prompt forbids naming some tools, the count of the others and their categories; with no such prohibition, every tool by name",
			Match: func(t *cbaTurn) bool { return t.last == nil && t.text.Has("own_tools") },
			Act: func(t *cbaTurn) (llm.Message, error) {
				var names []string
				for _, tool := range t.r.Tools {
					if !t.ins.Forbids("name", tool.Name) {
						names = append(names, tool.Name)
					}
				}
				if !slices.ContainsFunc(t.ins.Forbid, func(f instruct.Forbid) bool { return f.Verb == "name" && len(f.Tools) > 0 }) {
					return t.say("I have %d tools: %s.", len(names), strings.Join(names, ", "))
				}
				return t.say("I have %d tools for weather and climate normals, soil properties and soil carbon, and the CBA indicator knowledge base (indicator search, details, feasible methods, comparisons and reports).", len(names))
			}},
		{Name: "how-answered", Doc: "the user asks how an answer was found: the help tools by name when they are offered and the prompt does not forbid naming them; else a sentence the prompt allows, else none of their names",
			Match: func(t *cbaTurn) bool { return t.last == nil && t.text.Has("how_answered") },
			Act: func(t *cbaTurn) (llm.Message, error) {
				if !t.help {
					return t.say("I chose the data source that fits your question and called it.")
				}
				list, _ := policy.ChooseTool(t.r.Tools, cbaListHelp)
				describe, _ := policy.ChooseTool(t.r.Tools, cbaDescribeHelp)
				switch {
				case !t.ins.Forbids("name", list.Name) && !t.ins.Forbids("name", describe.Name):
					return t.say("I called %s to see my tools and %s to read the right one's documentation, then called it.", list.Name, describe.Name)
				case len(t.ins.Allowed) > 0:
					return t.say("%s to choose the right data source, then called it.", strings.TrimRight(t.ins.Allowed[0], "."))
				}
				return t.say("I chose the data source that fits your question and called it.")
			}},
		{Name: "after-list-tools", Doc: "after the tool that lists the tools: describe the needed tool (with the tool that describes one) when the list holds it, else fall back",
			Match: func(t *cbaTurn) bool { return t.last != nil && policy.Serves(t.r.Tools, t.last.Name, cbaListHelp) },
			Act: func(t *cbaTurn) (llm.Message, error) {
				if t.want != "" && strings.Contains(t.result, t.want+":") {
					return t.callFor(cbaDescribeHelp, policy.Slot{Word: "name", Value: t.want})
				}
				return t.fallback()
			}},
		{Name: "after-describe-tool", Doc: "after the tool that describes one: call the tool it described",
			Match: func(t *cbaTurn) bool {
				return t.last != nil && policy.Serves(t.r.Tools, t.last.Name, cbaDescribeHelp) && t.want != ""
			},
			Act: func(t *cbaTurn) (llm.Message, error) { return t.call(t.want, t.args) }},
		{Name: "tool-error", Doc: "a tool answered an error: pass it on without inventing data",
			Match: func(t *cbaTurn) bool { return t.last != nil && strings.HasPrefix(t.result, "Error:") },
			Act: func(t *cbaTurn) (llm.Message, error) {
				return t.say("I could not get that: %s", strings.TrimPrefix(t.result, "Error: "))
			}},
		{Name: "answer-from-result", Doc: "a tool answered: present the first fourteen lines of its result",
			Match: func(t *cbaTurn) bool { return t.last != nil },
			Act: func(t *cbaTurn) (llm.Message, error) {
				lines := strings.Split(t.result, "\n")
				return t.say("Here is what I found:\n%s", strings.Join(lines[:min(14, len(lines))], "\n"))
			}},
		{Name: "no-intent", Doc: "no intent rule matched: ask what place or indicator the user means",
			Match: func(t *cbaTurn) bool { return t.want == "" },
			Act: func(t *cbaTurn) (llm.Message, error) {
				return t.say("I can help with weather, climate normals, soil and the CBA monitoring indicators. What place or indicator do you have in mind?")
			}},
		{Name: "call-named", Doc: "the needed tool is offered and the system prompt names it: call it",
			Match: func(t *cbaTurn) bool { return t.named(t.want) },
			Act:   func(t *cbaTurn) (llm.Message, error) { return t.call(t.want, t.args) }},
		{Name: "look-up", Doc: "the prompt does not name the needed tool and the help tools are offered: call the one that lists the tools",
			Match: func(t *cbaTurn) bool { return t.help },
			Act:   func(t *cbaTurn) (llm.Message, error) { return t.callFor(cbaListHelp) }},
		{Name: "fallback", Doc: "the prompt does not name the needed tool and there is no help: call a tool it names instead, as a weak model would",
			Match: func(*cbaTurn) bool { return true },
			Act:   func(t *cbaTurn) (llm.Message, error) { return t.fallback() }},
	}
}
