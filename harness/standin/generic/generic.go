// Package generic is the stand-in's plumbing policy for an agent it has
// never seen (New): it picks a tool by word overlap, fills its arguments
// from the schema (generic_args.go, generic_distinct.go,
// generic_places.go), chains two tools when one supplies another's input
// (generic_chain.go) and answers from the tool results.
package generic

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
	"github.com/agentreplay/testbed/harness/wire"
)

// Name is the name of the generic policy, the value of
// cassette.PolicyHeader on the responses it gives.
const Name = cassette.GenericPolicy

// New returns the generic plumbing policy: the stand-in for an agent it
// has never seen, which the server asks when no agent-specific policy
// accepts a request. It is not a model. It proves the plumbing of an
// agent — its requests reach the model, its tool calls reach its upstreams,
// the results come back and an answer goes out — with rules a reader can
// predict, and its answers say nothing about how well a prompt works.
//
// It decides from the request alone, by these named rules (genericRules),
// in order; the server sends the name of the one that answered in
// cassette.RuleHeader, as "generic:<rule>":
//
//  1. chain-then: tool results follow the last user message, they answer
//     the calls chain-first made, and the tool the message asks for can now
//     be filled from them: call it (see generic_chain.go).
//  2. prerequisite-then: tool results follow the last user message, they
//     answer calls of tools a stated ordering puts before the tool the
//     message asks for: call the next such tool not yet called, else that
//     tool (see generic_instruct.go).
//  3. relay-answer: another agent answered the message and handed it back
//     (its text, then a call of a tool this request does not offer): give
//     that answer (generic_notes.go).
//  4. answer-from-results: when tool results follow the last user message,
//     answer in text from them: for each result, the tool's error if it
//     reports one ({"error": …}, {"error": true, "reason": …} or text
//     starting with "error"), else up to genericSalient values of its
//     JSON (leaves in document order, those whose paths share more terms
//     with the user's words and the tool's name and description first, the
//     first item of each array, units from a "units" or "X_units" object
//     appended), else the start of its text. So it calls at most two
//     rounds of tools per user turn, and two only when chaining, plus one
//     per prerequisite.
//  5. call-prerequisite: a stated ordering puts a tool the conversation
//     has not called before the tool the message asks for: call it first.
//  6. chain-first: the tool the message asks for (see toolScore) has a
//     required property the conversation cannot fill, and another tool can
//     supply it: call that one first (see generic_chain.go).
//  7. call-per-place: when the text lists several places ("Paris and
//     Berlin") and the tool wants one place, call it once per place, in
//     parallel (at most genericMaxCalls).
//  8. call-tool: score each tool against the message (below; see
//     toolScore) and call the best one when it scores at least
//     genericMinScore (the first in the request's order on a tie), with
//     arguments filled from its schema (see generic_args.go).
//  9. answer-plainly: with no tools, or none that scores enough, a short
//     text naming the tools it has, or echoing the message.
//
// "The message" is the latest user message that is not another agent's
// note (generic_notes.go). "The tool the message asks for" is the one the
// prompt's instructions choose, when they do (generic_instruct.go: what it
// may call, routes), else the one that scores best, described options
// included (generic_options.go). Text answers follow the prompt's prose
// rules (language, sentences: prose.go), what it may name and quote, and
// its format examples; a prompt that states none gets each form's default
// (instruct.Forms): verbose, with a closing offer, every value as the
// data has it, every tool named.
//
// In JSON mode (response_format json_object or json_schema) a text answer
// is a JSON object instead: the response schema's properties filled as
// tool arguments are, with the text for strings that want nothing else, or
// {"answer": text} without a schema.
func New() policy.Policy { return genericPolicy{} }

// Limits of the generic policy.
const (
	// genericMinScore is the least toolScore that calls a tool: one word of
	// its name or parameters, or two of its description.
	genericMinScore = 2
	// genericMaxCalls bounds the calls of one parallel round.
	genericMaxCalls = 4
	// genericSalient bounds the values quoted from one tool result.
	genericSalient = 6
)

type genericPolicy struct{}

func (genericPolicy) Name() string { return Name }

// Accepts takes every request: the server asks it last.
func (genericPolicy) Accepts(policy.Request) bool { return true }

// Decide answers by genericRules and names the rule.
func (genericPolicy) Decide(r policy.Request) (llm.Message, string, error) {
	g := newGenericTurn(r)
	msg, name, err := policy.Decide(genericRules, g)
	if err != nil || len(msg.ToolCalls) > 0 {
		return msg, name, err
	}
	if r.Output == llm.OutputJSON {
		msg, err = jsonAnswer(r, msg.Content)
	} else if g.ins.Shape != nil {
		msg.Content = shapedAnswer(g.ins, msg.Content)
	}
	return msg, name, err
}

// RuleNames lists the names of its rules, in table order.
func (genericPolicy) RuleNames() []string { return policy.Names(genericRules) }

// genericTurn is what the generic policy reads from a request.
type genericTurn struct {
	r       policy.Request
	user    string
	results []calledResult // the tool results since the last user message
	tool    llm.Tool       // the tool the message asks for, if any scores enough
	asks    bool
	ins     instruct.Set // what the system prompt and the tools' descriptions instruct
	prose   lexicon.Prose
}

func newGenericTurn(r policy.Request) genericTurn {
	g := genericTurn{r: r, user: question(r), results: resultsSinceUser(r), ins: genericInstructions(r)}
	g.prose = lexicon.ProseOf(g.ins, g.user)
	g.tool, g.asks = chooseGeneric(g.ins, r.Tools, g.user, requestText(r))
	return g
}

// write is text as the prompt's prose rules write it (prose.finish): cut
// to its limit in sentences, or, without one, with the closing offer; a
// text that becomes a JSON value in JSON mode gets no offer.
func (g genericTurn) write(text string) string {
	if g.r.Output == llm.OutputJSON && g.prose.Max == 0 {
		return text
	}
	return g.prose.Finish(text)
}

// prerequisite is the tool a stated ordering says to call before the one
// the message asks for, if the conversation has not called it.
func (g genericTurn) prerequisite() (llm.Tool, bool) {
	if !g.asks {
		return llm.Tool{}, false
	}
	return prerequisite(g.ins, g.r, g.tool, lexicon.Read(g.user))
}

// genericRules are the generic policy's rules, in order; the server names
// the one that answered in cassette.RuleHeader ("generic:call-tool").
var genericRules = []policy.Rule[genericTurn]{
	{
		Name: "chain-then", Doc: "after a supplier's result, call the tool the message asks for with the value it supplied",
		Match: func(g genericTurn) bool {
			if len(g.results) == 0 || !g.asks {
				return false
			}
			// The calls since the message are the ones chain-first made.
			s, ok := newGenericTurn(beforeTurn(g.r)).supplier()
			called := calledSinceUser(g.r)
			if !ok || len(called) == 0 || slices.ContainsFunc(called, func(n string) bool { return n != s.Name }) {
				return false
			}
			return len(missing(g.tool, newArgText(g.user, g.r))) == 0
		},
		Act: func(g genericTurn) (llm.Message, error) { return callTool(g.r, g.tool, g.user), nil },
	},
	{
		Name: "prerequisite-then", Doc: "the calls since the message were the prerequisites a stated ordering puts before the tool it asks for: call the next one, else that tool",
		Match: func(g genericTurn) bool {
			return len(g.results) > 0 && g.asks && onlyPrerequisites(g.ins, g.r, g.tool.Name)
		},
		Act: func(g genericTurn) (llm.Message, error) {
			if p, ok := g.prerequisite(); ok {
				return callTool(g.r, p, g.user), nil
			}
			return callTool(g.r, g.tool, g.user), nil
		},
	},
	{
		Name: "relay-answer", Doc: "another agent answered the message, then handed it back: give its answer",
		Match: func(g genericTurn) bool { _, ok := handedBack(g.r); return ok },
		Act: func(g genericTurn) (llm.Message, error) {
			text, _ := handedBack(g.r)
			return llm.Message{Role: llm.RoleAssistant, Content: g.write(text)}, nil
		},
	},
	{
		Name: "answer-from-results", Doc: "tool results follow the last user message: quote them",
		Match: func(g genericTurn) bool { return len(g.results) > 0 },
		Act: func(g genericTurn) (llm.Message, error) {
			return llm.Message{Role: llm.RoleAssistant, Content: g.write(answerFromResults(g, g.results))}, nil
		},
	},
	{
		Name: "call-prerequisite", Doc: "a stated ordering puts a tool the conversation has not called before the one the message asks for: call it first",
		Match: func(g genericTurn) bool { _, ok := g.prerequisite(); return ok },
		Act: func(g genericTurn) (llm.Message, error) {
			p, _ := g.prerequisite()
			return callTool(g.r, p, g.user), nil
		},
	},
	{
		Name: "chain-first", Doc: "the tool the message asks for needs a value the conversation lacks: call a tool that supplies it first",
		Match: func(g genericTurn) bool { _, ok := g.supplier(); return ok },
		Act: func(g genericTurn) (llm.Message, error) {
			s, _ := g.supplier()
			return callTool(g.r, s, g.user), nil
		},
	},
	{
		Name: "call-per-place", Doc: "the message lists places and the tool wants one: call it once per place",
		Match: func(g genericTurn) bool {
			return g.asks && len(listedPlaces(g.user)) > 1 && wantsPlace(policy.SchemaOf(g.tool.Parameters))
		},
		Act: func(g genericTurn) (llm.Message, error) { return callTool(g.r, g.tool, g.user), nil },
	},
	{
		Name: "call-tool", Doc: "a tool scores at least genericMinScore against the message: call the best",
		Match: func(g genericTurn) bool { return g.asks },
		Act:   func(g genericTurn) (llm.Message, error) { return callTool(g.r, g.tool, g.user), nil },
	},
	{
		Name: "answer-plainly", Doc: "no tool fits: say which tools it has, or echo the message",
		Match: func(genericTurn) bool { return true },
		Act: func(g genericTurn) (llm.Message, error) {
			return llm.Message{Role: llm.RoleAssistant, Content: g.write(plainAnswer(g))}, nil
		},
	},
}

// beforeTurn is r as it was when the last user message was new: without
// the calls and results that followed it.
func beforeTurn(r policy.Request) policy.Request {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			r.Messages = r.Messages[:i+1]
			break
		}
	}
	return r
}

// supplier is the tool to call first for the first missing property of
// the tool the message asks for, if one can supply it.
func (g genericTurn) supplier() (llm.Tool, bool) {
	if !g.asks {
		return llm.Tool{}, false
	}
	for _, name := range missing(g.tool, newArgText(g.user, g.r)) {
		if s, ok := supplier(g.r.Tools, g.tool, name); ok {
			return s, true
		}
	}
	return llm.Tool{}, false
}

// jsonAnswer is a text answer in JSON mode: the response schema's
// properties filled as tool arguments are, with text for strings that want
// nothing else, or {"answer": text} without a schema.
func jsonAnswer(r policy.Request, text string) (llm.Message, error) {
	obj := map[string]any{"answer": text}
	if s := policy.SchemaOf(r.Schema); len(s) > 0 {
		t := newArgText(question(r), r)
		t.fallback = text
		if v, ok := fillValue("answer", s, t, true, 0); ok {
			if m, isObj := v.(map[string]any); isObj && len(m) > 0 {
				obj = m
			}
		}
	}
	b, err := wire.MarshalPlain(obj)
	if err != nil {
		return llm.Message{}, fmt.Errorf("encode the JSON answer: %w", err)
	}
	return llm.Message{Role: llm.RoleAssistant, Content: string(b)}, nil
}

// toolScore is how well a tool matches the user's terms: 3 for each term
// of its name, 2 for each further term of its parameters' names, 1 for each
// further term of its description (terms as package lexicon cuts them), and
// 1 for each term of its best described option (generic_options.go), which
// prompt, the request's text, describes.
func toolScore(t llm.Tool, user map[string]bool, prompt promptText) int {
	name := lexicon.Terms(t.Name)
	params := map[string]bool{}
	schema := policy.SchemaOf(t.Parameters)
	props, _ := schema["properties"].(map[string]any)
	for p := range props {
		for w := range lexicon.Terms(p) {
			if !name[w] {
				params[w] = true
			}
		}
	}
	desc := map[string]bool{}
	for w := range lexicon.Terms(t.Description) {
		if !name[w] && !params[w] {
			desc[w] = true
		}
	}
	return 3*lexicon.Overlap(user, name) + 2*lexicon.Overlap(user, params) + lexicon.Overlap(user, desc) + optionScore(schema, user, prompt)
}

// bestTool is the tool that scores best against text, if any scores
// genericMinScore; prompt is the request's text (requestText).
func bestTool(tools []llm.Tool, text string, prompt promptText) (llm.Tool, bool) {
	user := lexicon.Terms(text)
	best, score := -1, genericMinScore-1
	for i, t := range tools {
		if s := toolScore(t, user, prompt); s > score {
			best, score = i, s
		}
	}
	if best < 0 {
		return llm.Tool{}, false
	}
	return tools[best], true
}

// callTool calls tool once, or once per listed place when it wants one.
func callTool(r policy.Request, tool llm.Tool, user string) llm.Message {
	schema := policy.SchemaOf(tool.Parameters)
	targets := []string{""}
	if listed := listedPlaces(user); len(listed) > 1 && wantsPlace(schema) {
		targets = listed[:min(len(listed), genericMaxCalls)]
	}
	n := priorCalls(r.Messages)
	msg := llm.Message{Role: llm.RoleAssistant}
	for i, place := range targets {
		t := newArgText(user, r)
		t.place = place
		args, _ := wire.MarshalPlain(fillObject(schema, t, false, 0))
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: "call_" + strconv.Itoa(n+i+1), Name: tool.Name, Arguments: args})
	}
	return msg
}

// wantsPlace reports whether exactly one required property of schema s is
// a place: a tool that takes two (an origin and a destination) is called
// once, with both.
func wantsPlace(s map[string]any) bool {
	req, _ := s["required"].([]any)
	n := 0
	for _, name := range req {
		if name, ok := name.(string); ok && wantsPlaceName(name) {
			n++
		}
	}
	return n == 1
}

// priorCalls counts the tool calls already in msgs, so that new calls get
// fresh ids.
func priorCalls(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.ToolCalls)
	}
	return n
}
