package wire

import (
	"github.com/agentreplay/testbed/agents/llm"
)

// The Gemini stream (POST …/models/<model>:streamGenerateContent?alt=sse),
// from Gemini's API reference: each event's data is a
// GenerateContentResponse holding the next parts of the one candidate,
// with the model version and response id. Text comes in pieces; a function
// call comes whole in one chunk, as Gemini sends them. Every chunk has the
// usage so far, as recorded streams do: the prompt's tokens and the
// candidates' tokens through that chunk (left out while none). The last
// chunk has an empty text part, the finishReason and the whole usage.
// A request for n candidates gets all n in every chunk, each by its index,
// and the usage of all of them. With log probabilities asked, each token
// of the text is a chunk of its own, whose candidates carry its
// logprobsResult (logprobs.go). There is no event that closes the stream
// and no event: field.

// geminiEvents is the dialect's stream encoder: every chunk carries the
// response's id.
func geminiEvents(id, model string, msg llm.Message, end End, n, top, in, out, cached int, thoughts bool) ([]Event, error) {
	whole, err := geminiCompletion(id, model, msg, finishOf(msg, end, "STOP", "MAX_TOKENS", "STOP"), n, in, out, cached)
	if err != nil {
		return nil, err
	}
	// The thought, asked for, comes first, in a chunk of its own; every
	// chunk's usage counts its tokens.
	var thought map[string]any
	if thoughts {
		if thought, err = geminiThought(whole, model, msg, n); err != nil {
			return nil, err
		}
	}
	thinking, _ := whole["usageMetadata"].(map[string]any)["thoughtsTokenCount"].(int)
	calls := whole["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]map[string]any)
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		calls = calls[1:] // the text part; the function calls follow it
	}
	// chunk is the chunk of part, with the log probabilities of toks (none
	// when nil).
	chunk := func(part map[string]any, toks []string, through int, last bool) map[string]any {
		cands := make([]any, n)
		for i := range cands {
			cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "index": i}
			if last {
				cand["finishReason"] = whole["candidates"].([]any)[0].(map[string]any)["finishReason"]
			}
			if toks != nil {
				geminiLogprobs(cand, toks, top)
			}
			cands[i] = cand
		}
		c := map[string]any{"candidates": cands, "modelVersion": model, "responseId": id}
		if last {
			c["usageMetadata"] = whole["usageMetadata"]
			return c
		}
		usage := map[string]any{"promptTokenCount": in, "totalTokenCount": in + through*n + thinking,
			"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": in}}}
		if through > 0 {
			usage["candidatesTokenCount"] = through * n
		}
		if thinking > 0 {
			usage["thoughtsTokenCount"] = thinking
		}
		withCached(usage, cached)
		c["usageMetadata"] = usage
		return c
	}
	// With log probabilities asked, each token of the text is a chunk of
	// its own, with its log probability.
	text, groups, err := streamText(msg.Content, top)
	if err != nil {
		return nil, err
	}
	ps := pieces(msg, out, text)
	// through is the output tokens through the pieces up to the next chunk's.
	through := func(i int) int {
		for _, p := range ps[i+1:] {
			if p.call < 0 || p.start {
				return p.before
			}
		}
		return out
	}
	var events []Event
	if thought != nil {
		events = append(events, Event{Kind: EventContent, Data: chunk(thought, nil, 0, false)})
	}
	for i, p := range ps {
		switch {
		case p.call < 0:
			var toks []string
			if top >= 0 {
				toks = groups[i] // the text pieces come first, in order
			}
			events = append(events, Event{Kind: EventContent, Data: chunk(map[string]any{"text": p.text}, toks, through(i), false), Before: p.before})
		case p.start:
			events = append(events, Event{Kind: EventContent, Data: chunk(calls[p.call], nil, through(i), false), Before: p.before})
		}
	}
	return append(events, Event{Kind: EventTail, Data: chunk(map[string]any{"text": ""}, nil, out, true)}), nil
}
