package otlp

// A model call's messages as the GenAI conventions' message attributes
// (gen_ai.input.messages, gen_ai.system_instructions,
// gen_ai.output.messages): JSON strings of the conventions' schemas, whose
// parts are text, tool_call and tool_call_response.

import (
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/trace"
)

// part is one part of a message.
type part struct {
	Type      string          `json:"type"`
	Content   *string         `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  *string         `json:"response,omitempty"`
}

// message is one message: its role, its parts, and for an answer why the
// model stopped.
type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

func text(s string) part { return part{Type: "text", Content: &s} }

func toJSON(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(out)
}

// answer is a model call's answer as gen_ai.output.messages JSON: one
// message, with the reason the model stopped in the conventions' words.
func answer(c *trace.LLMCall) string {
	msg := message{Role: llm.RoleAssistant, Parts: []part{}, FinishReason: finishReason(c)}
	if c.Text != "" {
		msg.Parts = append(msg.Parts, text(c.Text))
	}
	for _, t := range c.ToolCalls {
		msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: t.ID, Name: t.Name, Arguments: arguments(t.Arguments)})
	}
	return toJSON([]message{msg})
}

// finishReason is why the model stopped, as the output messages' schema
// names it: the neutral reasons are its own but for tool_calls (its
// tool_call); a call whose reason was not read stopped with its answer.
func finishReason(c *trace.LLMCall) string {
	switch c.FinishReason {
	case "":
		if len(c.ToolCalls) > 0 {
			return "tool_call"
		}
		return "stop"
	case llm.FinishToolCalls:
		return "tool_call"
	}
	return c.FinishReason
}

// prompt is what a model call was sent, when the run kept it (run
// --prompts): its system messages as gen_ai.system_instructions, the
// others in order as gen_ai.input.messages; none when it was not kept.
func prompt(p *trace.Prompt) []attribute.KeyValue {
	if p == nil {
		return nil
	}
	var system []part
	input := []message{}
	for _, m := range p.Messages {
		switch m.Role {
		case llm.RoleSystem:
			system = append(system, text(m.Content))
		case llm.RoleTool:
			input = append(input, message{Role: m.Role, Parts: []part{{Type: "tool_call_response", ID: m.ToolCallID, Response: &m.Content}}})
		default:
			msg := message{Role: m.Role, Parts: []part{}}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				msg.Parts = append(msg.Parts, text(m.Content))
			}
			for _, tc := range m.ToolCalls {
				msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: tc.ID, Name: tc.Name, Arguments: arguments(tc.Arguments)})
			}
			input = append(input, msg)
		}
	}
	attrs := []attribute.KeyValue{semconv.GenAIInputMessagesKey.String(toJSON(input))}
	if len(system) > 0 {
		attrs = append(attrs, semconv.GenAISystemInstructionsKey.String(toJSON(system)))
	}
	return attrs
}

// arguments is a tool call's arguments as JSON: as they are when they are
// JSON, else as a JSON string (null when empty).
func arguments(a json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(a))) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(a) {
		return a
	}
	q, _ := json.Marshal(string(a))
	return q
}
