package standin_test

import (
	"encoding/json"
	"testing"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/standin/generic"
)

// FuzzGeneric checks that the generic policy answers any tool schema, user
// text (also given as a system prompt, where it may describe options) and
// tool result without panicking or failing: a tool call names the
// offered tool and carries a JSON object, at most four at once, and a JSON
// mode text answer is a JSON object.
func FuzzGeneric(f *testing.F) {
	f.Add(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`, "weather in Oslo and Lima tomorrow", false, "")
	f.Add(`{"anyOf": [{"type": "null"}, {"type": "object", "required": ["a"], "properties": {"a": {"type": ["null", "integer"], "minimum": 3}}}]}`, "weather 2026-01-01 at 10:30 -4", true, "")
	f.Add(`{"type": "object", "required": ["x", 1, null], "properties": {"x": {"type": "array", "items": {"enum": [1, "a", null]}}}}`, "weather \"quoted\" «x»", false, `{"error": true}`)
	f.Add(`[1, 2]`, "台北明天的天氣", true, `{"a": [1, {"b": null}], "c": "d"}`)
	f.Add(`{"type": `, "Compare Paris, Berlin and Rome weather", false, "Error: boom")
	f.Add(`{"type": "object", "properties": {"agent_name": {"type": "string", "enum": ["a_agent", "b_agent"]}}, "required": ["agent_name"]}`,
		"Agent name: a_agent\nAgent description: the weather here\n\n- b_agent: | anything else", false, "")
	f.Fuzz(func(t *testing.T, schema, text string, jsonMode bool, result string) {
		tl := llm.Tool{Name: "weather", Description: "weather for a place", Parameters: json.RawMessage(schema)}
		r := standin.Request{Model: "m", Tools: []llm.Tool{tl}, Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Today is 2026-11-25."}, {Role: llm.RoleSystem, Content: text}, {Role: llm.RoleUser, Content: text}}}
		if jsonMode {
			r.Output, r.Schema = llm.OutputJSON, json.RawMessage(schema)
		}
		if result != "" {
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "weather", Arguments: json.RawMessage(`{}`)}}},
				llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: result})
		}
		msg, _, err := generic.New().Decide(r)
		if err != nil {
			t.Fatalf("Decide: %v", err)
		}
		if len(msg.ToolCalls) > 4 || (result != "" && len(msg.ToolCalls) > 0) {
			t.Fatalf("%d tool calls (result %q)", len(msg.ToolCalls), result)
		}
		for _, c := range msg.ToolCalls {
			var args map[string]any
			if c.Name != tl.Name || json.Unmarshal(c.Arguments, &args) != nil || args == nil {
				t.Fatalf("call %s(%s) is not the offered tool with a JSON object", c.Name, c.Arguments)
			}
		}
		if jsonMode && len(msg.ToolCalls) == 0 {
			var obj map[string]any
			if json.Unmarshal([]byte(msg.Content), &obj) != nil || obj == nil {
				t.Fatalf("JSON mode answer %q is not a JSON object", msg.Content)
			}
		}
	})
}
