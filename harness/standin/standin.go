// Package standin is a deterministic stand-in model: a loopback server that
// speaks the OpenAI Chat Completions, Responses and embeddings, Gemini
// generateContent and Anthropic Messages wire formats (through package
// wire, which reads and writes them), streamed (server-sent events, see
// stream.go) or not, answers from the request alone through per-agent
// policies, models latency, reports usage, and can inject faults at a
// seeded rate.
//
// This package is the server and the registry of policies (Policies); the
// policies live in packages of their own, which never import it (see
// docs/standin.md, "Parts"). They follow each agent's prompt protocol as
// tables of named rules (package policy) that read the request alone —
// tool names, descriptions and schemas, the system prompt, the messages —
// through one shared multilingual lexicon (package lexicon), number and
// coordinate patterns, and date words relative to the request's "now"; the
// rule that decided is sent in cassette.RuleHeader. Paraphrases a policy
// has no rule for are answered wrongly, as a weak model would. It never
// sees scenario expectations, and a spec fails if its code holds a
// committed scenario's input (see docs/standin.md). An agent the stand-in
// has never seen is answered by the generic policy (package generic),
// asked only when no agent's own policy accepts a request: a plumbing
// stand-in that picks a tool by word overlap, fills its arguments from the
// schema and answers from the tool results, so that an outside agent can be
// recorded and replayed; its numbers measure plumbing, not a prompt, and
// cassettes and reports say so. It does not sleep: the latency it models
// travels in the cassette.LatencyHeader response header, which the
// recorder stores as the interaction's duration.
package standin

import (
	"github.com/agentreplay/testbed/harness/standin/generic"
	"github.com/agentreplay/testbed/harness/standin/grader"
	"github.com/agentreplay/testbed/harness/standin/policy"
	"github.com/agentreplay/testbed/harness/standin/seeds/cba"
	"github.com/agentreplay/testbed/harness/standin/seeds/climate"
	"github.com/agentreplay/testbed/harness/standin/seeds/family"
	"github.com/agentreplay/testbed/harness/standin/seeds/kura"
	"github.com/agentreplay/testbed/harness/standin/seeds/odbchat"
)

// Policy answers the requests of one agent protocol (see package policy).
type Policy = policy.Policy

// Request is a chat request as a policy sees it (see package policy).
type Request = policy.Request

// GenericName is the name of the generic policy (generic.Name), the value
// of cassette.PolicyHeader on the responses it gives.
const GenericName = generic.Name

// JudgeLabel is how the stand-in judge's scores are labelled wherever they
// appear: its reasons start with it.
const JudgeLabel = grader.Label

// Policies returns every policy the stand-in knows: the judge, the
// agent-specific ones, then the generic one, which accepts any request the others do not.
func Policies() []Policy {
	return []Policy{grader.Policy{}, odbchat.Router{}, odbchat.Classifier{}, odbchat.OnePass{}, climate.Advisor{}, family.Assistant{}, family.Visualization{}, cba.Assistant{}, kura.Planner{}, kura.Executor{}, kura.Synthesizer{}, generic.New()}
}
