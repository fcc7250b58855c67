package wire

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// The OpenAI Chat Completions wire format: POST …/chat/completions is
// decoded into a Request, and answered as a chat.completion with usage, or
// with stream: true as chat.completion.chunk events (stream_openai.go),
// with the fields OpenAI's reference gives them (see completion). Its
// chatcmpl- id and x-request-id derive from a hash of the request and its
// sample, so recordings are reproducible and every distinct request gets
// its own; so do its tool calls' ids, call_ and 24 characters as OpenAI's
// are (callIDs). Errors are in OpenAI's shape (errors.go). A request that
// offers functions the legacy way (functions, function_call) is read as
// tools and answered with one function_call.

// chatRequest is the part of a Chat Completions request the package reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role         string            `json:"role"`
		Name         string            `json:"name"` // a function message's function
		Content      any               `json:"content"`
		ToolCallID   string            `json:"tool_call_id"`
		ToolCalls    []ChatToolCall    `json:"tool_calls"`
		FunctionCall *ChatFunctionCall `json:"function_call"` // the legacy functions API's call
	} `json:"messages"`
	Tools []struct {
		Function chatFunction `json:"function"`
		// Custom is a custom tool (type custom): called with free text
		// its format describes, not JSON arguments.
		Custom *chatFunction `json:"custom"`
	} `json:"tools"`
	// Functions and FunctionCall are the legacy functions API, which
	// tools and tool_choice replaced and the API still serves: its answer
	// carries one function_call, and a function message (role function,
	// with the function's name) gives its result.
	Functions           []chatFunction  `json:"functions"`
	FunctionCall        json.RawMessage `json:"function_call"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`
	MaxTokens           int             `json:"max_tokens"`
	Temperature         *float64        `json:"temperature"`
	ReasoningEffort     string          `json:"reasoning_effort"`
	MaxCompletionTokens int             `json:"max_completion_tokens"` // what max_tokens became; reasoning models take only this
	Stream              bool            `json:"stream"`
	ServiceTier         string          `json:"service_tier"` // echoed: the tier that served it (serviceTier)
	N                   *int            `json:"n"`            // how many choices to answer: 1 unless given
	TopP                *float64        `json:"top_p"`
	Seed                *int            `json:"seed"`
	FrequencyPenalty    *float64        `json:"frequency_penalty"`
	PresencePenalty     *float64        `json:"presence_penalty"`
	// Logprobs asks for the answer's token log probabilities, each with
	// up to TopLogprobs alternatives (logprobs.go).
	Logprobs    bool `json:"logprobs"`
	TopLogprobs *int `json:"top_logprobs"`
	// Stop is where the answer's text must end: a string, or up to four.
	Stop          json.RawMessage `json:"stop"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict *bool           `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
	// Modalities are the outputs asked for: ["text"], or ["text",
	// "audio"] for speech.
	Modalities []string `json:"modalities"`
}

// chatFunction is a function a request offers, as a tool or in functions.
type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"` // structured outputs: parameters in strict mode's subset (strict.go)
}

// deployed takes the model from an Azure OpenAI path when the body names
// none: the deployment is the model there.
func (wr *chatRequest) deployed(path string) {
	if wr.Model == "" {
		wr.Model, _ = AzureDeployment(path)
	}
}

// legacy reports whether wr offers functions in the legacy way only, to
// be answered with a function_call.
func (wr chatRequest) legacy() bool { return len(wr.Functions) > 0 && len(wr.Tools) == 0 }

// served returns why the stand-in cannot answer wr, a request the API
// takes, or nil: a custom tool (type custom), called with free text no
// policy writes, is refused as the Responses API's are (responses.go),
// not answered with a function call in its place.
func (wr chatRequest) served() error {
	for i, t := range wr.Tools {
		if t.Custom != nil {
			return &invalid{msg: fmt.Sprintf("tools[%d]: the stand-in serves function tools, not \"custom\"", i), param: fmt.Sprintf("tools[%d].type", i)}
		}
	}
	return nil
}

// ChatFunctionCall is a call of the legacy functions API, in a request's
// assistant message or in an answer.
type ChatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ChatToolCall is a tool call as Chat Completions carries it, in a
// request's assistant message or in an answer: a function's, or a custom
// tool's (type custom), whose input is free text.
type ChatToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	Custom *struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

// Call is tc as an llm.ToolCall; a custom tool's call has its input, as
// a JSON string, for arguments.
func (tc ChatToolCall) Call() llm.ToolCall {
	if c := tc.Custom; c != nil {
		return llm.ToolCall{ID: tc.ID, Name: c.Name, Arguments: textArguments(c.Input)}
	}
	return llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)}
}

// textArguments is the free-text input of a custom tool's call as
// arguments: a JSON string.
func textArguments(input string) json.RawMessage {
	b, _ := json.Marshal(input) // a string always marshals
	return b
}

// SystemFingerprint is the system_fingerprint of every Chat Completions
// answer: the one backend configuration the stand-in has.
const SystemFingerprint = "fp_standin"

// chatEncoder answers wr, a Chat Completions request whose body and sample
// are given, with ids derived from them: the completion's chatcmpl- id and
// the x-request-id header's req_ id. The request says how to answer: as a
// stream (with the usage chunk if asked), in how many choices (n, each
// the same answer: the stand-in decides alike every time, and the usage
// counts every choice's tokens), and whether it offered functions (the
// answer's call is then a function_call, its finish_reason
// "function_call").
func chatEncoder(body []byte, sample int, wr chatRequest) Encoder {
	stream, legacy := wr.Stream, wr.legacy()
	includeUsage := wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage
	n := 1
	if wr.N != nil {
		n = *wr.N
	}
	top := -1 // no logprobs
	if wr.Logprobs {
		top = 0
		if wr.TopLogprobs != nil {
			top = *wr.TopLogprobs
		}
	}
	sum := requestHash(body, sample)
	h := hex.EncodeToString(sum[:])
	id := "chatcmpl-" + h[:29]
	e := Encoder{
		Header:    openAIRequestHeader(sum),
		Error:     openAIStatusError,
		Malformed: `{"id": "` + id + `", "choices": [{"message": {"role": "assistant", "content": "unterminated`,
		Completion: func(model string, msg llm.Message, end End, in, out int) (any, error) {
			if err := oneCall(msg, legacy); err != nil {
				return nil, err
			}
			msg = callIDs(msg, h)
			resp := completion(id, model, msg, chatFinish(msg, end, legacy), legacy, n, in, out)
			resp["service_tier"] = serviceTier(wr.ServiceTier)
			if top >= 0 {
				lp, err := chatLogprobs(msg.Content, top)
				if err != nil {
					return nil, err
				}
				for _, c := range resp["choices"].([]any) {
					c.(map[string]any)["logprobs"] = lp
				}
			}
			return resp, nil
		},
	}
	if stream {
		events := openAIEvents(id, serviceTier(wr.ServiceTier), includeUsage, legacy, n, top)
		e.Events = func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
			if err := oneCall(msg, legacy); err != nil {
				return nil, err
			}
			return events(model, callIDs(msg, h), end, in, out)
		}
	}
	return e
}

// chatFinish is the finish_reason of an answer carrying msg.
func chatFinish(msg llm.Message, end End, legacy bool) string {
	if legacy {
		return finishOf(msg, end, "stop", "length", "function_call")
	}
	return finishOf(msg, end, "stop", "length", "tool_calls")
}

// oneCall refuses an answer of more than one call to a legacy request,
// which has no way to carry it (Choice.Limit keeps the first).
func oneCall(msg llm.Message, legacy bool) error {
	if legacy && len(msg.ToolCalls) > 1 {
		return fmt.Errorf("the legacy functions API answers one function_call, not %d", len(msg.ToolCalls))
	}
	return nil
}

// callIDs gives msg's tool calls ids of OpenAI's shape, call_ and 24
// characters, derived from the answer's hash h and each call's place: the
// same request and sample give the same ids, and distinct answers their
// own. The answer's own ids (a stand-in policy's call_1, …) are only ever
// matched, never read.
func callIDs(msg llm.Message, h string) llm.Message {
	if len(msg.ToolCalls) == 0 {
		return msg
	}
	calls := slices.Clone(msg.ToolCalls)
	for i := range calls {
		sum := sha256.Sum256([]byte(h + "/call/" + strconv.Itoa(i)))
		calls[i].ID = "call_" + hex.EncodeToString(sum[:])[:24]
	}
	msg.ToolCalls = calls
	return msg
}

// decode reads wr as a Request. A legacy function_call is a tool call
// numbered by its place among the conversation's calls (CallID), and a
// function message the result of the latest call of its function not
// answered yet.
func (wr chatRequest) decode() Request {
	r := Request{Model: wr.Model, MaxTokens: cmp.Or(wr.MaxCompletionTokens, wr.MaxTokens), Choice: openAIChoice(wr.ToolChoice),
		Temperature: wr.Temperature, Sampling: llm.Sampling{TopP: wr.TopP, Stop: wr.stops(), Seed: wr.Seed,
			FrequencyPenalty: wr.FrequencyPenalty, PresencePenalty: wr.PresencePenalty}}
	if wr.N != nil {
		r.Choices = *wr.N
	}
	if wr.legacy() {
		r.Choice = openAIChoice(wr.FunctionCall)
		r.Choice.One = true
	}
	r.Choice.One = r.Choice.One || notParallel(wr.ParallelToolCalls)
	var out outputs
	for _, m := range wr.Modalities {
		out.modality(m)
	}
	if rf := wr.ResponseFormat; rf != nil {
		out.json = rf.Type == "json_object" || rf.Type == "json_schema"
		out.text = out.text || rf.Type == "text"
		if rf.JSONSchema != nil {
			r.Schema, r.Shape = rf.JSONSchema.Schema, rf.JSONSchema.Name
		}
	}
	r.Output = out.output()
	calls := 0
	var pending []pendingCall // legacy calls not answered yet
	for _, m := range wr.Messages {
		role := m.Role
		if role == "developer" {
			role = llm.RoleSystem // what newer models call the system message
		}
		msg := llm.Message{Role: role, Content: contentText(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, tc.Call())
		}
		calls += len(m.ToolCalls)
		if fc := m.FunctionCall; fc != nil {
			calls++
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: CallID(calls), Name: fc.Name, Arguments: json.RawMessage(fc.Arguments)})
			pending = append(pending, pendingCall{id: CallID(calls), name: fc.Name})
		}
		if role == "function" {
			msg.Role, msg.Name = llm.RoleTool, m.Name
			for i := len(pending) - 1; i >= 0; i-- {
				if pending[i].name == m.Name {
					msg.ToolCallID = pending[i].id
					pending = slices.Delete(pending, i, i+1)
					break
				}
			}
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range wr.Tools {
		if t.Custom != nil {
			r.Tools = append(r.Tools, t.Custom.tool())
			continue
		}
		r.Tools = append(r.Tools, t.Function.tool())
	}
	for _, f := range wr.Functions {
		r.Tools = append(r.Tools, f.tool())
	}
	return r
}

// tool is f as an llm.Tool.
func (f chatFunction) tool() llm.Tool {
	return llm.Tool{Name: f.Name, Description: f.Description, Parameters: f.Parameters}
}

// contentText flattens string or [{type:text,text}] content, each block on
// lines of its own.
func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			m, ok := p.(map[string]any)
			if !ok {
				continue
			}
			var t string
			if s, ok := m["text"].(string); ok {
				t = s
			} else if m["type"] == "search_result" { // Anthropic's, in a tool result
				title, _ := m["title"].(string)
				source, _ := m["source"].(string)
				t = searchResult(title, source, m["content"])
			} else if m["type"] == "document" { // Anthropic's, in a tool result
				title, _ := m["title"].(string)
				context, _ := m["context"].(string)
				t = documentText(title, context, m["source"])
			}
			if t != "" && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				// Each block is read apart: a block's first line stays a line
				// (a cached system block, then the rest of the prompt).
				b.WriteByte('\n')
			}
			b.WriteString(t)
		}
		return b.String()
	}
	return ""
}

// completion is the chat.completion answering msg, as OpenAI's reference
// shows it: content null when the message only calls tools, refusal and
// logprobs null, the service tier and system fingerprint, and usage with
// its token details (the stand-in has no cache, audio, reasoning or
// predictions, so those are 0). When legacy its call is a function_call.
func completion(id, model string, msg llm.Message, finish string, legacy bool, n, in, out int) map[string]any {
	var content any = msg.Content
	if msg.Content == "" && len(msg.ToolCalls) > 0 {
		content = nil
	}
	m := map[string]any{"role": "assistant", "content": content, "refusal": nil, "annotations": []any{}}
	switch {
	case legacy && len(msg.ToolCalls) > 0:
		tc := msg.ToolCalls[0]
		m["function_call"] = map[string]any{"name": tc.Name, "arguments": string(tc.Arguments)}
	case len(msg.ToolCalls) > 0:
		var calls []map[string]any
		for _, tc := range msg.ToolCalls {
			calls = append(calls, map[string]any{
				"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": string(tc.Arguments)},
			})
		}
		m["tool_calls"] = calls
	}
	choices := make([]any, n)
	for i := range choices {
		choices[i] = map[string]any{"index": i, "message": m, "logprobs": nil, "finish_reason": finish}
	}
	return map[string]any{
		"id": id, "object": "chat.completion", "created": 0, "model": model,
		"choices":      choices,
		"usage":        chatUsage(in, out*n),
		"service_tier": "default", "system_fingerprint": SystemFingerprint,
	}
}

// stops are wr's stop sequences: stop given as a string or as an array of
// them (none when it is neither).
func (wr chatRequest) stops() []string { return stopList(wr.Stop) }

// stopList reads stop sequences given as a string or as an array of them
// (none when raw is neither).
func stopList(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(raw, &many)
	return many
}

// chatLogprobs is a choice's logprobs for its text, each token with top
// alternatives asked: content null when it has no text (it only calls
// tools), refusal null (the stand-in refuses nothing).
func chatLogprobs(text string, top int) (map[string]any, error) {
	if text == "" {
		return map[string]any{"content": nil, "refusal": nil}, nil
	}
	toks, err := answerTokens(text)
	if err != nil {
		return nil, err
	}
	return map[string]any{"content": tokenLogprobs(toks, top), "refusal": nil}, nil
}

// chatUsage is the usage of a call with in input and out output tokens.
func chatUsage(in, out int) map[string]any {
	return map[string]any{
		"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
		"prompt_tokens_details": map[string]any{"cached_tokens": 0, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
}
