package wire

import (
	"github.com/agentreplay/testbed/agents/llm"
)

// The Anthropic Messages stream (stream: true), from Anthropic's
// streaming reference: event message_start (the message with empty
// content, no stop_reason and its input usage), then per content block a
// content_block_start, its content_block_delta events (text_delta for
// text, input_json_delta with partial_json pieces for a tool_use block's
// input, which starts as {}) and a content_block_stop, a ping after the
// first block starts, then message_delta (stop_reason and the usage, the
// whole message's counts as the API's current reference sends them) and
// message_stop. Each is sent with its type as the event name.

// anthropicEvents returns the dialect's stream encoder for message id,
// which says what managing its request's context did (managed, when set):
// a compaction block streams first, its summary in one compaction_delta,
// and message_delta carries the usage's iterations and the edits applied.
func anthropicEvents(id string, thinks thinkingDisplay, managed *anthropicManaged) func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
	return func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
		whole, err := anthropicMessage(id, model, msg, end, in, out, thinks)
		if err != nil {
			return nil, err
		}
		managed.say(whole)
		if managed != nil && managed.pause && managed.block != nil {
			msg, thinks = llm.Message{}, noThinking // the compaction block alone
		}
		stop, seq := whole["stop_reason"], whole["stop_sequence"]
		wholeUsage := whole["usage"].(map[string]any)
		// The answer's events are timed by its out tokens, as the whole
		// answer's latency is; the usage bills its thinking too.
		timed := out
		in, out = wholeUsage["input_tokens"].(int), wholeUsage["output_tokens"].(int)
		start := map[string]any{}
		for k, v := range whole {
			if k != "context_management" {
				start[k] = v
			}
		}
		usage := map[string]any{}
		for k, v := range wholeUsage {
			if k != "iterations" {
				usage[k] = v
			}
		}
		usage["output_tokens"] = 1 // as the API's message_start reports it
		start["content"], start["stop_reason"], start["stop_sequence"], start["usage"] = []any{}, nil, nil, usage
		ev := func(kind int, data map[string]any, before int) Event {
			return Event{Kind: kind, Name: data["type"].(string), Data: data, Before: before}
		}
		events := []Event{ev(EventHead, map[string]any{"type": "message_start", "message": start}, 0)}
		blocks := whole["content"].([]any)
		// Tool input streams as the JSON the whole message carries.
		msg.ToolCalls = append([]llm.ToolCall(nil), msg.ToolCalls...)
		for i, b := range blocks[len(blocks)-len(msg.ToolCalls):] {
			input, err := MarshalPlain(b.(map[string]any)["input"])
			if err != nil {
				return nil, err
			}
			msg.ToolCalls[i].Arguments = input
		}
		block, open := -1, false // the block being streamed
		closeBlock := func(kind, before int) {
			if open {
				events = append(events, ev(kind, map[string]any{"type": "content_block_stop", "index": block}, before))
			}
		}
		openBlock := func(content map[string]any, before int) {
			closeBlock(EventContent, before)
			block, open = block+1, true
			events = append(events, ev(EventContent, map[string]any{"type": "content_block_start", "index": block, "content_block": content}, before))
			if block == 0 {
				events = append(events, ev(EventContent, map[string]any{"type": "ping"}, before))
			}
		}
		first := 0 // the first block the model wrote
		if managed != nil && managed.block != nil {
			// A compaction streams first, its summary whole.
			c := blocks[0].(map[string]any)
			openBlock(map[string]any{"type": "compaction", "content": ""}, 0)
			events = append(events, ev(EventContent, map[string]any{"type": "content_block_delta", "index": block,
				"delta": map[string]any{"type": "compaction_delta", "content": c["content"], "encrypted_content": c["encrypted_content"]}}, 0))
			first = 1
		}
		if thinks != noThinking {
			// The thinking block streams first: its text (none when
			// omitted), then its signature.
			t := blocks[first].(map[string]any)
			openBlock(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, 0)
			if thinks == thinkingShown {
				events = append(events, ev(EventContent, map[string]any{"type": "content_block_delta", "index": block, "delta": map[string]any{"type": "thinking_delta", "thinking": t["thinking"]}}, 0))
			}
			events = append(events, ev(EventContent, map[string]any{"type": "content_block_delta", "index": block, "delta": map[string]any{"type": "signature_delta", "signature": t["signature"]}}, 0))
		}
		ps := pieces(msg, timed, cut(msg.Content, true))
		if len(ps) == 0 && len(blocks) > block+1 {
			openBlock(map[string]any{"type": "text", "text": ""}, 0) // an empty answer's one empty block
		}
		for i, p := range ps {
			switch {
			case p.call < 0:
				if i == 0 {
					openBlock(map[string]any{"type": "text", "text": ""}, p.before)
				}
				events = append(events, ev(EventContent, map[string]any{"type": "content_block_delta", "index": block,
					"delta": map[string]any{"type": "text_delta", "text": p.text}}, p.before))
			case p.start:
				b := map[string]any{}
				for k, v := range blocks[block+1].(map[string]any) {
					b[k] = v
				}
				b["input"] = map[string]any{}
				openBlock(b, p.before)
			default:
				events = append(events, ev(EventContent, map[string]any{"type": "content_block_delta", "index": block,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": p.text}}, p.before))
			}
		}
		closeBlock(EventTail, timed) // the last block ends with the answer
		delta := map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": seq, "stop_details": nil},
			"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
		if it, ok := wholeUsage["iterations"]; ok {
			delta["usage"].(map[string]any)["iterations"] = it
		}
		if cm, ok := whole["context_management"]; ok {
			delta["context_management"] = cm
		}
		events = append(events, ev(EventTail, delta, 0), ev(EventDone, map[string]any{"type": "message_stop"}, 0))
		return events, nil
	}
}
