// Package policy is what the stand-in's policies share: the Policy
// interface and the Request it reads, policies written as tables of named
// rules (rules.go), the choice of a tool by what its description says
// (choose.go), what the policies ask of the instructions a prompt states
// (instructions.go, read by package instruct), and the tool call a policy
// emits and what it reads back (tools.go). It holds no policy of its own:
// the agents' policies (harness/standin/seeds/...), the generic policy and
// the judge build on it, and the server (harness/standin) asks them.
package policy

import (
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// Request is a chat request as a policy sees it: as read from the wire,
// whatever its dialect.
type Request = wire.Request

// Policy answers the requests of one agent protocol.
type Policy interface {
	// Name identifies the policy in errors and logs.
	Name() string
	// Accepts reports whether the request follows this policy's protocol.
	Accepts(r Request) bool
	// Decide returns the assistant message and the name of the rule that
	// gave it (a policy written as a table of rules, Rule), or "".
	Decide(r Request) (msg llm.Message, rule string, err error)
}
