package wire

import (
	"bytes"
	"encoding/json"
)

// objectArgs is a tool call's arguments sent as a JSON object (Anthropic's
// tool_use input, Gemini's functionCall args, Ollama's and the Interactions
// API's arguments) as a call reads them: {} for none or null, else the
// object compact. The client chose the white space, not the model: one SDK
// version indents a conversation's earlier calls and the next does not, and
// the tokens counted for them must not change with it (an OpenAI call's
// arguments are a string the model wrote, and are read as written).
func objectArgs(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// compactText is a JSON value a tool's result holds (Gemini's
// functionResponse, an Interactions function_result) as the text the
// model is given: compact, as objectArgs is and for the same reason; as
// it is when it is not JSON.
func compactText(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(bytes.TrimSpace(raw))
	}
	return b.String()
}
