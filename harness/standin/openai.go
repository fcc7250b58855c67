package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// The OpenAI Chat Completions wire format, the stand-in's first: POST
// …/chat/completions is decoded into the Request every policy reads, and
// answered as a chat.completion with usage, or with stream: true as
// chat.completion.chunk events (stream_openai.go). Errors use OpenAI's body
// {"error": {"message", "type", "code"}}.

// wireRequest is the part of a Chat Completions request the stand-in reads.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	MaxTokens     int  `json:"max_tokens"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

var openAIDialect = dialect{
	writeError: writeError,
	malformed:  `{"id": "chatcmpl-standin", "choices": [{"message": {"role": "assistant", "content": "unterminated`,
	completion: func(model string, msg llm.Message, truncated bool, in, out int) (any, error) {
		return completion(model, msg, finishOf(msg, truncated, "stop", "length", "tool_calls"), in, out), nil
	},
}

func convert(wr wireRequest) Request {
	r := Request{Model: wr.Model, MaxTokens: wr.MaxTokens}
	if rf := wr.ResponseFormat; rf != nil {
		r.JSON = rf.Type == "json_object" || rf.Type == "json_schema"
		if rf.JSONSchema != nil {
			r.Schema = rf.JSONSchema.Schema
		}
	}
	for _, m := range wr.Messages {
		msg := llm.Message{Role: m.Role, Content: contentText(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)})
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range wr.Tools {
		r.Tools = append(r.Tools, llm.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return r
}

// contentText flattens string or [{type:text,text}] content.
func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			if m, ok := p.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					b.WriteString(t)
				}
			}
		}
		return b.String()
	}
	return ""
}

func completion(model string, msg llm.Message, finish string, in, out int) map[string]any {
	m := map[string]any{"role": "assistant", "content": msg.Content}
	if len(msg.ToolCalls) > 0 {
		var calls []map[string]any
		for _, tc := range msg.ToolCalls {
			calls = append(calls, map[string]any{
				"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": string(tc.Arguments)},
			})
		}
		m["tool_calls"] = calls
	}
	return map[string]any{
		"id":      "chatcmpl-standin",
		"object":  "chat.completion",
		"created": 0,
		"model":   model,
		"choices": []any{map[string]any{"index": 0, "message": m, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	}
}

func writeError(w http.ResponseWriter, status int, msg string, lat time.Duration) {
	writeErrorBody(w, status, lat, map[string]any{"error": map[string]any{"message": msg, "type": "standin_error", "code": fmt.Sprint(status)}})
}

// DecodeChat reads a Chat Completions request body as the stand-in does:
// the same reading harness scores an outside agent's model calls with.
func DecodeChat(body []byte) (Request, error) {
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return Request{}, err
	}
	return convert(wr), nil
}
