// Package anthropic adapts the Anthropic Messages API (POST /v1/messages) to
// llm.Client, over the official SDK (github.com/anthropics/anthropic-sdk-go).
// The key travels in the x-api-key header and the SDK sets anthropic-version;
// SDK retries are off and nothing is read from the environment
// (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, profiles): the caller says
// everything.
//
// How llm's chat maps to the wire:
//
//   - system messages become the request's system blocks;
//   - an assistant message becomes text and tool_use blocks; tool messages
//     become tool_result blocks (is_error from Message.IsError), and the
//     tool results and user text between two assistant turns go back as
//     one user message, as the API wants the results of parallel tool use;
//   - tools send their JSON Schema as input_schema;
//   - max_tokens, which the API requires, is Request.MaxTokens or
//     DefaultMaxTokens;
//   - Request.Output is not sent: the Messages API has no JSON-object mode,
//     so the prompt must ask for JSON, and its answer is text unless asked
//     for otherwise; image and speech output are refused;
//   - TopP, TopK (a whole number) and Stop are top_p, top_k and
//     stop_sequences; a request giving a setting the API has no field for
//     (seed, the penalties, several choices, a conversation) is refused
//     (llm.Request.Refuse);
//   - stop reasons map to llm's finish reasons (end_turn and stop_sequence
//     to FinishStop, max_tokens to FinishLength, tool_use to
//     FinishToolCalls; others pass through);
//   - usage: Anthropic's input_tokens leaves out cached tokens, so
//     Usage.InputTokens is input_tokens + cache_read_input_tokens +
//     cache_creation_input_tokens, with the two cache parts beside it;
//     the thinking tokens of output_tokens are Usage.ReasoningTokens; a
//     server-side compaction's tokens (usage.iterations' compaction
//     entries), which the top-level counts leave out, are added, as
//     they are billed, its cache reads and writes to the cache parts;
//     usage.service_tier, with "fast" for usage.speed fast, is
//     Usage.ServiceTier, and usage.inference_geo Usage.InferenceGeo.
//
// Client.Streaming makes it stream (see stream.go).
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/agentreplay/testbed/agents/llm"
)

// DefaultMaxTokens is the max_tokens sent when a request sets no limit:
// the API requires one, and every current Claude model allows this many.
const DefaultMaxTokens = 4096

// Client is an llm.Client for one Anthropic model.
type Client struct {
	sdk    sdk.Client
	model  string
	stream bool
}

// New returns a client for model at baseURL (empty for llm.AnthropicBaseURL), sending
// every request through hc with key in x-api-key.
func New(baseURL, model, key string, hc *http.Client) (*Client, error) {
	if key == "" {
		return nil, errors.New("anthropic: an API key is required (set it in the agent's key variable)")
	}
	if baseURL == "" {
		baseURL = llm.AnthropicBaseURL
	}
	return &Client{
		model: model,
		sdk: sdk.NewClient(
			option.WithoutEnvironmentDefaults(),
			option.WithBaseURL(baseURL),
			option.WithAPIKey(key),
			option.WithHTTPClient(hc),
			option.WithMaxRetries(0),
		),
	}, nil
}

// Chat implements llm.Client.
func (c *Client) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	params, err := c.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	if c.stream {
		return c.chatStream(ctx, params)
	}
	out, err := c.sdk.Messages.New(ctx, params)
	if err != nil {
		return llm.Response{}, apiError(err)
	}
	return Response(out)
}

// apiError turns the SDK's error for a non-2xx answer into an
// llm.StatusError; other errors pass through.
func apiError(err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return &llm.StatusError{Code: apiErr.StatusCode, Body: apiErr.RawJSON()}
	}
	return err
}

// Response maps a Messages response to llm.Response: text blocks joined,
// tool_use blocks as tool calls, thinking left out; ErrNoContent, with the
// rest of the answer (usage, stop reason), when it has no content blocks.
// The harness reads an outside agent's responses with it too.
func Response(out *sdk.Message) (llm.Response, error) {
	msg := llm.Message{Role: llm.RoleAssistant}
	for _, b := range out.Content {
		switch b.Type {
		case "text":
			msg.Content += b.Text
		case "tool_use":
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		}
	}
	resp := llm.Response{
		Message:         msg,
		FinishReason:    FinishReason(string(out.StopReason)),
		RawFinishReason: string(out.StopReason),
		Model:           string(out.Model),
		ID:              out.ID,
		Usage:           usage(out.Usage),
	}
	if len(out.Content) == 0 {
		return resp, llm.ErrNoContent
	}
	return resp, nil
}

// FinishReason maps an Anthropic stop_reason to llm's finish reasons:
// end_turn and stop_sequence are FinishStop, max_tokens and
// model_context_window_exceeded FinishLength, tool_use FinishToolCalls,
// refusal FinishContentFilter, and any other (pause_turn) FinishOther.
func FinishReason(stop string) string {
	switch stop {
	case "":
		return ""
	case "end_turn", "stop_sequence":
		return llm.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "tool_use":
		return llm.FinishToolCalls
	case "refusal":
		return llm.FinishContentFilter
	}
	return llm.FinishOther
}

// usage adds the cache parts to input_tokens, which leaves them out, and
// reads the thinking part of output_tokens (output_tokens_details, which
// recent models' answers carry) as the reasoning tokens.
func usage(u sdk.Usage) llm.Usage {
	read, write := int(u.CacheReadInputTokens), int(u.CacheCreationInputTokens)
	c := compaction(u.RawJSON())
	return llm.Usage{
		InputTokens:      int(u.InputTokens) + read + write + c.in,
		OutputTokens:     int(u.OutputTokens) + c.out,
		ReasoningTokens:  int(u.OutputTokensDetails.ThinkingTokens),
		CacheReadTokens:  read + c.read,
		CacheWriteTokens: write + c.write,
		// the SDK's cache_creation breakdown by time to live
		CacheWrite1hTokens: int(u.CacheCreation.Ephemeral1hInputTokens),
		ServiceTier:        tier(u),
		InferenceGeo:       llm.StandardGeo(u.InferenceGeo),
		WebSearches:        int(u.ServerToolUse.WebSearchRequests),
	}
}

// tier is the tier that served a call of usage u: its service tier
// (priority, batch; "" for standard), and "fast" when it ran in fast mode
// (usage.speed fast, billed at a premium over the model's rates), joined
// by "+" when both ("priority+fast"), so that a price row without the
// tier's rates leaves the call unpriced rather than billed at the standard
// rates.
func tier(u sdk.Usage) string {
	t := llm.StandardTier(string(u.ServiceTier))
	if u.Speed != sdk.UsageSpeedFast {
		return t
	}
	if t == "" {
		return string(sdk.UsageSpeedFast)
	}
	return t + "+" + string(sdk.UsageSpeedFast)
}

// compacted is the usage of the compaction iterations a usage object
// lists: a compaction the server made before answering
// (context_management), billed beside the answer's. in is every input
// token, the parts read from the cache (read) and written to it (write)
// included, as the answer's are counted.
type compacted struct{ in, out, read, write int }

// compaction is the usage of the compaction iterations a usage object (its
// JSON) lists.
func compaction(usage string) compacted {
	var u struct {
		Iterations []struct {
			Type                     string `json:"type"`
			InputTokens              int    `json:"input_tokens"`
			OutputTokens             int    `json:"output_tokens"`
			CacheReadInputTokens     int    `json:"cache_read_input_tokens"`
			CacheCreationInputTokens int    `json:"cache_creation_input_tokens"`
		} `json:"iterations"`
	}
	var c compacted
	if !strings.Contains(usage, `"iterations"`) || json.Unmarshal([]byte(usage), &u) != nil {
		return c
	}
	for _, it := range u.Iterations {
		if it.Type == "compaction" {
			c.in += it.InputTokens + it.CacheReadInputTokens + it.CacheCreationInputTokens
			c.read += it.CacheReadInputTokens
			c.write += it.CacheCreationInputTokens
			c.out += it.OutputTokens
		}
	}
	return c
}

func (c *Client) params(req llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(c.model), MaxTokens: DefaultMaxTokens}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if err := req.Refuse("the Messages API", "top_p", "top_k", "stop"); err != nil {
		return p, err
	}
	if v := req.TopP; v != nil {
		p.TopP = sdk.Float(*v)
	}
	if v := req.TopK; v != nil {
		if *v != math.Trunc(*v) {
			return p, fmt.Errorf("the Messages API takes a whole top_k, not %v", *v)
		}
		p.TopK = sdk.Int(int64(*v))
	}
	p.StopSequences = req.Stop
	for _, m := range req.Messages {
		if m.Role == llm.RoleSystem {
			p.System = append(p.System, sdk.TextBlockParam{Text: m.Content})
			continue
		}
		blocks, err := blocks(m)
		if err != nil {
			return p, err
		}
		if len(blocks) == 0 {
			continue // the API refuses empty turns and empty text blocks
		}
		role := sdk.MessageParamRoleUser
		if m.Role == llm.RoleAssistant {
			role = sdk.MessageParamRoleAssistant
		}
		if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == role {
			// Parallel tool results, and the user text after them, are one
			// user message.
			p.Messages[n-1].Content = append(p.Messages[n-1].Content, blocks...)
			continue
		}
		p.Messages = append(p.Messages, sdk.MessageParam{Role: role, Content: blocks})
	}
	for _, t := range req.Tools {
		tool, err := toolParam(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return p, nil
}

// blocks are the content blocks of a user, assistant or tool message.
func blocks(m llm.Message) ([]sdk.ContentBlockParamUnion, error) {
	var out []sdk.ContentBlockParamUnion
	switch m.Role {
	case llm.RoleUser:
		if m.Content != "" {
			out = append(out, sdk.NewTextBlock(m.Content))
		}
	case llm.RoleTool:
		res := sdk.NewToolResultBlock(m.ToolCallID, m.Content, m.IsError)
		if m.Content == "" {
			res.OfToolResult.Content = nil // the API refuses an empty text block
		}
		out = append(out, res)
	case llm.RoleAssistant:
		if m.Content != "" {
			out = append(out, sdk.NewTextBlock(m.Content))
		}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if len(args) == 0 {
				args = json.RawMessage(`{}`)
			}
			var obj map[string]any
			if err := json.Unmarshal(args, &obj); err != nil {
				return nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.Name, err)
			}
			out = append(out, sdk.NewToolUseBlock(tc.ID, args, tc.Name))
		}
	default:
		return nil, fmt.Errorf("unknown message role %q", m.Role)
	}
	return out, nil
}

// names is a decoded JSON list of strings as a []string (null is nil);
// false for anything else.
func names(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, v == nil
	}
	out := make([]string, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// toolParam sends t's JSON Schema as input_schema, every keyword kept.
func toolParam(t llm.Tool) (sdk.ToolParam, error) {
	var schema map[string]any
	if err := json.Unmarshal(t.Parameters, &schema); err != nil {
		return sdk.ToolParam{}, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
	}
	in := sdk.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type", "properties":
		case "required":
			req, ok := names(v)
			if !ok {
				return sdk.ToolParam{}, fmt.Errorf("tool %s: required is not a list of names", t.Name)
			}
			in.Required = req
		default:
			in.ExtraFields[k] = v
		}
	}
	tp := sdk.ToolParam{Name: t.Name, InputSchema: in}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	return tp, nil
}
