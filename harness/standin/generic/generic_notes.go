package generic

import (
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Notes of other agents. A multi-agent framework may show one agent what
// the others said and did as a user message: ADK sends, to the agent a
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

// isNote reports whether text is another agent's note: "For context:"
// then an agent's name in brackets.
func isNote(text string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), contextNote)
	return ok && strings.HasPrefix(strings.TrimSpace(rest), "[")
}
