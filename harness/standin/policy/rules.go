package policy

import (
	"errors"

	"github.com/agentreplay/testbed/agents/llm"
)

// Rule is one named decision of a policy written as a table: when match
// Holds for a request, act answers it. A table is tried in order and the
// first rule that matches answers; the server sends its name in
// cassette.RuleHeader, so that a trace says why the stand-in answered as it
// did. C is what the policy reads from a request.
type Rule[C any] struct {
	Name  string
	Doc   string
	Match func(C) bool
	Act   func(C) (llm.Message, error)
}

// Names returns the names of table's rules, in order.
func Names[C any](table []Rule[C]) []string {
	var out []string
	for _, r := range table {
		out = append(out, r.Name)
	}
	return out
}

// errNoRule is the error of a table none of whose rules matched.
var errNoRule = errors.New("no rule matched")

// Decide answers c by the first rule of table that matches, and names it.
func Decide[C any](table []Rule[C], c C) (llm.Message, string, error) {
	for _, r := range table {
		if r.Match(c) {
			msg, err := r.Act(c)
			return msg, r.Name, err
		}
	}
	return llm.Message{}, "", errNoRule
}

// AnswerOf asks p for the answer to r and the name of the rule that gave
// it, prefixed with the policy's ("cba/assistant:forecast"), or "".
func AnswerOf(p Policy, r Request) (llm.Message, string, error) {
	msg, name, err := p.Decide(r)
	if name != "" {
		name = p.Name() + ":" + name
	}
	return msg, name, err
}
