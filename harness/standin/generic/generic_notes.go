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
// that is not one (question). When ADK asks the agent that transferred the
// question again, after the agent it transferred to answered (it does
// when the answers stream), the notes say what that agent said, and that
// is relayed (handedBack).

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

// handedBack is the answer another agent gave to the message r's agent
// handed on, which a model relays rather than quoting its handoff's
// result or handing the message on again:
//
//   - as calls (LangGraph's supervisor: the worker answers, then calls
//     transfer_back_to_supervisor), the latest assistant message after the
//     last user message that has text and no calls, when a call of a tool
//     r does not offer (ownCall) follows it;
//   - as notes (ADK asks the agent that transferred the message again when
//     the agent it transferred to is done), what the latest note after
//     r's own call since the message says another agent said.
//
// A result of r's own calls after it ends either.
func handedBack(r policy.Request) (string, bool) {
	var text string
	back, called := false, false
	names := map[string]string{}
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
		switch {
		case m.Role == llm.RoleUser && isNote(m.Content):
			if s, ok := saidIn(m.Content); ok && called {
				text, back = s, true
			}
		case m.Role == llm.RoleUser:
			text, back, called = "", false, false
		case m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0:
			if strings.TrimSpace(m.Content) != "" {
				text, back = m.Content, false
			}
		case m.Role == llm.RoleAssistant:
			back = back || slices.ContainsFunc(m.ToolCalls, func(c llm.ToolCall) bool { return !ownCall(r, c.Name) })
			called = called || slices.ContainsFunc(m.ToolCalls, func(c llm.ToolCall) bool { return ownCall(r, c.Name) })
		case m.Role == llm.RoleTool && ownCall(r, cmp.Or(m.Name, names[m.ToolCallID])):
			text, back = "", false
		}
	}
	return text, back && text != ""
}

// saidIn is what a note says an agent said ("[parts_agent] said: …", up
// to that agent's next line), if it says so.
func saidIn(note string) (string, bool) {
	at := strings.LastIndex(note, "] said: ")
	if at < 0 {
		return "", false
	}
	open := strings.LastIndex(note[:at], "[")
	if open < 0 {
		return "", false
	}
	said := note[at+len("] said: "):]
	if end := strings.Index(said, note[open:at+1]); end >= 0 {
		said = said[:end] // the agent's next line: a call it made
	}
	said = strings.TrimSpace(said)
	return said, said != ""
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
