package wire

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// anthropicEncoder answers a request whose body and sample are given, with
// ids derived from them (the message's, and the request-id header's that
// an error body repeats, as the API's do), as a stream when stream
// (stream_anthropic.go).
// managed, when set, is what managing the request's context did
// (anthropic_context.go), which the answer says.
func anthropicEncoder(body []byte, sample int, stream bool, thinks thinkingDisplay, managed *anthropicManaged, keep func(id string, answer llm.Message)) Encoder {
	sum := requestHash(body, sample)
	id := new(big.Int).SetBytes(sum[:15]).Text(62)
	requestID := anthropicRequestID(sum)
	d := Encoder{
		Header: http.Header{"Request-Id": {requestID}},
		Error: func(status int, msg string) any {
			e := anthropicError(status, msg)
			e["request_id"] = requestID
			return e
		},
		Malformed: `{"id": "msg_01` + id + `", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "unterminated`,
		Completion: func(model string, msg llm.Message, end End, in, out int) (any, error) {
			m, err := anthropicMessage(id, model, msg, end, in, out, thinks)
			if err == nil {
				managed.say(m)
			}
			if err == nil && keep != nil {
				keep(m["id"].(string), anthropicAnswer(m))
			}
			return m, err
		},
	}
	if stream {
		events := anthropicEvents(id, thinks, managed)
		d.Events = func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
			evs, err := events(model, msg, end, in, out)
			if err == nil && keep != nil {
				m, _ := anthropicMessage(id, model, msg, end, in, out, thinks) // as the stream carries it
				managed.say(m)
				keep(m["id"].(string), anthropicAnswer(m))
			}
			return evs, err
		}
	}
	return d
}

// anthropicAnswer is the answer m (anthropicMessage) carries, as a request
// that sends it back is read: its text, and its tool_use blocks with their
// ids and inputs as sent.
func anthropicAnswer(m map[string]any) llm.Message {
	answer := llm.Message{Role: llm.RoleAssistant}
	for _, b := range m["content"].([]any) {
		switch b := b.(map[string]any); b["type"] {
		case "text":
			answer.Content += b["text"].(string)
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			answer.ToolCalls = append(answer.ToolCalls, llm.ToolCall{ID: b["id"].(string), Name: b["name"].(string), Arguments: input})
		}
	}
	return answer
}

// anthropicStop is the stop_reason of an answer carrying msg that ended as
// end says, and its stop_sequence: the one it met, else null.
func anthropicStop(msg llm.Message, end End) (reason string, seq any) {
	if end.Stop != "" && !end.Truncated {
		return "stop_sequence", end.Stop
	}
	return finishOf(msg, end, "end_turn", "max_tokens", "tool_use"), nil
}

// anthropicMessage is a Messages response for msg (with its thinking shown
// as thinks says), with the fields a
// recent recorded response of the API has and no others: the SDKs' types
// name more (a text block's citations, the message's container and
// diagnostics, usage's server_tool_use), which the API leaves out when it
// has nothing to say, and clients that check the shape (the Vercel AI SDK
// does, with a schema) refuse a null where they expect an array. Tool call
// arguments must be JSON objects: tool_use inputs are.
func anthropicMessage(id, model string, msg llm.Message, end End, in, out int, thinks thinkingDisplay) (map[string]any, error) {
	stop, seq := anthropicStop(msg, end)
	content := []any{}
	if thinks != noThinking {
		text := thinkingOf(msg)
		toks, err := answerTokens(text)
		if err != nil {
			return nil, err
		}
		sig := sha256.Sum256([]byte(id + text))
		shown := text
		if thinks == thinkingOmitted {
			shown = "" // the signature alone carries it
		}
		content = append(content, map[string]any{"type": "thinking", "thinking": shown, "signature": base64.StdEncoding.EncodeToString(sig[:])})
		out += len(toks) // thinking is billed as output, shown or not
	}
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": msg.Content})
	}
	for i, tc := range msg.ToolCalls {
		input, err := argsObject(tc)
		if err != nil {
			return nil, err
		}
		content = append(content, map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_01%s%d", id, i+1), "name": tc.Name, "input": input,
			"caller": map[string]any{"type": "direct"},
		})
	}
	return map[string]any{
		"id": "msg_01" + id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": seq, "stop_details": nil,
		"usage": map[string]any{
			"input_tokens": in, "output_tokens": out,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
			"cache_creation": map[string]any{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
			"service_tier":   "standard", "inference_geo": "not_available",
		},
	}, nil
}

// thinkingOf is the thinking the stand-in shows before msg when a request
// enables thinking: what it decided, from the request alone, in a line.
func thinkingOf(msg llm.Message) string {
	if len(msg.ToolCalls) == 0 {
		return "Deciding from the request alone: answer in text."
	}
	names := make([]string, len(msg.ToolCalls))
	for i, tc := range msg.ToolCalls {
		names[i] = tc.Name
	}
	return "Deciding from the request alone: call " + strings.Join(names, ", ") + "."
}
