package policy

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// What answers share: the tool call a policy emits, and what it reads back
// from the messages and the tools' schemas.

// ToolCaller returns a function that emits one tool call with a
// deterministic id.
func ToolCaller(r Request) func(string, map[string]any) (llm.Message, error) {
	n := 0
	for _, m := range r.Messages {
		n += len(m.ToolCalls)
	}
	return func(name string, args map[string]any) (llm.Message, error) {
		b, _ := json.Marshal(args)
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_" + strconv.Itoa(n+1), Name: name, Arguments: b}}}, nil
	}
}

// LastCall is the last tool call of msgs, or nil when they have none.
func LastCall(msgs []llm.Message) *llm.ToolCall {
	var out *llm.ToolCall
	for i := range msgs {
		for j := range msgs[i].ToolCalls {
			out = &msgs[i].ToolCalls[j]
		}
	}
	return out
}

// ResultOf is the content of the tool result that answers call id in msgs,
// or "".
func ResultOf(msgs []llm.Message, id string) string {
	for _, m := range msgs {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}

// ClipText cuts s to its first n runes, marking a cut with "…".
func ClipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// SchemaEnum returns the enum of property prop of a JSON schema.
func SchemaEnum(schema json.RawMessage, prop string) []string {
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	return s.Properties[prop].Enum
}

// SchemaOf reads raw as a JSON object schema; anything else is empty.
func SchemaOf(raw json.RawMessage) map[string]any {
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil || s == nil {
		return map[string]any{}
	}
	return s
}

// FirstSentence is the first sentence of s, its spaces folded, that ends
// after its first 20 bytes; else s cut to 200 bytes.
func FirstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i, r := range s {
		if (r == '.' || r == '。') && i > 20 {
			return s[:i+len(string(r))]
		}
	}
	if len(s) > 200 {
		return s[:200]
	}
	return s
}
