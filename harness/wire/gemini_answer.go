package wire

import (
	"encoding/base64"

	"github.com/agentreplay/testbed/agents/llm"
)

// geminiEncoder answers a generateContent request, whose body and sample
// are given, streamed when stream, in n candidates (each the same answer:
// the stand-in decides alike every time; the usage counts every
// candidate's tokens), with token log probabilities when top >= 0 (each
// with top alternatives). Its responseId, 22 URL-safe base64 characters
// as Gemini's are, derives from them: the same request and sample get the
// same id, and every distinct one its own.
func geminiEncoder(body []byte, sample int, stream bool, n, top int, thoughts bool, cached int) Encoder {
	sum := requestHash(body, sample)
	id := base64.RawURLEncoding.EncodeToString(sum[:16])
	e := Encoder{
		Error:     geminiError,
		Malformed: `{"candidates": [{"content": {"role": "model", "parts": [{"text": "unterminated`,
		Completion: func(model string, msg llm.Message, end End, in, out int) (any, error) {
			whole, err := geminiCompletion(id, model, msg, finishOf(msg, end, "STOP", "MAX_TOKENS", "STOP"), n, in, out, cached)
			if err != nil {
				return nil, err
			}
			if thoughts {
				thought, err := geminiThought(whole, model, msg, n)
				if err != nil {
					return nil, err
				}
				for _, c := range whole["candidates"].([]any) {
					content := c.(map[string]any)["content"].(map[string]any)
					if thought != nil {
						content["parts"] = append([]map[string]any{thought}, content["parts"].([]map[string]any)...)
					}
				}
			}
			if top < 0 || msg.Content == "" {
				return whole, nil
			}
			toks, err := answerTokens(msg.Content)
			if err != nil {
				return nil, err
			}
			for _, c := range whole["candidates"].([]any) {
				geminiLogprobs(c.(map[string]any), toks, top)
			}
			return whole, nil
		},
	}
	if stream {
		e.Events = func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
			return geminiEvents(id, model, msg, end, n, top, in, out, cached, thoughts)
		}
	}
	return e
}

// geminiCompletion is the generateContent response id for msg, in n
// candidates, with the usage Gemini's reference gives (the prompt's tokens
// by modality: the stand-in reads text only; the thoughts' tokens are
// added when asked for, thought.go), the first function call with a thought signature
// when the model is one that gives them (signature.go). Tool call
// arguments must be JSON objects: Gemini's args are.
func geminiCompletion(id, model string, msg llm.Message, finish string, n, in, out, cached int) (map[string]any, error) {
	var parts []map[string]any
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		parts = append(parts, map[string]any{"text": msg.Content})
	}
	for i, tc := range msg.ToolCalls {
		args, err := argsObject(tc)
		if err != nil {
			return nil, err
		}
		part := map[string]any{"functionCall": map[string]any{"name": tc.Name, "args": args}}
		if i == 0 && signs(model) {
			part["thoughtSignature"] = thoughtSignature(id, tc.Name, tc.Arguments)
		}
		parts = append(parts, part)
	}
	candidates := make([]any, n)
	for i := range candidates {
		candidates[i] = map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": finish,
			"index":        i,
		}
	}
	usage := map[string]any{"promptTokenCount": in, "candidatesTokenCount": out * n, "totalTokenCount": in + out*n,
		"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": in}}}
	withCached(usage, cached)
	return map[string]any{
		"candidates":    candidates,
		"usageMetadata": usage,
		"modelVersion":  model,
		"responseId":    id,
	}, nil
}

// withCached adds to a call's usage the tokens of the cached content it
// named, which its promptTokenCount counts too.
func withCached(usage map[string]any, cached int) {
	if cached > 0 {
		usage["cachedContentTokenCount"] = cached
		usage["cacheTokensDetails"] = []any{map[string]any{"modality": "TEXT", "tokenCount": cached}}
	}
}
