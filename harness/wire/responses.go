package wire

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// The OpenAI Responses API wire format, from OpenAI's API reference. POST
// …/v1/responses is decoded into the same Request the other dialects
// give, so a reader cannot tell them apart:
//
//   - instructions become a first system message; input as a string is
//     one user message; input items are read in order: a message item
//     (role system or developer → system, user, assistant; content a
//     string or input_text/output_text parts) becomes that message, the
//     function_call items after an assistant message (or after each other)
//     become its tool calls (id: the call_id), a function_call_output item
//     a tool message with its call_id and the name of the call it answers;
//     reasoning items are dropped; Decode reads a custom tool (type
//     custom) as a tool, its custom_tool_call items as calls whose
//     arguments are their free-text input (a JSON string) and its
//     custom_tool_call_output items as their results, which the stand-in,
//     serving function tools only, refuses;
//   - function tools take their schema from parameters; max_output_tokens
//     is MaxTokens; text.format json_object or json_schema asks for JSON
//     (json_schema's name is the Shape);
//
// The answer is a response object with status completed (incomplete, for
// max_output_tokens, when the answer is cut off), a message item of
// output_text and function_call items, and every field the official
// SDK's Response type requires, null where the stand-in has nothing to say;
// it echoes the request's settings as the API does (echo). Its ids
// (resp_…, msg_…, fc_…, call_…) derive from a hash of the request and its
// sample, so recordings are reproducible and every distinct request gets
// its own. With stream: true the same response is
// sent as Responses stream events (stream_responses.go). Usage is counted as on the other paths
// and split as the API splits it (input_tokens_details,
// output_tokens_details; the stand-in has no cache and does not reason, so
// those parts are 0). Errors use OpenAI's body {"error": {"message",
// "type", "param", "code"}} with the type its status documents. A request
// the stand-in cannot serve gets a 400 invalid_request_error saying why,
// never an empty success: a conversation or previous_response_id it does
// not keep (the API's previous_response_not_found), both at once,
// a max_output_tokens below the API's minimum of 16, tools other
// than functions, input items or parts other than the ones above (an
// image, file or audio part is left out: the stand-in cannot see it), a
// function_call_output that answers no function_call. A request that
// continues an answer it gave (previous_response_id), or names a
// conversation it keeps (conversations.go), is read after that
// conversation, as the API reads it (Threads). Decode, reading
// recorded traffic rather than answering it, leaves those out instead: a
// function_call_output whose call came in an earlier response (after
// previous_response_id) is a tool message with its call_id and no name.

// minOutputTokens is the least max_output_tokens the API accepts.
const minOutputTokens = 16

// responsesRequest is the part of a Responses request the stand-in reads.
type responsesRequest struct {
	Model             string          `json:"model"`
	Instructions      *string         `json:"instructions"`
	Input             json.RawMessage `json:"input"` // a string or items
	Tools             []responsesTool `json:"tools"`
	MaxOutputTokens   *int            `json:"max_output_tokens"`
	Temperature       *float64        `json:"temperature"`
	TopP              *float64        `json:"top_p"`
	Store             *bool           `json:"store"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	Stream            bool            `json:"stream"`
	// Background asks for a background response: answered queued, got
	// again (polled) once it is done (stored.go).
	Background bool `json:"background"`
	// ContextManagement asks for the conversation compacted server-side
	// past a number of input tokens (compact.go).
	ContextManagement []struct {
		Type             string `json:"type"`
		CompactThreshold *int   `json:"compact_threshold"`
	} `json:"context_management"`
	PreviousResponseID string          `json:"previous_response_id"`
	Conversation       json.RawMessage `json:"conversation"`
	Text               *struct {
		Format    json.RawMessage `json:"format"`
		Verbosity string          `json:"verbosity"`
	} `json:"text"`
	// Echoed settings: the answer repeats them as the request gave them
	// (echo), none changing what the stand-in answers.
	Metadata             map[string]string `json:"metadata"`
	PromptCacheKey       *string           `json:"prompt_cache_key"`
	PromptCacheRetention *string           `json:"prompt_cache_retention"`
	SafetyIdentifier     *string           `json:"safety_identifier"`
	User                 *string           `json:"user"`
	ServiceTier          string            `json:"service_tier"`
	Truncation           string            `json:"truncation"`
	MaxToolCalls         *int              `json:"max_tool_calls"`
	// Include names what the answer adds; message.output_text.logprobs
	// asks for its text's token log probabilities, each with up to
	// TopLogprobs alternatives (logprobs.go).
	Include     []string `json:"include"`
	TopLogprobs *int     `json:"top_logprobs"`
	// Reasoning is echoed as the request gave it.
	Reasoning *struct {
		Effort  *string `json:"effort"`
		Summary *string `json:"summary"`
	} `json:"reasoning"`
}

// compactAbove is the input tokens past which rr asks its conversation
// compacted server-side (context_management), 0 when it does not.
func (rr responsesRequest) compactAbove() int {
	for _, c := range rr.ContextManagement {
		if c.Type == "compaction" && c.CompactThreshold != nil && *c.CompactThreshold > 0 {
			return *c.CompactThreshold
		}
	}
	return 0
}

// logprobsAsked is how many alternatives rr asks for each token of its
// answer's text, or -1 when it asks for no log probabilities.
func (rr responsesRequest) logprobsAsked() int {
	if !slices.Contains(rr.Include, "message.output_text.logprobs") {
		return -1
	}
	if rr.TopLogprobs != nil {
		return *rr.TopLogprobs
	}
	return 0
}

// responsesTool is one tool of a request.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description *string         `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

// responsesItem is one input item.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"` // a string or parts
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`  // a custom_tool_call's free text
	Output    json.RawMessage `json:"output"` // a string or parts; a shell_call_output's runs
	// Operation is an apply_patch_call's (type, path, diff), Action a
	// shell_call's (commands, timeout_ms, max_output_length).
	Operation json.RawMessage `json:"operation"`
	Action    json.RawMessage `json:"action"`
	Status    string          `json:"status"`
}

// clientTools are the Responses API's built-in tools that the program
// runs itself (as it runs a function): the model calls apply_patch with an
// operation and shell with an action, and the program sends back their
// output. Each is read as a tool named by its type, its call's operation
// or action the arguments.
var clientTools = map[string]bool{"apply_patch": true, "shell": true}

// clientToolOutput is the text of an apply_patch_call_output (its output,
// else its status) or a shell_call_output (each run's stdout, then its
// stderr).
func clientToolOutput(it responsesItem) string {
	if it.Type == "apply_patch_call_output" {
		var text string
		if json.Unmarshal(it.Output, &text) == nil && text != "" {
			return text
		}
		return it.Status
	}
	var runs []struct {
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
	}
	_ = json.Unmarshal(it.Output, &runs) // what parses of it
	var parts []string
	for _, r := range runs {
		for _, t := range []string{r.Stdout, r.Stderr} {
			if t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// decode reads rr as a Request, its input after prior, the conversation
// of the answer it continues (previous_response_id), and returns its own
// input apart too. When strict (the stand-in answering it), its error is
// why the stand-in cannot serve it; else (reading recorded traffic) what
// it cannot read is left out: stored state the request points to and
// prior does not give (previous_response_id, conversation), items other
// than messages and function calls and their outputs, parts other than
// text, tools other than functions. Either way an image, file or audio
// part is left out.
func (rr responsesRequest) decode(strict bool, prior []llm.Message) (Request, []llm.Message, error) {
	r := Request{Model: rr.Model, Choice: openAIChoice(rr.ToolChoice)}
	r.Choice.One = notParallel(rr.ParallelToolCalls)
	jsonObject := false
	if t := rr.TopLogprobs; t != nil && (*t < 0 || *t > maxTopLogprobs) && strict {
		return Request{}, nil, fmt.Errorf("invalid 'top_logprobs': expected a value from 0 to %d, but got %d instead", maxTopLogprobs, *t)
	}
	if err := rr.schemas(); err != nil && strict {
		return Request{}, nil, err
	}
	if rr.MaxOutputTokens != nil {
		if *rr.MaxOutputTokens < minOutputTokens && strict {
			return Request{}, nil, fmt.Errorf("invalid 'max_output_tokens': integer below minimum value. Expected a value >= %d, but got %d instead", minOutputTokens, *rr.MaxOutputTokens)
		}
		r.MaxTokens = *rr.MaxOutputTokens
	}
	if rr.Text != nil && len(rr.Text.Format) > 0 {
		var f struct {
			Type   string          `json:"type"`
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		}
		if err := json.Unmarshal(rr.Text.Format, &f); err != nil {
			return Request{}, nil, fmt.Errorf("text.format: %w", err)
		}
		r.JSON = f.Type == "json_object" || f.Type == "json_schema"
		if f.Type == "json_schema" {
			r.Schema, r.Shape = f.Schema, f.Name
		}
		jsonObject = f.Type == "json_object"
	}
	if rr.Instructions != nil && *rr.Instructions != "" {
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleSystem, Content: *rr.Instructions})
	}
	names := map[string]string{} // call_id → function name
	for _, m := range prior {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
	}
	own, err := responsesInput(rr.Input, strict, names)
	if err != nil {
		return Request{}, nil, err
	}
	if strict && jsonObject && !mentionsJSON(prior) && !mentionsJSON(own) {
		// The instructions do not count: the input's messages must say it.
		return Request{}, nil, &invalid{msg: "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.", param: "text.format"}
	}
	r.Messages = append(append(r.Messages, prior...), own...)
	for i, c := range rr.ContextManagement {
		switch {
		case c.Type != "compaction" && strict:
			return Request{}, nil, &invalid{msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'compaction'.", c.Type), param: fmt.Sprintf("context_management[%d].type", i)}
		}
	}
	for i, t := range rr.Tools {
		if t.Type != "function" && (strict || t.Type != "custom" && !clientTools[t.Type]) {
			if !strict {
				continue
			}
			return Request{}, nil, fmt.Errorf("tools.%d: the stand-in serves function tools, not %q", i, t.Type)
		}
		name := t.Name
		if clientTools[t.Type] {
			name = t.Type // apply_patch, shell: the tool is its type
		}
		tool := llm.Tool{Name: name, Parameters: t.Parameters}
		if t.Description != nil {
			tool.Description = *t.Description
		}
		r.Tools = append(r.Tools, tool)
	}
	return r, own, nil
}

// responsesInput reads input, a string or a list of items, as messages
// (strict: as decode says); names gives the function of each call_id the
// conversation before it made, and gains those it makes.
func responsesInput(raw json.RawMessage, strict bool, names map[string]string) ([]llm.Message, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return []llm.Message{{Role: llm.RoleUser, Content: text}}, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errors.New("input: want a string or a list of input items")
	}
	var out []llm.Message
	calling := false // the last message is an assistant's, open to function calls
	for i, it := range items {
		switch {
		case it.Type == "function_call":
			if !calling {
				out = append(out, llm.Message{Role: llm.RoleAssistant})
				calling = true
			}
			last := &out[len(out)-1]
			names[it.CallID] = it.Name
			last.ToolCalls = append(last.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: json.RawMessage(it.Arguments)})
		case it.Type == "custom_tool_call" && !strict:
			// A custom tool's call, with free text: read as a function
			// call whose arguments are that text, a JSON string.
			if !calling {
				out = append(out, llm.Message{Role: llm.RoleAssistant})
				calling = true
			}
			last := &out[len(out)-1]
			names[it.CallID] = it.Name
			last.ToolCalls = append(last.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: textArguments(it.Input)})
		case (it.Type == "apply_patch_call" || it.Type == "shell_call") && !strict:
			// A built-in tool the program runs: read as a call of the tool
			// named by its type, its operation or action the arguments.
			if !calling {
				out = append(out, llm.Message{Role: llm.RoleAssistant})
				calling = true
			}
			last := &out[len(out)-1]
			name, args := strings.TrimSuffix(it.Type, "_call"), it.Operation
			if it.Type == "shell_call" {
				args = it.Action
			}
			names[it.CallID] = name
			last.ToolCalls = append(last.ToolCalls, llm.ToolCall{ID: it.CallID, Name: name, Arguments: args})
		case (it.Type == "apply_patch_call_output" || it.Type == "shell_call_output") && !strict:
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: it.CallID, Name: names[it.CallID], Content: clientToolOutput(it)})
			calling = false
		case it.Type == "function_call_output" || (it.Type == "custom_tool_call_output" && !strict):
			name, ok := names[it.CallID]
			if !ok && strict {
				return nil, fmt.Errorf("input.%d: no function_call found for function_call_output with call_id %q", i, it.CallID)
			}
			content, err := responsesText(it.Output, strict)
			if err != nil {
				return nil, fmt.Errorf("input.%d.output: %w", i, err)
			}
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: it.CallID, Name: name, Content: content})
			calling = false
		case it.Type == "reasoning":
		case it.Type == "message" || it.Type == "":
			role, ok := map[string]string{"system": llm.RoleSystem, "developer": llm.RoleSystem, "user": llm.RoleUser, "assistant": llm.RoleAssistant}[it.Role]
			if !ok {
				return nil, fmt.Errorf("input.%d.role: want system, developer, user or assistant, not %q", i, it.Role)
			}
			content, err := responsesText(it.Content, strict)
			if err != nil {
				return nil, fmt.Errorf("input.%d.content: %w", i, err)
			}
			out = append(out, llm.Message{Role: role, Content: content})
			calling = role == llm.RoleAssistant
		case !strict:
		default:
			return nil, fmt.Errorf("input.%d: the stand-in reads message, function_call, function_call_output and reasoning items, not %q", i, it.Type)
		}
	}
	return out, nil
}

// responsesText reads content that is a string or a list of text parts
// (strict: as decode says).
func responsesText(raw json.RawMessage, strict bool) (string, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil
	}
	var parts []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or a list of content parts")
	}
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			text += p.Text
		case "refusal":
			text += p.Refusal
		case "input_image", "input_file", "input_audio":
			// Media the stand-in cannot see, as with the other dialects':
			// it reads the text around it.
		default:
			if !strict {
				continue
			}
			return "", fmt.Errorf("the stand-in reads text parts, not %q", p.Type)
		}
	}
	return text, nil
}

// responsesEncoder answers rr, whose body and sample are given, with ids
// derived from them: the response's resp_ id and the x-request-id header's
// req_ id. keep, when set, is given each answer as its conversation will
// read it, by the response's id, with the response whole and, when it was
// compacted, what its compaction item is read as; t, when set,
// keeps what else a later request may name (a background stream's events,
// a compaction).
func responsesEncoder(rr responsesRequest, body []byte, sample int, t *Threads, keep func(id string, answer llm.Message, resp map[string]any, compacted []llm.Message)) Encoder {
	sum := requestHash(body, sample)
	h := hex.EncodeToString(sum[:])
	id := "resp_" + h[:48]
	// The compaction item the answer gives first, if any, and what it is
	// read as.
	var compacted struct {
		item    map[string]any
		carried []llm.Message
	}
	d := Encoder{
		Header:    openAIRequestHeader(sum),
		Error:     openAIStatusError,
		Malformed: `{"id": "` + id + `", "object": "response", "status": "completed", "output": [{"type": "message", "content": [{"type": "output_text", "text": "unterminated`,
		Completion: func(model string, msg llm.Message, end End, in, out int) (any, error) {
			resp := rr.echo(id, model, in, out)
			logprobs := []any{}
			if top := rr.logprobsAsked(); top >= 0 && msg.Content != "" {
				toks, err := answerTokens(msg.Content)
				if err != nil {
					return nil, err
				}
				logprobs = tokenLogprobs(toks, top)
			}
			var items []any
			if reasons(model) {
				item, toks, err := rr.reasoningItem(h, msg)
				if err != nil {
					return nil, err
				}
				items = append(items, item)
				usage := resp["usage"].(map[string]any)
				usage["output_tokens"], usage["total_tokens"] = out+toks, in+out+toks
				usage["output_tokens_details"] = map[string]any{"reasoning_tokens": toks}
			}
			answer := llm.Message{Role: llm.RoleAssistant, Content: msg.Content}
			status := "completed"
			if end.Truncated {
				resp["status"], status = "incomplete", "incomplete"
				resp["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
			}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				items = append(items, map[string]any{
					"type": "message", "id": "msg_" + h[16:64], "status": status, "role": "assistant",
					"content": []any{map[string]any{"type": "output_text", "text": msg.Content, "annotations": []any{}, "logprobs": logprobs}},
				})
			}
			for i, tc := range msg.ToolCalls {
				callID := fmt.Sprintf("call_%s%02d", h[40:62], i+1)
				items = append(items, map[string]any{
					"type": "function_call", "id": fmt.Sprintf("fc_%s%02d", h[8:54], i+1), "call_id": callID,
					"name": tc.Name, "arguments": string(tc.Arguments), "status": "completed",
				})
				answer.ToolCalls = append(answer.ToolCalls, llm.ToolCall{ID: callID, Name: tc.Name, Arguments: tc.Arguments})
			}
			if compacted.item != nil {
				items = append([]any{compacted.item}, items...)
			}
			resp["output"] = items
			if conv := conversationOf(rr.Conversation); conv != "" {
				resp["conversation"] = map[string]any{"id": conv}
			}
			if keep != nil {
				keep(id, answer, resp, compacted.carried)
			}
			if rr.Background && !rr.Stream {
				return queued(resp), nil
			}
			return resp, nil
		},
	}
	if above := rr.compactAbove(); above > 0 {
		d.Context = func(msgs []llm.Message, count func([]llm.Message) int) []llm.Message {
			if count(msgs) <= above {
				return msgs
			}
			read, item, carried := t.compactServerSide(h, msgs)
			if item != nil {
				compacted.item, compacted.carried = item, carried
			}
			return read
		}
	}
	if rr.Stream {
		d.Events = func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
			whole, err := d.Completion(model, msg, end, in, out)
			if err != nil {
				return nil, err
			}
			events, err := responsesEvents(whole.(map[string]any), msg, out, rr.logprobsAsked())
			if err == nil && t != nil && rr.Background {
				t.keepEvents(id, events)
			}
			return events, err
		}
	}
	return d
}

// echo is a response to rr without its output: the request's settings as
// the API echoes them (its tools, sampling, limits, reasoning, text format
// and verbosity, metadata, prompt cache key and retention, safety
// identifier, user, truncation and the service tier that served it), and
// usage.
func (rr responsesRequest) echo(id, model string, in, out int) map[string]any {
	tools := []any{}
	for _, t := range rr.Tools {
		strict := true // the Responses API's default
		if t.Strict != nil {
			strict = *t.Strict
		}
		tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description,
			"parameters": t.Parameters, "strict": strict})
	}
	format := json.RawMessage(`{"type": "text"}`)
	if rr.Text != nil && len(rr.Text.Format) > 0 {
		format = rr.Text.Format
	}
	orOne := func(v *float64) float64 {
		if v == nil {
			return 1
		}
		return *v
	}
	parallel := rr.ParallelToolCalls == nil || *rr.ParallelToolCalls
	verbosity := "medium"
	if rr.Text != nil && rr.Text.Verbosity != "" {
		verbosity = rr.Text.Verbosity
	}
	metadata := map[string]string{}
	if rr.Metadata != nil {
		metadata = rr.Metadata
	}
	var choice any = "auto"
	if len(rr.ToolChoice) > 0 && string(rr.ToolChoice) != "null" {
		choice = rr.ToolChoice // echoed as the API does
	}
	return map[string]any{
		"id": id, "object": "response", "created_at": 0, "completed_at": 0, "status": "completed",
		"background": rr.Background, "error": nil, "incomplete_details": nil,
		"instructions": rr.Instructions, "max_output_tokens": rr.MaxOutputTokens, "max_tool_calls": rr.MaxToolCalls,
		"model": model, "parallel_tool_calls": parallel, "previous_response_id": orNull(rr.PreviousResponseID),
		"reasoning": rr.reasoningEcho(), "service_tier": serviceTier(rr.ServiceTier),
		"temperature": orOne(rr.Temperature), "top_p": orOne(rr.TopP), "top_logprobs": cmp.Or(rr.TopLogprobs, new(int)),
		"text": map[string]any{"format": format, "verbosity": verbosity}, "tool_choice": choice, "tools": tools,
		"truncation": cmp.Or(rr.Truncation, "disabled"), "prompt_cache_key": rr.PromptCacheKey, "safety_identifier": rr.SafetyIdentifier, "access_programs": nil,
		"metadata": metadata, "store": rr.Store == nil || *rr.Store, "user": rr.User,
		"frequency_penalty": 0.0, "presence_penalty": 0.0, "billing": map[string]any{"payer": "developer"},
		"moderation": nil, "prompt_cache_retention": rr.PromptCacheRetention,
		"tool_usage": map[string]any{"image_gen": map[string]any{"input_tokens": 0, "input_tokens_details": map[string]any{"image_tokens": 0, "text_tokens": 0},
			"output_tokens": 0, "output_tokens_details": map[string]any{"image_tokens": 0, "text_tokens": 0}, "total_tokens": 0},
			"web_search": map[string]any{"num_requests": 0}},
		"usage": map[string]any{
			"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0, "cache_write_tokens": 0},
			"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": in + out,
		},
	}
}

// serviceTier is the service_tier an OpenAI answer (of either API)
// reports for a request that asked for tier: the tier that served it,
// "default" when the request left it to the project ("auto", or none),
// else the one it asked for (flex, priority, scale), as the APIs report
// the tier they used.
func serviceTier(tier string) string {
	if tier == "" || tier == "auto" {
		return "default"
	}
	return tier
}

// orNull is s, or null when it is empty.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// reasoningEcho is the reasoning settings of rr as its answer echoes them:
// those it gave, null where it gave none.
func (rr responsesRequest) reasoningEcho() map[string]any {
	echo := map[string]any{"effort": nil, "summary": nil}
	if r := rr.Reasoning; r != nil {
		if r.Effort != nil {
			echo["effort"] = *r.Effort
		}
		if r.Summary != nil {
			echo["summary"] = *r.Summary
		}
	}
	return echo
}
