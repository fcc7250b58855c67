package wire

import (
	"cmp"
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
	r := Request{Model: rr.Model, Choice: openAIChoice(rr.ToolChoice), Temperature: rr.Temperature,
		Sampling: llm.Sampling{TopP: rr.TopP}, Conversation: conversationOf(rr.Conversation)}
	r.Choice.One = notParallel(rr.ParallelToolCalls)
	jsonObject := false
	if t := rr.TopLogprobs; t != nil && (*t < 0 || *t > maxTopLogprobs) && strict {
		return Request{}, nil, fmt.Errorf("invalid 'top_logprobs': expected a value from 0 to %d, but got %d instead", maxTopLogprobs, *t)
	}
	if err := cmp.Or(rr.schemas(), rr.reasoningEffort()); err != nil && strict {
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
		switch f.Type {
		case "json_object", "json_schema":
			r.Output = llm.OutputJSON
		case "text":
			r.Output = llm.OutputText
		}
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
