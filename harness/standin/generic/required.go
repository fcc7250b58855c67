package generic

import (
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// RequiredRule names, in cassette.RuleHeader, the call Required made.
const RequiredRule = Name + ":required-call"

// Required is the call a request whose tool choice requires one
// (wire.Choice.Required) gets when its policy answered without one, as
// the real APIs never do: a call of the tool the message asks for (as the
// call-tool rule chooses it), else of the first tool the request offers,
// with arguments filled from its schema as call-tool fills them. ok is
// false when the request offers no tool.
func Required(r policy.Request) (msg llm.Message, ok bool) {
	if len(r.Tools) == 0 {
		return llm.Message{}, false
	}
	g := newGenericTurn(r)
	tool := r.Tools[0]
	if g.asks {
		tool = g.tool
	}
	return callTool(r, tool, g.user), true
}
