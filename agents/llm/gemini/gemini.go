// Package gemini adapts the Gemini generateContent API to llm.Client, over the
// official SDK (google.golang.org/genai). The API key travels in the
// x-goog-api-key header; SDK retries are off. The request's sampling
// settings are generationConfig's (temperature, topP, topK,
// stopSequences, seed, frequencyPenalty, presencePenalty), and its
// responseMimeType application/json for Output JSON, text/plain for
// Output text; one asking for several answers (candidateCount), naming a
// conversation, or asking for image or speech output is refused
// (llm.Request.Refuse).
package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"

	"google.golang.org/genai"

	"github.com/agentreplay/testbed/agents/llm"
)

// Client is an llm.Client for one Gemini model.
type Client struct {
	sdk    *genai.Client
	model  string
	stream bool
}

// New returns a client for model, calling baseURL (empty for Google's
// endpoint) through hc with key.
func New(ctx context.Context, baseURL, model, key string, hc *http.Client) (*Client, error) {
	if key == "" {
		return nil, errors.New("gemini: an API key is required (set it in the agent's key variable)")
	}
	c, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: baseURL},
	})
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return &Client{sdk: c, model: model}, nil
}

// Chat implements llm.Client.
func (c *Client) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	contents, cfg, err := convert(req)
	if err != nil {
		return llm.Response{}, err
	}
	if c.stream {
		return c.chatStream(ctx, contents, cfg)
	}
	out, err := c.sdk.Models.GenerateContent(ctx, c.model, contents, cfg)
	if err != nil {
		return llm.Response{}, apiError(err)
	}
	return response(out)
}

// apiError turns the SDK's error for a non-2xx answer into an
// llm.StatusError; other errors pass through.
func apiError(err error) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return &llm.StatusError{Code: apiErr.Code, Body: apiErr.Message}
	}
	return err
}

// response maps a generateContent response (whole, or merged from a
// stream's chunks) to llm.Response; ErrNoContent, with its usage and
// finish reason, when it has no candidate content (a blocked prompt,
// whose finish reason is its block reason: Blocked).
func response(out *genai.GenerateContentResponse) (llm.Response, error) {
	resp := llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, Model: out.ModelVersion, ID: out.ResponseID}
	if u := out.UsageMetadata; u != nil {
		// promptTokenCount includes the cached content's tokens; Gemini
		// counts thinking beside the candidates' tokens, and what its
		// built-in tools added to the prompt beside the prompt's.
		resp.Usage = llm.Usage{InputTokens: int(u.PromptTokenCount + u.ToolUsePromptTokenCount), OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
			ReasoningTokens: int(u.ThoughtsTokenCount), CacheReadTokens: int(u.CachedContentTokenCount), CacheReadAudioTokens: audio(u.CacheTokensDetails),
			InputAudioTokens: UncachedAudio(audio(u.PromptTokensDetails)+audio(u.ToolUsePromptTokensDetails), audio(u.CacheTokensDetails)), OutputAudioTokens: audio(u.CandidatesTokensDetails)}
	}
	for _, c := range out.Candidates {
		if g := c.GroundingMetadata; g != nil {
			resp.Usage.WebSearches += len(g.WebSearchQueries)
		}
	}
	if len(out.Candidates) > 0 {
		raw := string(out.Candidates[0].FinishReason)
		resp.FinishReason, resp.RawFinishReason = FinishReason(raw, false), raw
	} else if pf := out.PromptFeedback; pf != nil && pf.BlockReason != "" {
		resp.FinishReason, resp.RawFinishReason = Blocked(string(pf.BlockReason))
	}
	if len(out.Candidates) == 0 || out.Candidates[0].Content == nil {
		return resp, llm.ErrNoContent
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	for _, p := range out.Candidates[0].Content.Parts {
		switch {
		case p.FunctionCall != nil:
			// A call without args (a function of no parameters) has no
			// arguments: {}, not the null a nil map marshals to.
			args := []byte(`{}`)
			if p.FunctionCall.Args != nil {
				var err error
				if args, err = json.Marshal(p.FunctionCall.Args); err != nil {
					return llm.Response{}, err
				}
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{
				ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: args, Signature: p.ThoughtSignature,
			})
		case p.Text != "" && !p.Thought:
			msg.Content += p.Text
			if len(p.ThoughtSignature) > 0 {
				msg.Signature = p.ThoughtSignature
			}
		}
	}
	resp.Message = msg
	resp.FinishReason = FinishReason(resp.RawFinishReason, len(msg.ToolCalls) > 0)
	return resp, nil
}

// Blocked is the finish reason of a prompt Gemini blocked with reason
// (promptFeedback.blockReason: SAFETY, BLOCKLIST, PROHIBITED_CONTENT …),
// which has no candidate to carry a finishReason: a content filter,
// unless the reason is OTHER or unspecified (FinishOther). Its raw reason
// is "blockReason: " and reason, told apart from a candidate's.
func Blocked(reason string) (finish, raw string) {
	finish = llm.FinishContentFilter
	switch genai.BlockedReason(reason) {
	case genai.BlockedReasonOther, genai.BlockedReasonUnspecified:
		finish = llm.FinishOther
	}
	return finish, "blockReason: " + reason
}

// FinishReason maps a Gemini finishReason to llm's finish reasons. Gemini
// ends a turn that asks for function calls with STOP, so STOP with calls is
// FinishToolCalls; MAX_TOKENS is FinishLength; the safety, recitation,
// blocklist and prohibited-content reasons are FinishContentFilter; a
// malformed, unexpected or excess function call is FinishError; any other
// (OTHER, LANGUAGE, …) is FinishOther.
func FinishReason(raw string, calls bool) string {
	switch genai.FinishReason(raw) {
	case "":
		return ""
	case genai.FinishReasonStop:
		if calls {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	case genai.FinishReasonMaxTokens:
		return llm.FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return llm.FinishContentFilter
	case genai.FinishReasonMalformedFunctionCall, genai.FinishReasonUnexpectedToolCall, genai.FinishReasonTooManyToolCalls:
		return llm.FinishError
	}
	return llm.FinishOther
}

func convert(req llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{}
	// candidateCount would ask for answers a Response has no room for
	if err := req.Refuse("generateContent", "top_p", "top_k", "stop", "seed", "frequency_penalty", "presence_penalty"); err != nil {
		return nil, nil, err
	}
	var contents []*genai.Content
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleSystem:
			cfg.SystemInstruction = genai.NewContentFromText(m.Content, genai.RoleUser)
		case llm.RoleUser:
			contents = append(contents, genai.NewContentFromText(m.Content, genai.RoleUser))
		case llm.RoleAssistant:
			c := &genai.Content{Role: genai.RoleModel}
			if m.Content != "" {
				part := genai.NewPartFromText(m.Content)
				part.ThoughtSignature = m.Signature
				c.Parts = append(c.Parts, part)
			}
			for _, tc := range m.ToolCalls {
				var args map[string]any
				if err := json.Unmarshal(tc.Arguments, &args); err != nil {
					return nil, nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.Name, err)
				}
				part := genai.NewPartFromFunctionCall(tc.Name, args)
				part.FunctionCall.ID, part.ThoughtSignature = tc.ID, tc.Signature
				c.Parts = append(c.Parts, part)
			}
			contents = append(contents, c)
		case llm.RoleTool:
			var result any
			if err := json.Unmarshal([]byte(m.Content), &result); err != nil {
				result = m.Content
			}
			part := genai.NewPartFromFunctionResponse(m.Name, map[string]any{"result": result})
			part.FunctionResponse.ID = m.ToolCallID
			// The responses to one turn's parallel calls go back in one
			// content, as the API documents.
			if n := len(contents); n > 0 && isResponses(contents[n-1]) {
				contents[n-1].Parts = append(contents[n-1].Parts, part)
				continue
			}
			contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{part}})
		default:
			return nil, nil, fmt.Errorf("unknown message role %q", m.Role)
		}
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, t := range req.Tools {
			var schema any
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return nil, nil, fmt.Errorf("tool %s: parameters are not JSON: %w", t.Name, err)
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, &genai.FunctionDeclaration{
				Name: t.Name, Description: t.Description, ParametersJsonSchema: schema,
			})
		}
		cfg.Tools = []*genai.Tool{tool}
	}
	cfg.Temperature, cfg.TopP, cfg.TopK = float32Of(req.Temperature), float32Of(req.TopP), float32Of(req.TopK)
	cfg.FrequencyPenalty, cfg.PresencePenalty = float32Of(req.FrequencyPenalty), float32Of(req.PresencePenalty)
	cfg.StopSequences = req.Stop
	if v := req.Seed; v != nil {
		if *v < math.MinInt32 || *v > math.MaxInt32 {
			return nil, nil, fmt.Errorf("generateContent takes a 32-bit seed, not %d", *v)
		}
		seed := int32(*v)
		cfg.Seed = &seed
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(req.MaxTokens)
	}
	switch req.Output {
	case llm.OutputJSON:
		cfg.ResponseMIMEType = "application/json"
	case llm.OutputText:
		cfg.ResponseMIMEType = "text/plain"
	}
	return contents, cfg, nil
}

// float32Of is *v as the SDK's float32, nil when v is.
func float32Of(v *float64) *float32 {
	if v == nil {
		return nil
	}
	f := float32(*v)
	return &f
}

// isResponses reports whether c holds function responses only.
func isResponses(c *genai.Content) bool {
	if c.Role != genai.RoleUser || len(c.Parts) == 0 {
		return false
	}
	for _, p := range c.Parts {
		if p.FunctionResponse == nil {
			return false
		}
	}
	return true
}

// audio is the AUDIO modality's tokens of a usage breakdown by modality
// (promptTokensDetails, candidatesTokensDetails, cacheTokensDetails).
func audio(details []*genai.ModalityTokenCount) int {
	n := 0
	for _, d := range details {
		if d != nil && d.Modality == genai.MediaModalityAudio {
			n += int(d.TokenCount)
		}
	}
	return n
}

// UncachedAudio is the audio part of a prompt billed at the audio input
// rate: its audio tokens less those read from the cache (cacheTokensDetails'
// AUDIO, billed as cached audio reads), never below 0.
func UncachedAudio(prompt, cached int) int {
	return max(prompt-cached, 0)
}
