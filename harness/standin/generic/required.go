package generic

import (
	"cmp"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// RequiredRule names, in cassette.RuleHeader, the call Required made.
const RequiredRule = Name + ":required-call"

// Required is the call a request whose tool choice requires one
// (wire.Choice.Required) gets when its policy answered without one, as
// the real APIs never do: a call of the tool the message asks for (as the
// call-tool rule chooses it), else of the first tool the request offers,
// with arguments filled from its schema as call-tool fills them. When the
// conversation holds that tool's result since the last user message (the
// policy had it, and would have answered), the call goes to the first tool
// offered that was not called since that message (an answer's schema tool,
// as the AI SDK offers for an object beside the agent's tools), not to the
// same tool again, round after round; a call of an earlier turn does not
// count, as the policy answers only from the results after the message.
// ok is false when the request offers no tool.
func Required(r policy.Request) (msg llm.Message, ok bool) {
	if len(r.Tools) == 0 {
		return llm.Message{}, false
	}
	g := newGenericTurn(r)
	tool := r.Tools[0]
	if g.asks {
		tool = g.tool
	}
	if called := calledTools(r.Messages); called[tool.Name] {
		for _, t := range r.Tools {
			if !called[t.Name] {
				tool = t
				break
			}
		}
	}
	return callTool(r, tool, g.user), true
}

// calledTools are the tools whose results the conversation holds since
// its last user message, by name (a result names its tool, or the call it
// answers does).
func calledTools(msgs []llm.Message) map[string]bool {
	byID := map[string]string{}
	called := map[string]bool{}
	for _, m := range msgs {
		if m.Role == llm.RoleUser {
			clear(called)
		}
		for _, tc := range m.ToolCalls {
			byID[tc.ID] = tc.Name
		}
		if m.Role != llm.RoleTool {
			continue
		}
		if name := cmp.Or(m.Name, byID[m.ToolCallID]); name != "" {
			called[name] = true
		}
	}
	return called
}
