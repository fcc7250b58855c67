package agenttest

import "github.com/agentreplay/testbed/agents/llm"

// Answer is one scripted model answer to a request, for the fake models of
// agents' specs.
type Answer func(req llm.Request) (llm.Message, error)

// Say answers with text.
func Say(text string) Answer {
	return func(llm.Request) (llm.Message, error) {
		return llm.Message{Role: llm.RoleAssistant, Content: text}, nil
	}
}

// Fail answers with err, as an unreachable provider does.
func Fail(err error) Answer {
	return func(llm.Request) (llm.Message, error) { return llm.Message{}, err }
}
