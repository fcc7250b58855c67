package wire

import (
	"github.com/agentreplay/testbed/agents/llm"
)

// The Gemini stream (POST …/models/<model>:streamGenerateContent?alt=sse),
// from Gemini's API reference: each event's data is a
// GenerateContentResponse holding the next parts of the one candidate,
// with the model version and response id. Text comes in pieces; a function
// call comes whole in one chunk, as Gemini sends them. The last chunk has
// an empty text part, the finishReason and the usage. There is no event
// that closes the stream and no event: field.

// geminiEvents is the dialect's stream encoder: every chunk carries the
// response's id.
func geminiEvents(id, model string, msg llm.Message, truncated bool, in, out int) ([]Event, error) {
	whole, err := geminiCompletion(id, model, msg, finishOf(msg, truncated, "STOP", "MAX_TOKENS", "STOP"), in, out)
	if err != nil {
		return nil, err
	}
	calls := whole["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]map[string]any)
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		calls = calls[1:] // the text part; the function calls follow it
	}
	chunk := func(part map[string]any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "index": 0}
		c := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": id}
		if last {
			cand["finishReason"] = whole["candidates"].([]any)[0].(map[string]any)["finishReason"]
			c["usageMetadata"] = whole["usageMetadata"]
		}
		return c
	}
	var events []Event
	for _, p := range pieces(msg, out) {
		switch {
		case p.call < 0:
			events = append(events, Event{Kind: EventContent, Data: chunk(map[string]any{"text": p.text}, false), Before: p.before})
		case p.start:
			events = append(events, Event{Kind: EventContent, Data: chunk(calls[p.call], false), Before: p.before})
		}
	}
	return append(events, Event{Kind: EventTail, Data: chunk(map[string]any{"text": ""}, true)}), nil
}
