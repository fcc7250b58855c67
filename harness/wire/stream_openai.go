package wire

import (
	"github.com/agentreplay/testbed/agents/llm"
)

// The OpenAI Chat Completions stream (stream: true), from OpenAI's API
// reference: chat.completion.chunk objects sharing the completion's id,
// created, model, service_tier and system_fingerprint. The first chunk's
// delta carries the role (and empty content), then content deltas and
// tool-call deltas (a call's first delta has its index, id, type and name
// with empty arguments, the next ones its index and a piece of its
// arguments); an answer that only calls tools has no chunk of its own for
// the role: its first call's first delta carries it, with content null, as
// recorded streams do. Then a chunk with an empty delta and
// the finish_reason. With stream_options.include_usage, every chunk has
// "usage": null and one more chunk, with no choices, carries the usage.
// The stream closes with data: [DONE]. A request for n choices gets each
// chunk once per choice, by its index, and the usage of all of them.
// With logprobs asked, each token of the text is a chunk of its own,
// carrying its log probability (logprobs.go); other chunks have logprobs
// null. Answering the legacy functions API,
// the call's deltas are function_call ones: the first has its name and
// empty arguments, the next ones a piece of its arguments.

// openAIEvents returns the dialect's stream encoder for n choices served
// at tier (their service_tier), with the usage chunk when includeUsage,
// answering the legacy functions API when legacy, with each token's log
// probability and top alternatives when top >= 0.
func openAIEvents(id, tier string, includeUsage, legacy bool, n, top int) func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
	return func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
		var events []Event
		// add appends the chunk of delta (and finish) once per choice,
		// with logprobs (nil for none).
		add := func(kind int, delta map[string]any, logprobs any, finish any, before int) {
			for i := range n {
				c := map[string]any{
					"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
					"service_tier": tier, "system_fingerprint": SystemFingerprint,
					"choices": []any{map[string]any{"index": i, "delta": delta, "logprobs": logprobs, "finish_reason": finish}},
				}
				if includeUsage {
					c["usage"] = nil
				}
				events = append(events, Event{Kind: kind, Data: c, Before: before})
			}
		}
		// An answer that only calls tools says its role in its first
		// call's first delta, with content null.
		toolsOnly := msg.Content == "" && len(msg.ToolCalls) > 0
		if !toolsOnly {
			add(EventHead, map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil, nil, 0)
		}
		// With logprobs asked, each token of the text is a chunk of its
		// own, as OpenAI streams them, carrying its log probability.
		text, groups, err := streamText(msg.Content, top)
		if err != nil {
			return nil, err
		}
		at := 0 // the text pieces come first, in order
		for _, p := range pieces(msg, out, text) {
			var delta map[string]any
			switch {
			case p.call < 0:
				delta = map[string]any{"content": p.text}
			case legacy && p.start:
				delta = map[string]any{"function_call": map[string]any{"name": msg.ToolCalls[p.call].Name, "arguments": ""}}
			case legacy:
				delta = map[string]any{"function_call": map[string]any{"arguments": p.text}}
			case p.start:
				tc := msg.ToolCalls[p.call]
				delta = map[string]any{"tool_calls": []any{map[string]any{
					"index": p.call, "id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": ""}}}}
			default:
				delta = map[string]any{"tool_calls": []any{map[string]any{"index": p.call, "function": map[string]any{"arguments": p.text}}}}
			}
			var logprobs any
			if top >= 0 && p.call < 0 {
				logprobs = map[string]any{"content": tokenLogprobs(groups[at], top), "refusal": nil}
				at++
			}
			kind := EventContent
			if toolsOnly && p.start && p.call == 0 {
				kind, delta["role"], delta["content"], delta["refusal"] = EventHead, "assistant", nil, nil
			}
			add(kind, delta, logprobs, nil, p.before)
		}
		add(EventTail, map[string]any{}, nil, chatFinish(msg, end, legacy), 0)
		if includeUsage {
			events = append(events, Event{Kind: EventTail, Data: map[string]any{
				"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": []any{},
				"service_tier": tier, "system_fingerprint": SystemFingerprint, "usage": chatUsage(in, out*n),
			}})
		}
		return append(events, Event{Kind: EventDone, Data: "[DONE]"}), nil
	}
}
