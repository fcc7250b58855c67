// Package openai adapts the OpenAI Chat Completions API (Client) and the
// Responses API (Responses) to llm.Client, over the official SDK. Chat
// Completions serves OpenAI itself and every server that speaks the same
// wire format (Ollama, llama.cpp server, vLLM, OpenRouter) through a base
// URL. SDK retries are off: the harness sees every attempt. Chat Completions
// sends the request's top_p, stop, seed, frequency_penalty and
// presence_penalty, and a response_format of json_object for Output JSON
// and of text for Output text; one giving top_k, several choices (n), a
// conversation, or image or speech output is refused (llm.Request.Refuse).
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentreplay/testbed/agents/llm"
)

// Client is an llm.Client for one model behind one base URL.
type Client struct {
	sdk    sdk.Client
	model  string
	stream bool
	tools  *schemas
}

// New returns a client for model at baseURL (for example
// "http://localhost:11434/v1"), sending every request through hc. An empty
// key sends a placeholder, as local servers need none.
func New(baseURL, model, key string, hc *http.Client) *Client {
	return &Client{model: model, sdk: newSDK(baseURL, key, hc), tools: &schemas{}}
}

// newSDK is the SDK's client at baseURL over hc, retries off; an empty key
// sends a placeholder.
func newSDK(baseURL, key string, hc *http.Client) sdk.Client {
	if key == "" {
		key = "none"
	}
	return sdk.NewClient(
		option.WithBaseURL(baseURL),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	)
}

// apiError turns the SDK's error for a non-2xx answer into
// *llm.StatusError; other errors pass through.
func apiError(err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return &llm.StatusError{Code: apiErr.StatusCode, Body: apiErr.RawJSON()}
	}
	return err
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
	out, err := c.sdk.Chat.Completions.New(ctx, params)
	if err != nil {
		return llm.Response{}, apiError(err)
	}
	return response(out)
}

// FinishReason maps a Chat Completions finish_reason to llm's finish
// reasons: stop, length, tool_calls and content_filter are the same,
// function_call (the API's older name) is tool_calls, and anything else a
// compatible server sends (Ollama, vLLM, OpenRouter) is FinishOther.
func FinishReason(raw string) string {
	switch raw {
	case "":
		return ""
	case llm.FinishStop, llm.FinishLength, llm.FinishToolCalls, llm.FinishContentFilter:
		return raw
	case "function_call":
		return llm.FinishToolCalls
	case "error":
		return llm.FinishError
	}
	return llm.FinishOther
}

// response maps a chat completion (whole, or accumulated from a stream) to
// llm.Response; ErrNoContent, with its usage, when it has no choice.
func response(out *sdk.ChatCompletion) (llm.Response, error) {
	resp := llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant},
		Model:   out.Model,
		ID:      out.ID,
		Usage: llm.Usage{
			InputTokens:     int(out.Usage.PromptTokens), // cached tokens included
			OutputTokens:    int(out.Usage.CompletionTokens),
			ReasoningTokens: int(out.Usage.CompletionTokensDetails.ReasoningTokens),
			CacheReadTokens: int(out.Usage.PromptTokensDetails.CachedTokens),
			// the prompt's tokens written to the cache, which OpenAI bills
			// apart (cache_write_tokens, beside cached_tokens)
			CacheWriteTokens: int(out.Usage.PromptTokensDetails.CacheWriteTokens),
			// audio_tokens: the audio parts of the prompt and the answer
			InputAudioTokens:  int(out.Usage.PromptTokensDetails.AudioTokens),
			OutputAudioTokens: int(out.Usage.CompletionTokensDetails.AudioTokens),
			ServiceTier:       llm.StandardTier(string(out.ServiceTier)),
		},
	}
	if len(out.Choices) == 0 {
		return resp, llm.ErrNoContent
	}
	choice := out.Choices[0]
	resp.Message.Content = choice.Message.Content
	for _, tc := range choice.Message.ToolCalls {
		call := llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)}
		if tc.Type == "custom" {
			// A custom tool is called with free text: its input, as a
			// JSON string, is the call's arguments.
			input, _ := json.Marshal(tc.Custom.Input) // a string always marshals
			call.Name, call.Arguments = tc.Custom.Name, input
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, call)
	}
	// The legacy functions API's one call, which has no id.
	//lint:ignore SA1019 the legacy functions API: deprecated in the SDK, still served by the API
	if fc := choice.Message.FunctionCall; fc.Name != "" {
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{Name: fc.Name, Arguments: json.RawMessage(fc.Arguments)})
	}
	resp.FinishReason, resp.RawFinishReason = FinishReason(choice.FinishReason), choice.FinishReason
	return resp, nil
}

func (c *Client) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(c.model)}
	if err := req.Refuse("Chat Completions", "top_p", "stop", "seed", "frequency_penalty", "presence_penalty"); err != nil {
		return p, err
	}
	for _, m := range req.Messages {
		mp, err := message(m)
		if err != nil {
			return p, err
		}
		p.Messages = append(p.Messages, mp)
	}
	for _, t := range req.Tools {
		schema, err := c.tools.decode(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: sdk.String(t.Description),
			Parameters:  shared.FunctionParameters(schema),
		}))
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		if reasoningModel(c.model) {
			p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = sdk.Int(int64(req.MaxTokens))
		}
	}
	switch req.Output {
	case llm.OutputJSON:
		p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{},
		}
	case llm.OutputText:
		p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{OfText: &shared.ResponseFormatTextParam{}}
	}
	if v := req.TopP; v != nil {
		p.TopP = sdk.Float(*v)
	}
	if len(req.Stop) > 0 {
		p.Stop = sdk.ChatCompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	if v := req.Seed; v != nil {
		p.Seed = sdk.Int(int64(*v))
	}
	if v := req.FrequencyPenalty; v != nil {
		p.FrequencyPenalty = sdk.Float(*v)
	}
	if v := req.PresencePenalty; v != nil {
		p.PresencePenalty = sdk.Float(*v)
	}
	return p, nil
}

func message(m llm.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleSystem:
		return sdk.SystemMessage(m.Content), nil
	case llm.RoleUser:
		return sdk.UserMessage(m.Content), nil
	case llm.RoleTool:
		return sdk.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.RoleAssistant:
		a := sdk.ChatCompletionAssistantMessageParam{}
		if m.Content != "" {
			a.Content.OfString = sdk.String(m.Content)
		}
		for _, tc := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name: tc.Name, Arguments: string(tc.Arguments),
					},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown message role %q", m.Role)
}

// reasoningModel reports whether model is one of OpenAI's reasoning
// families (o1, o3, o4-mini, gpt-5 …), which refuse max_tokens and take
// max_completion_tokens; a router's provider prefix ("openai/o3") is
// ignored. Every other server of the wire format takes max_tokens.
func reasoningModel(model string) bool {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	if strings.HasPrefix(model, "gpt-5") {
		return true
	}
	return len(model) >= 2 && model[0] == 'o' && model[1] >= '1' && model[1] <= '9'
}
