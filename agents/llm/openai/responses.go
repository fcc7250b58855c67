package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentreplay/testbed/agents/llm"
)

// Responses is an llm.Client for one model over the OpenAI Responses API
// (POST <base>/responses), the API OpenAI's own agent SDK uses by default.
//
// How llm's chat maps to the wire:
//
//   - every message becomes an input item, in order: system, user and
//     assistant text as messages of that role (system messages stay
//     system items rather than instructions, so that a conversation reads
//     back message for message); an assistant's tool calls as
//     function_call items (call_id, name, arguments), a tool message as a
//     function_call_output item with its call_id (the wire has no error
//     flag: Message.IsError is not sent);
//   - tools become function tools with strict: false, as Chat Completions
//     sends them (the Responses API's default is strict);
//   - MaxTokens is max_output_tokens, Output JSON is text.format
//     json_object and Output text text.format text,
//     TopP is top_p; a request giving a setting the API has no field for
//     (top_k, stop, seed, the penalties, several choices, a conversation:
//     the adapter keeps none; image or speech output) is refused
//     (llm.Request.Refuse);
//   - store is false: the harness keeps the conversation, not OpenAI;
//   - the answer's message items give the text (refusals are left out, as
//     the Chat Completions path leaves them), its function_call items the
//     tool calls, by call_id, and so do its custom_tool_call items (a
//     custom tool's, which a program may offer: their free-text input, a
//     JSON string, is the arguments) and its apply_patch_call and
//     shell_call items (built-in tools the program runs: a call of
//     apply_patch or shell, the operation or action the arguments);
//     reasoning items are left out;
//   - status completed is FinishStop or FinishToolCalls; incomplete for
//     max_output_tokens is FinishLength; other incomplete reasons
//     (content_filter …) and other statuses pass through as the API says;
//   - usage: input_tokens includes the cached tokens (CacheReadTokens) and
//     those written to the cache (cache_write_tokens, CacheWriteTokens),
//     output_tokens the reasoning tokens (ReasoningTokens).
//
// Unstreamed unless Streaming says so. SDK retries are off.
type Responses struct {
	sdk    sdk.Client
	model  string
	stream bool
	tools  *schemas
}

// NewResponses returns a Responses client for model at baseURL (for
// example "https://api.openai.com/v1"), sending every request through hc.
// An empty key sends a placeholder, as New does.
func NewResponses(baseURL, model, key string, hc *http.Client) *Responses {
	return &Responses{model: model, sdk: newSDK(baseURL, key, hc), tools: &schemas{}}
}

// Chat implements llm.Client.
func (c *Responses) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	params, err := c.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	if c.stream {
		return c.chatStream(ctx, params)
	}
	out, err := c.sdk.Responses.New(ctx, params)
	if err != nil {
		return llm.Response{}, apiError(err)
	}
	return FromResponses(out)
}

// FromResponses maps a Responses API answer to llm.Response (see
// Responses); ErrNoContent, with the rest of the answer (usage, finish
// reason), when it has neither a message nor a function call. The harness
// reads an outside agent's responses with it too.
func FromResponses(out *responses.Response) (llm.Response, error) {
	msg := llm.Message{Role: llm.RoleAssistant}
	answered := false
	for _, item := range out.Output {
		switch item.Type {
		case "message":
			answered = true
			for _, part := range item.Content {
				if part.Type == "output_text" {
					msg.Content += part.Text
				}
			}
		case "function_call":
			answered = true
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{
				ID: item.CallID, Name: item.Name, Arguments: json.RawMessage(item.Arguments.OfString),
			})
		case "custom_tool_call":
			// A custom tool is called with free text: its input, as a
			// JSON string, is the call's arguments.
			answered = true
			input, _ := json.Marshal(item.Input) // a string always marshals
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: item.CallID, Name: item.Name, Arguments: input})
		case "apply_patch_call", "shell_call":
			// A built-in tool the program runs itself: a call of the tool
			// named by its type, its operation (type, path, diff) or
			// action (commands, …) the arguments.
			answered = true
			var raw struct {
				Operation json.RawMessage `json:"operation"`
				Action    json.RawMessage `json:"action"`
			}
			_ = json.Unmarshal([]byte(item.RawJSON()), &raw) // the SDK decoded it already
			args := raw.Operation
			if item.Type == "shell_call" {
				args = raw.Action
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: item.CallID, Name: strings.TrimSuffix(item.Type, "_call"), Arguments: args})
		}
	}
	resp := llm.Response{
		Message:         msg,
		FinishReason:    responsesFinish(out, len(msg.ToolCalls) > 0),
		RawFinishReason: responsesRawFinish(out),
		Model:           out.Model,
		ID:              out.ID,
		Usage: llm.Usage{
			InputTokens:      int(out.Usage.InputTokens), // cached tokens included
			OutputTokens:     int(out.Usage.OutputTokens),
			ReasoningTokens:  int(out.Usage.OutputTokensDetails.ReasoningTokens),
			CacheReadTokens:  int(out.Usage.InputTokensDetails.CachedTokens),
			CacheWriteTokens: int(out.Usage.InputTokensDetails.CacheWriteTokens),
			ServiceTier:      llm.StandardTier(string(out.ServiceTier)),
			WebSearches:      webSearches(out),
		},
	}
	if !answered {
		return resp, llm.ErrNoContent
	}
	return resp, nil
}

// responsesFinish names why a response ended in llm's finish reasons.
func responsesFinish(out *responses.Response, calls bool) string {
	switch out.Status {
	case "":
		return ""
	case responses.ResponseStatusCompleted:
		if calls {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	case responses.ResponseStatusIncomplete:
		switch out.IncompleteDetails.Reason {
		case "max_output_tokens":
			return llm.FinishLength
		case "content_filter":
			return llm.FinishContentFilter
		}
	case responses.ResponseStatusFailed:
		return llm.FinishError
	}
	return llm.FinishOther
}

// responsesRawFinish is the reason as the response gives it: its status,
// and for an incomplete one the reason after a colon
// ("incomplete: max_output_tokens").
func responsesRawFinish(out *responses.Response) string {
	if r := out.IncompleteDetails.Reason; out.Status == responses.ResponseStatusIncomplete && r != "" {
		return string(out.Status) + ": " + r
	}
	return string(out.Status)
}

func (c *Responses) params(req llm.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(c.model), Store: sdk.Bool(false)}
	if err := req.Refuse("the Responses API", "top_p"); err != nil {
		return p, err
	}
	var input responses.ResponseInputParam
	for _, m := range req.Messages {
		items, err := inputItems(m)
		if err != nil {
			return p, err
		}
		input = append(input, items...)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	for _, t := range req.Tools {
		schema, err := c.tools.decode(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
		}
		fn := responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: sdk.Bool(false)}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &fn})
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = sdk.Int(int64(req.MaxTokens))
	}
	if v := req.TopP; v != nil {
		p.TopP = sdk.Float(*v)
	}
	switch req.Output {
	case llm.OutputJSON:
		p.Text.Format = responses.ResponseFormatTextConfigUnionParam{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	case llm.OutputText:
		p.Text.Format = responses.ResponseFormatTextConfigUnionParam{OfText: &shared.ResponseFormatTextParam{}}
	}
	return p, nil
}

// inputItems are the input items of one message.
func inputItems(m llm.Message) ([]responses.ResponseInputItemUnionParam, error) {
	switch m.Role {
	case llm.RoleSystem:
		return []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleSystem)}, nil
	case llm.RoleUser:
		return []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleUser)}, nil
	case llm.RoleTool:
		out := responses.ResponseInputItemParamOfFunctionCallOutput(m.Content)
		out.OfFunctionCallOutput.CallID = sdk.String(m.ToolCallID)
		return []responses.ResponseInputItemUnionParam{out}, nil
	case llm.RoleAssistant:
		var items []responses.ResponseInputItemUnionParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			items = append(items, responses.ResponseInputItemParamOfMessage(m.Content, responses.EasyInputMessageRoleAssistant))
		}
		for _, tc := range m.ToolCalls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(args, tc.ID, tc.Name))
		}
		return items, nil
	}
	return nil, fmt.Errorf("unknown message role %q", m.Role)
}

// webSearches counts the web_search_call items of a response's output:
// each is a search of the hosted web search tool, billed per call.
func webSearches(out *responses.Response) int {
	n := 0
	for _, item := range out.Output {
		if item.Type == "web_search_call" {
			n++
		}
	}
	return n
}
