package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Ollama's native chat API. POST …/api/chat is decoded into the same
// Request the other dialects give:
//
//   - system, user, assistant and tool messages keep their roles; images
//     and an assistant's thinking are left out;
//   - a tool call has no id (a newer server's is not kept either): each is
//     numbered call_1, call_2 … by its place among the conversation's
//     calls (CallID), as Gemini's are; its arguments are a JSON object;
//   - a tool message answers the earliest unanswered call of its
//     tool_name, or, without one (older clients), the earliest unanswered
//     call;
//   - format "json" is JSON mode, and a format that is a JSON Schema asks
//     for that schema (its title names the shape); options.num_predict is
//     the token limit (negative: none) and options.stop the stop sequences;
//   - think true, or a level ("high", "medium", "low"), asks the model to
//     think: the answer's thinking comes apart from its text, in
//     message.thinking (a completion's in thinking), streamed before it,
//     its tokens counted in eval_count; false, null or none asks nothing.
//
// A request streams unless it says "stream": false: its answer is then
// newline-delimited JSON (OllamaStreamType), one chunk a line, each with
// a piece of the message, the last with done true, why it ended
// (done_reason) and the token counts (prompt_eval_count, eval_count).
// Errors are {"error": "…"}, a line of its own in a stream.

// OllamaChatPath ends the path of a chat call to Ollama's native API.
const OllamaChatPath = "/api/chat"

// OllamaGeneratePath ends the path of a completion call to Ollama's
// native API: a prompt (and a system prompt), no tools, the text in
// "response" rather than in a message.
const OllamaGeneratePath = "/api/generate"

// IsOllama reports whether path is a model call to Ollama's native API:
// a chat or a completion.
func IsOllama(path string) bool {
	return strings.HasSuffix(path, OllamaChatPath) || strings.HasSuffix(path, OllamaGeneratePath)
}

// ollamaGenerate reports whether path is a completion call.
func ollamaGenerate(path string) bool { return strings.HasSuffix(path, OllamaGeneratePath) }

// OllamaStreamType is the media type of Ollama's streamed answers.
const OllamaStreamType = "application/x-ndjson"

// ollamaRequest is the part of an /api/chat request the package reads.
type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []struct {
		Function chatFunction `json:"function"`
	} `json:"tools"`
	// Format is "json", or the JSON Schema the answer must follow.
	Format  json.RawMessage `json:"format"`
	Options struct {
		NumPredict       int             `json:"num_predict"`
		Stop             json.RawMessage `json:"stop"`
		Temperature      *float64        `json:"temperature"`
		TopP             *float64        `json:"top_p"`
		TopK             *float64        `json:"top_k"`
		Seed             *int            `json:"seed"`
		FrequencyPenalty *float64        `json:"frequency_penalty"`
		PresencePenalty  *float64        `json:"presence_penalty"`
	} `json:"options"`
	// Stream is true unless given.
	Stream *bool `json:"stream"`
	// Prompt and System are a completion's (/api/generate), read as a
	// system and a user message.
	Prompt string `json:"prompt"`
	System string `json:"system"`
	// Think is true, false, a level or null.
	Think json.RawMessage `json:"think"`
}

// thinks reports whether or asks the model to think, or why its think
// cannot be read, in the words of Ollama's own error.
func (or ollamaRequest) thinks() (bool, error) {
	var on bool
	var level string
	switch t := bytes.TrimSpace(or.Think); {
	case len(t) == 0 || string(t) == "null":
		return false, nil
	case json.Unmarshal(t, &on) == nil:
		return on, nil
	case json.Unmarshal(t, &level) == nil && (level == "high" || level == "medium" || level == "low"):
		return true, nil
	default:
		return false, fmt.Errorf(`invalid think value: %s (must be "high", "medium", "low", true, or false)`, t)
	}
}

// at is or as a chat: a completion's system prompt and prompt become its
// messages.
func (or ollamaRequest) at(path string) ollamaRequest {
	if ollamaGenerate(path) {
		or.Messages = nil
		if or.System != "" {
			or.Messages = append(or.Messages, ollamaMessage{Role: llm.RoleSystem, Content: or.System})
		}
		or.Messages = append(or.Messages, ollamaMessage{Role: llm.RoleUser, Content: or.Prompt})
	}
	return or
}

// streams reports whether or asks for a streamed answer: unless it says
// "stream": false.
func (or ollamaRequest) streams() bool { return or.Stream == nil || *or.Stream }

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	ToolCalls []ollamaToolCall `json:"tool_calls"`
	ToolName  string           `json:"tool_name"`
}

// ollamaToolCall is a tool call as Ollama carries it, in a request's
// assistant message or in an answer.
type ollamaToolCall struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// decode reads or as a Request.
func (or ollamaRequest) decode() (Request, error) {
	o := or.Options
	r := Request{Model: or.Model, Temperature: o.Temperature, Sampling: llm.Sampling{Stop: stopList(o.Stop), TopP: o.TopP, TopK: o.TopK,
		Seed: o.Seed, FrequencyPenalty: o.FrequencyPenalty, PresencePenalty: o.PresencePenalty}}
	if or.Options.NumPredict > 0 {
		r.MaxTokens = or.Options.NumPredict
	}
	if f := bytes.TrimSpace(or.Format); len(f) > 0 && string(f) != "null" && string(f) != `""` {
		var kind string
		switch {
		case json.Unmarshal(f, &kind) == nil && kind == "json":
			r.Output = llm.OutputJSON
		case f[0] == '{':
			var titled struct {
				Title string `json:"title"`
			}
			json.Unmarshal(f, &titled)
			r.Output, r.Schema, r.Shape = llm.OutputJSON, json.RawMessage(f), titled.Title
		default:
			return Request{}, fmt.Errorf("format %s is neither \"json\" nor a JSON Schema", f)
		}
	}
	var pending []pendingCall
	calls := 0
	for _, m := range or.Messages {
		msg := llm.Message{Role: m.Role, Content: m.Content}
		for _, tc := range m.ToolCalls {
			calls++
			args := objectArgs(tc.Function.Arguments)
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: CallID(calls), Name: tc.Function.Name, Arguments: args})
			pending = append(pending, pendingCall{id: CallID(calls), name: tc.Function.Name})
		}
		if m.Role == llm.RoleTool {
			msg.Name = m.ToolName
			j := answered(pending, "", m.ToolName)
			if j < 0 && m.ToolName == "" && len(pending) > 0 {
				j = 0
			}
			if j >= 0 {
				msg.ToolCallID, msg.Name = pending[j].id, pending[j].name
				pending = slices.Delete(pending, j, j+1)
			}
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range or.Tools {
		r.Tools = append(r.Tools, t.Function.tool())
	}
	return r, nil
}

// ollamaChunk is an /api/chat answer, or one line of its stream.
type ollamaChunk struct {
	Model   string `json:"model"`
	Message struct {
		Content   string           `json:"content"`
		ToolCalls []ollamaToolCall `json:"tool_calls"`
	} `json:"message"`
	Response   string `json:"response"` // a completion's text
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	Prompt     int    `json:"prompt_eval_count"`
	Eval       int    `json:"eval_count"`
	Error      string `json:"error"`
}

// ReadOllama reads an /api/chat or /api/generate answer, whole or
// streamed (a chunk a line), as the official clients put it together: its text, its tool
// calls (without ids: CallID numbers them), the token counts and why it
// ended (done_reason stop is FinishToolCalls when the answer calls tools).
// It reads the chunks as a sequence of JSON values, whatever the space
// between them. Its error is an error chunk, one it cannot read, or a
// stream cut off before its done chunk.
func ReadOllama(b []byte) (llm.Response, error) {
	out := llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	dec := json.NewDecoder(bytes.NewReader(b))
	done := false
	for {
		var c ollamaChunk
		if err := dec.Decode(&c); err == io.EOF {
			break
		} else if err != nil {
			return out, fmt.Errorf("ollama answer: %w", err)
		}
		if c.Error != "" {
			return out, errors.New("ollama: " + c.Error)
		}
		out.Model = c.Model
		out.Message.Content += c.Message.Content + c.Response
		for _, tc := range c.Message.ToolCalls {
			out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		if c.Done {
			done = true
			out.Usage = llm.Usage{InputTokens: c.Prompt, OutputTokens: c.Eval}
			out.RawFinishReason = c.DoneReason
		}
	}
	if !done {
		return out, errors.New("ollama answer ended before its done chunk")
	}
	out.FinishReason = finishReason(out.RawFinishReason, out.Message, map[string]string{"stop": llm.FinishStop, "length": llm.FinishLength})
	return out, nil
}

// finishReason is why an answer msg ended, read from the raw reason its
// dialect gave by names: llm.FinishStop is llm.FinishToolCalls when msg
// calls tools, a reason names does not hold is llm.FinishOther, and none
// is none.
func finishReason(raw string, msg llm.Message, names map[string]string) string {
	r, ok := names[raw]
	switch {
	case raw == "":
		return ""
	case !ok:
		return llm.FinishOther
	case r == llm.FinishStop && len(msg.ToolCalls) > 0:
		return llm.FinishToolCalls
	}
	return r
}
