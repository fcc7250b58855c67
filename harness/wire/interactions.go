package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Gemini's Interactions API, from the types of the official SDKs
// (@google/genai 3.x: CreateModelInteraction, Interaction, Step,
// InteractionSSEEvent) and Google's migration guide to its steps schema:
// POST …/v1beta/interactions, what the genai SDKs' interactions.create()
// calls. A request is decoded into the same Request the other dialects
// give:
//
//   - input is a string, a content ({"type": "text", "text"}), a list of
//     contents (one user message) or a list of steps: user_input (its
//     content a user message), model_output (text), function_call (id,
//     name, arguments as a JSON object), function_result (call_id, name,
//     result: a string, contents or a JSON value; is_error), thought
//     (left out). The model's steps in a row are one assistant message;
//   - system_instruction is the system prompt; tools of type function
//     (name, description, parameters) are the tools; the hosted tools
//     (google_search, code_execution, url_context, file_search,
//     mcp_server …) are left out in Decode and refused by Read, as the
//     stand-in runs none;
//   - generation_config's max_output_tokens, stop_sequences and
//     tool_choice ("auto", "any", "none", "validated", or allowed_tools
//     with a mode and the tools it allows), and for the trace its
//     temperature, top_p, seed, frequency_penalty and presence_penalty
//     (the API has no top_k and no candidate count);
//   - response_format, a text format whose mime_type is application/json
//     (with its schema) or a bare JSON Schema, or the older
//     response_mime_type application/json, asks for JSON; its other
//     formats (text, image, audio) and response_modalities for the
//     output they name (format);
//   - previous_interaction_id continues a stored interaction (store is
//     true unless said): its input and answers come first. The request's
//     own system_instruction and tools are its own: the API scopes them to
//     a turn.
//
// The answer is an Interaction whose steps are the model's only
// (function_call steps, or a model_output step with a text content), its
// status requires_action when it calls tools, incomplete when cut at the
// token limit, completed otherwise, and its usage total_input_tokens,
// total_output_tokens and total_tokens. Streamed ("stream": true), it is
// server-sent events: interaction.created, then for each step step.start,
// step.delta (text, or arguments_delta: the arguments' JSON in pieces) and
// step.stop, then interaction.completed with the status and usage, then
// [DONE]. Errors are Gemini's.

// interactionsVersions are the API versions whose …/interactions path is
// the Interactions API.
var interactionsVersions = []string{"/v1beta/interactions", "/v1/interactions", "/v1alpha/interactions"}

// IsInteractions reports whether path creates an interaction (POST
// …/v1beta/interactions).
func IsInteractions(path string) bool {
	for _, v := range interactionsVersions {
		if strings.HasSuffix(path, v) {
			return true
		}
	}
	return false
}

// interactionsRequest is the part of a CreateModelInteraction the package
// reads.
type interactionsRequest struct {
	Model             string             `json:"model"`
	Agent             json.RawMessage    `json:"agent"`
	Input             json.RawMessage    `json:"input"`
	SystemInstruction string             `json:"system_instruction"`
	Tools             []interactionsTool `json:"tools"`
	GenerationConfig  struct {
		MaxOutputTokens int             `json:"max_output_tokens"`
		StopSequences   []string        `json:"stop_sequences"`
		ToolChoice      json.RawMessage `json:"tool_choice"`
		// ThinkingSummaries "auto" asks for the model's thoughts.
		ThinkingSummaries string `json:"thinking_summaries"`
		// The sampling settings, for the trace (Request.Sampling).
		Temperature      *float64 `json:"temperature"`
		TopP             *float64 `json:"top_p"`
		Seed             *int     `json:"seed"`
		FrequencyPenalty *float64 `json:"frequency_penalty"`
		PresencePenalty  *float64 `json:"presence_penalty"`
	} `json:"generation_config"`
	ResponseFormat        json.RawMessage `json:"response_format"`
	ResponseMimeType      string          `json:"response_mime_type"`
	ResponseModalities    []string        `json:"response_modalities"`
	PreviousInteractionID string          `json:"previous_interaction_id"`
	Store                 *bool           `json:"store"`
	Stream                bool            `json:"stream"`
	Background            bool            `json:"background"`
}

// stores reports whether ir's interaction is kept for later requests.
func (ir interactionsRequest) stores() bool { return ir.Store == nil || *ir.Store }

// interactionsTool is a tool as a request declares it.
type interactionsTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// interactionsItem is a step or a content of an input list: its type says
// which.
type interactionsItem struct {
	Type      string             `json:"type"`
	Text      string             `json:"text"`
	Content   []interactionsPart `json:"content"`
	ID        string             `json:"id"`
	Name      string             `json:"name"`
	Arguments json.RawMessage    `json:"arguments"`
	CallID    string             `json:"call_id"`
	Result    json.RawMessage    `json:"result"`
	IsError   bool               `json:"is_error"`
}

// interactionsPart is a content of a step: text is read, the rest
// (images, audio, documents, video) left out.
type interactionsPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// interactionsContent are the content types, which an input list of
// contents holds (a list of steps holds the others).
var interactionsContent = []string{"text", "image", "audio", "document", "video"}

// decode reads ir as a Request, after the messages of the interactions it
// continues (prior), and returns the messages its own input added.
// strict refuses what the stand-in cannot serve (hosted tools, agents, a
// step it does not know); otherwise that is left out.
func (ir interactionsRequest) decode(strict bool, prior []llm.Message) (Request, []llm.Message, error) {
	g := ir.GenerationConfig
	r := Request{Model: ir.Model, MaxTokens: g.MaxOutputTokens, Temperature: g.Temperature, Sampling: llm.Sampling{Stop: g.StopSequences,
		TopP: g.TopP, Seed: g.Seed, FrequencyPenalty: g.FrequencyPenalty, PresencePenalty: g.PresencePenalty}}
	if strict && len(ir.Agent) > 0 && string(ir.Agent) != "null" {
		return Request{}, nil, fmt.Errorf("the stand-in answers model interactions, not agent ones (agent %s); record this agent against the real API instead (testbed record --provider gemini)", ir.Agent)
	}
	if ir.SystemInstruction != "" {
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleSystem, Content: ir.SystemInstruction})
	}
	r.Messages = append(r.Messages, prior...)
	own, err := interactionsInput(ir.Input, strict)
	if err != nil {
		return Request{}, nil, err
	}
	r.Messages = append(r.Messages, own...)
	for i, t := range ir.Tools {
		if t.Type != "function" {
			if strict {
				return Request{}, nil, fmt.Errorf("tools.%d: the stand-in calls function tools, not the hosted tool %q; record this agent against the real model instead (testbed record --provider gemini)", i, t.Type)
			}
			continue
		}
		r.Tools = append(r.Tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: schemaOrEmpty(t.Parameters)})
	}
	r.Choice = interactionsChoice(g.ToolChoice)
	r.Output, r.Schema = ir.format()
	if title := schemaTitle(r.Schema); title != "" {
		r.Shape = title
	}
	return r, own, nil
}

// schemaOrEmpty is a tool's parameters, an empty object schema when it
// has none.
func schemaOrEmpty(p json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(p)) == 0 || string(p) == "null" {
		return json.RawMessage(`{"type": "object", "properties": {}}`)
	}
	return p
}

// schemaTitle is the title of a JSON Schema, "" for none.
func schemaTitle(schema json.RawMessage) string {
	var titled struct {
		Title string `json:"title"`
	}
	json.Unmarshal(schema, &titled)
	return titled.Title
}

// format reads what output ir asks for (outputs), and the JSON output's
// schema when it gives one: response_format's formats (a text format,
// JSON with a JSON mime_type or a schema; image, audio, video), the
// older response_mime_type and response_modalities.
func (ir interactionsRequest) format() (llm.Output, json.RawMessage) {
	rf := bytes.TrimSpace(ir.ResponseFormat)
	var formats []json.RawMessage
	switch {
	case len(rf) == 0 || string(rf) == "null":
	case rf[0] == '[':
		json.Unmarshal(rf, &formats)
	default:
		formats = []json.RawMessage{rf}
	}
	out := outputs{json: ir.ResponseMimeType == "application/json"}
	for _, m := range ir.ResponseModalities {
		out.modality(m)
	}
	var schema json.RawMessage
	for _, f := range formats {
		var tf struct {
			Type     string          `json:"type"`
			MimeType string          `json:"mime_type"`
			Schema   json.RawMessage `json:"schema"`
		}
		if json.Unmarshal(f, &tf) != nil {
			continue
		}
		switch {
		case tf.Type == "text" && (tf.MimeType == "application/json" || len(tf.Schema) > 0):
			out.json, schema = true, orNonEmpty(schema, tf.Schema)
		case tf.Type == "text" || tf.Type == "image" || tf.Type == "audio" || tf.Type == "video":
			out.modality(tf.Type)
		default: // a bare JSON Schema, as the older requests and the SDKs' typed formats send it
			out.json, schema = true, orNonEmpty(schema, f)
		}
	}
	return out.output(), schema
}

// interactionsChoice reads generation_config.tool_choice.
func interactionsChoice(tc json.RawMessage) Choice {
	var mode string
	var allowed struct {
		AllowedTools struct {
			Mode  string   `json:"mode"`
			Tools []string `json:"tools"`
		} `json:"allowed_tools"`
	}
	var only []string
	if json.Unmarshal(tc, &mode) != nil && json.Unmarshal(tc, &allowed) == nil {
		mode, only = allowed.AllowedTools.Mode, allowed.AllowedTools.Tools
	}
	switch mode {
	case "none":
		return Choice{None: true}
	case "any":
		return Choice{Required: true, Only: only}
	}
	return Choice{Only: only}
}

// interactionsInput reads a request's input as messages.
func interactionsInput(in json.RawMessage, strict bool) ([]llm.Message, error) {
	in = bytes.TrimSpace(in)
	if len(in) == 0 || string(in) == "null" {
		return nil, nil
	}
	var items []interactionsItem
	switch in[0] {
	case '"':
		var text string
		if err := json.Unmarshal(in, &text); err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		return []llm.Message{{Role: llm.RoleUser, Content: text}}, nil
	case '{':
		var one interactionsItem
		if err := json.Unmarshal(in, &one); err != nil {
			return nil, fmt.Errorf("input: %w", err)
		}
		items = []interactionsItem{one}
	default:
		if err := json.Unmarshal(in, &items); err != nil {
			return nil, fmt.Errorf("input is neither text, a content, contents nor steps: %w", err)
		}
	}
	if len(items) > 0 && slices.Contains(interactionsContent, items[0].Type) {
		parts := make([]interactionsPart, len(items))
		for i, it := range items {
			parts[i] = interactionsPart{Type: it.Type, Text: it.Text}
		}
		return []llm.Message{{Role: llm.RoleUser, Content: partsText(parts)}}, nil
	}
	return interactionsSteps(items, strict)
}

// partsText is the text of contents, joined.
func partsText(parts []interactionsPart) string {
	if len(parts) == 1 && parts[0].Type == "text" {
		return parts[0].Text
	}
	var b strings.Builder
	for _, c := range parts {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// interactionsSteps reads a list of steps as messages: the model's steps
// in a row one assistant message.
func interactionsSteps(steps []interactionsItem, strict bool) ([]llm.Message, error) {
	var msgs []llm.Message
	calls := map[string]string{} // call id → tool name
	model := func() *llm.Message {
		if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleAssistant {
			return &msgs[n-1]
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant})
		return &msgs[len(msgs)-1]
	}
	for i, s := range steps {
		switch s.Type {
		case "user_input":
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: partsText(s.Content)})
		case "model_output":
			m := model()
			m.Content += partsText(s.Content)
		case "function_call":
			m := model()
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: s.ID, Name: s.Name, Arguments: objectArgs(s.Arguments)})
			calls[s.ID] = s.Name
		case "function_result":
			name := s.Name
			if name == "" {
				name = calls[s.CallID]
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: s.CallID, Name: name, Content: resultText(s.Result), IsError: s.IsError})
		case "thought":
		default:
			if strict {
				return nil, fmt.Errorf("input[%d]: the stand-in reads user_input, model_output, function_call, function_result and thought steps, not %q", i, s.Type)
			}
		}
	}
	return msgs, nil
}

// resultText is a function result as the model reads it: a string as it
// is, contents by their text, any other JSON value as JSON.
func resultText(result json.RawMessage) string {
	var s string
	if json.Unmarshal(result, &s) == nil {
		return s
	}
	var parts []interactionsPart
	if json.Unmarshal(result, &parts) == nil && len(parts) > 0 && parts[0].Type != "" {
		return partsText(parts)
	}
	return compactText(result)
}
