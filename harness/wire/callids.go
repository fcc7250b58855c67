package wire

import "fmt"

// NumberGeminiCallIDs replaces, in v (a decoded generateContent request, as
// encoding/json decodes into any), the ids of its function calls and
// function responses by their order of first appearance: "<call-1>",
// "<call-2>", …. Gemini often gives a call no id, and clients then make one
// up (the Vercel AI SDK's Google provider, Google's ADK), differently on
// every run; numbered, two runs' requests compare equal while a response
// that answers a different call than before still does not.
func NumberGeminiCallIDs(v any) {
	req, _ := v.(map[string]any)
	contents, _ := req["contents"].([]any)
	ids := callNumbers{}
	for _, c := range contents {
		content, _ := c.(map[string]any)
		parts, _ := content["parts"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			for _, key := range []string{"functionCall", "function_call", "functionResponse", "function_response"} {
				f, _ := part[key].(map[string]any)
				ids.number(f, "id")
			}
		}
	}
}

// NumberOllamaCallIDs does for a request to Ollama's /api/chat what
// NumberGeminiCallIDs does for Gemini's: the ids of the tool calls in its
// messages (tool_calls[].id) and of the results that answer them
// (tool_call_id) are replaced by their order of first appearance. Ollama
// gives a tool call no id, and clients make one up (LangChain.js's
// ChatOllama, a random UUID), differently on every run.
func NumberOllamaCallIDs(v any) {
	req, _ := v.(map[string]any)
	messages, _ := req["messages"].([]any)
	ids := callNumbers{}
	for _, m := range messages {
		msg, _ := m.(map[string]any)
		calls, _ := msg["tool_calls"].([]any)
		for _, c := range calls {
			call, _ := c.(map[string]any)
			ids.number(call, "id")
		}
		ids.number(msg, "tool_call_id")
	}
}

// callNumbers numbers call ids in order of first appearance.
type callNumbers map[string]string

// number replaces m[key], a non-empty string id, by its number.
func (ids callNumbers) number(m map[string]any, key string) {
	id, ok := m[key].(string)
	if !ok || id == "" {
		return
	}
	if _, seen := ids[id]; !seen {
		ids[id] = fmt.Sprintf("<call-%d>", len(ids)+1)
	}
	m[key] = ids[id]
}
