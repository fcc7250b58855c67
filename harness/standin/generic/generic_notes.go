package generic

import (
	"cmp"
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
// that offers no tools is asked to answer: every result counts. When the
// other agent answered and handed the question back, its answer is
// relayed (handedBack).
//
// As notes: ADK sends, to the agent a question was transferred to, what
// the others said and did as a user message, "For context:" followed by
// lines
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

// handedBack is the answer another agent gave before handing the message
// back to r's agent (LangGraph's supervisor: the worker answers, then
// calls transfer_back_to_supervisor): the latest assistant message after
// the last user message that has text and no calls, when a call of a tool
// r does not offer (ownCall) follows it and no result of r's own calls
// does. A model relays it rather than quoting its handoff's result.
func handedBack(r policy.Request) (string, bool) {
	var text string
	back := false
	names := map[string]string{}
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
		switch {
		case m.Role == llm.RoleUser:
			text, back = "", false
		case m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0:
			if strings.TrimSpace(m.Content) != "" {
				text, back = m.Content, false
			}
		case m.Role == llm.RoleAssistant:
			back = back || slices.ContainsFunc(m.ToolCalls, func(c llm.ToolCall) bool { return !ownCall(r, c.Name) })
		case m.Role == llm.RoleTool && ownCall(r, cmp.Or(m.Name, names[m.ToolCallID])):
			text, back = "", false
		}
	}
	return text, back && text != ""
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
