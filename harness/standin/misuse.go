package standin

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/agentreplay/testbed/agents/llm"
)

// UnknownTool is the name a FaultUnknownTool call gives its tool.
const UnknownTool = "fetch_everything"

// badArgs are the arguments of a FaultBadArgs call: a field no tool
// declares, and none of the ones it requires.
var badArgs = json.RawMessage(`{"unexpected_field":[1,2,3]}`)

// ExtraField is the field a FaultExtraField answer carries.
const ExtraField = "unexpected_field"

// answers reports whether fault is one the stand-in applies to an answer
// (rather than answering with an error in its place).
func answers(fault string) bool {
	return fault == FaultUnknownTool || fault == FaultBadArgs || fault == FaultExtraField || streamFault(fault)
}

// misuse applies an answer fault to msg and reports whether it could.
func misuse(msg llm.Message, fault string) (llm.Message, bool) {
	if streamFault(fault) {
		return msg, false // the stream is shaped as it is written
	}
	if fault == FaultExtraField {
		return extraField(msg)
	}
	return misuseTool(msg, fault)
}

// extraField adds ExtraField to the first object (in key order) inside the
// first tool call's arguments, else inside the JSON object msg holds. A
// string value that holds a JSON object (a chart spec passed as a string)
// counts as an object and stays a string.
func extraField(msg llm.Message) (llm.Message, bool) {
	if len(msg.ToolCalls) > 0 {
		out, ok := withExtraField(string(msg.ToolCalls[0].Arguments))
		if ok {
			calls := append([]llm.ToolCall(nil), msg.ToolCalls...)
			calls[0].Arguments = json.RawMessage(out)
			msg.ToolCalls = calls
		}
		return msg, ok
	}
	out, ok := withExtraField(msg.Content)
	if ok {
		msg.Content = out
	}
	return msg, ok
}

// withExtraField is text, a JSON object, with ExtraField added to the first
// object inside it.
func withExtraField(text string) (string, bool) {
	var doc map[string]any
	if json.Unmarshal([]byte(text), &doc) != nil {
		return text, false
	}
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		switch v := doc[k].(type) {
		case map[string]any:
			v[ExtraField] = []any{1, 2, 3}
		case string:
			inner, ok := withExtraField(v)
			if !ok {
				continue
			}
			doc[k] = inner
		default:
			continue
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return text, false
		}
		return string(b), true
	}
	return text, false
}

// misuseTool applies FaultUnknownTool or FaultBadArgs to an answer: to its
// first tool call, else to the first tool named in its JSON content (an
// object with "name", "action" or "tool" beside "arguments" or "args", as
// in a router's decision or a planner's step). It reports whether the answer
// had a tool to misuse.
func misuseTool(msg llm.Message, fault string) (llm.Message, bool) {
	if len(msg.ToolCalls) > 0 {
		calls := append([]llm.ToolCall(nil), msg.ToolCalls...)
		if fault == FaultUnknownTool {
			calls[0].Name = UnknownTool
		} else {
			calls[0].Arguments = badArgs
		}
		msg.ToolCalls = calls
		return msg, true
	}
	var doc any
	if json.Unmarshal([]byte(msg.Content), &doc) != nil {
		return msg, false
	}
	if !misuseJSON(doc, fault) {
		return msg, false
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return msg, false
	}
	msg.Content = string(b)
	return msg, true
}

// misuseJSON changes, in place, the first object that names a tool and
// carries its arguments.
func misuseJSON(v any, fault string) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, name := range []string{"name", "action", "tool"} {
			if _, named := t[name].(string); !named {
				continue
			}
			for _, key := range []string{"arguments", "args"} {
				if _, ok := t[key]; ok {
					if fault == FaultUnknownTool {
						t[name] = UnknownTool
					} else {
						var bad any
						json.Unmarshal(badArgs, &bad)
						t[key] = bad
					}
					return true
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if misuseJSON(t[k], fault) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if misuseJSON(e, fault) {
				return true
			}
		}
	}
	return false
}
