package generic

import (
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Other agents. A multi-agent framework hands a question from one agent
// to another, and the second sees what the first did, in one of two ways.
//
// As calls: the first agent called a handoff tool (the Agents SDK's
// transfer_to_billing_agent, LangGraph's transfer_to_…), and the second
// agent's request holds that call and its result, but offers its own tools,
// not the handoff tool. A call of a tool the request does not offer, when
// it offers some, is another agent's (ownCall): the generic policy neither
// answers from its result nor counts it among the calls of the turn, so
// the agent handed the question answers it with its own tools. A request
// that offers no tools is asked to answer: every result counts.
//
// As notes: a multi-agent framework may show one agent what the others
// said and did as a user message: ADK sends, to the agent a
// question was transferred to, "For context:" followed by lines
// "[agent] said: …", "[agent] called tool `name` with parameters: …" and
// "[agent] `name` tool returned result: …". Such a message is context, not
// what the user asked: the generic policy answers the latest user message
// that is not one (question).

// contextNote is how such a note opens.
const contextNote = "For context:"

// question is the latest user message of r that is not another agent's
// note, else the latest user message.
func question(r policy.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == llm.RoleUser && !isNote(m.Content) {
			return m.Content
		}
	}
	return r.LastUser()
}

// ownCall reports whether a call of tool name in r's conversation was its
// own agent's: r offers the tool, or offers none, or narrows the tools its
// answer may call (tool_choice: the policy sees only those, so it cannot
// tell a handoff tool from one the answer may not call again).
func ownCall(r policy.Request, name string) bool {
	return len(r.Tools) == 0 || r.Choice.None || r.Choice.Only != nil ||
		slices.ContainsFunc(r.Tools, func(t llm.Tool) bool { return t.Name == name })
}

// isNote reports whether text is another agent's note: "For context:"
// then an agent's name in brackets.
func isNote(text string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), contextNote)
	return ok && strings.HasPrefix(strings.TrimSpace(rest), "[")
}
