package wire

import (
	"bytes"
	"slices"
)

// SortToolResults puts every run of consecutive tool results in an array of
// v, a decoded JSON request body, at any depth, in one order (by their JSON
// text), so that two requests that differ only in the order of the results
// of one turn's tool calls become equal. An agent that runs a turn's tools
// at once and sends their results as they finish sends them in a different
// order on every run. A tool result is what each dialect calls one: a Chat
// Completions or Ollama message of role tool, a Responses function_call_output
// or custom_tool_call_output item, an Anthropic tool_result block, a Gemini
// functionResponse part, an Interactions function_result step. Nothing else
// moves: a message between two results ends the run.
func SortToolResults(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			SortToolResults(x)
		}
	case []any:
		for _, x := range v {
			SortToolResults(x)
		}
		for start := 0; start < len(v); {
			end := start
			for end < len(v) && isToolResult(v[end]) {
				end++
			}
			if end-start > 1 {
				sortByJSON(v[start:end])
			}
			start = max(end, start+1)
		}
	}
}

// isToolResult reports whether v is a tool result in one of the dialects
// SortToolResults names.
func isToolResult(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if m["role"] == "tool" {
		return true
	}
	switch m["type"] {
	case "function_call_output", "custom_tool_call_output", "tool_result", "function_result":
		return true
	}
	_, gemini := m["functionResponse"]
	_, snake := m["function_response"]
	return gemini || snake
}

// sortByJSON sorts run by each element's JSON text, keeping equal ones in
// their order.
func sortByJSON(run []any) {
	type keyed struct {
		key []byte
		v   any
	}
	ks := make([]keyed, len(run))
	for i, v := range run {
		b, _ := MarshalPlain(v)
		ks[i] = keyed{b, v}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return bytes.Compare(a.key, b.key) })
	for i, k := range ks {
		run[i] = k.v
	}
}
