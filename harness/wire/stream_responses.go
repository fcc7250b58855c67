package wire

import (
	"maps"

	"github.com/agentreplay/testbed/agents/llm"
)

// The OpenAI Responses stream (stream: true), from OpenAI's streaming
// events reference: every event is sent with its type as the event name
// and a sequence_number counting from 0. response.created and
// response.in_progress carry the response as it starts (status
// in_progress, no output, usage null); then each output item of the
// unstreamed answer in turn: response.output_item.added (the item with
// status in_progress, a message with no content, a function call with
// empty arguments); for a message, response.content_part.added (an empty
// output_text part), its response.output_text.delta pieces,
// response.output_text.done with the whole text and
// response.content_part.done with the whole part (with log probabilities
// asked, each token is a delta of its own carrying its log probability,
// output_text.done has them all and the content part none, as recorded
// streams do); for a function call,
// its response.function_call_arguments.delta pieces and
// response.function_call_arguments.done with the whole arguments; then
// response.output_item.done with the item as the whole response has it.
// The stream closes with response.completed (response.incomplete for an
// answer cut at max_output_tokens) carrying the whole response with its
// usage, the unstreamed call's body. There is no data: [DONE].

// responsesEvents returns the stream of whole, the response the
// unstreamed call answers msg with in out output tokens, with each
// token's log probability and top alternatives when top >= 0.
func responsesEvents(whole map[string]any, msg llm.Message, out, top int) ([]Event, error) {
	ev := func(kind int, data map[string]any, before int) Event {
		return Event{Kind: kind, Name: data["type"].(string), Data: data, Before: before}
	}
	start := with(whole, "status", "in_progress", "output", []any{}, "usage", nil, "completed_at", nil, "incomplete_details", nil)
	events := []Event{
		ev(EventHead, map[string]any{"type": "response.created", "response": start}, 0),
		ev(EventHead, map[string]any{"type": "response.in_progress", "response": start}, 0),
	}
	// With logprobs asked, each token of the text is a delta of its own,
	// as OpenAI streams them, carrying its log probability.
	text, groups, err := streamText(msg.Content, top)
	if err != nil {
		return nil, err
	}
	ps := pieces(msg, out, text)
	items := whole["output"].([]any)
	// The pieces of item i: the message's text, or call i's (less the
	// message) start and arguments.
	of := func(i int) []piece {
		call := i - (len(items) - len(msg.ToolCalls))
		var mine []piece
		for _, p := range ps {
			if p.call == call {
				mine = append(mine, p)
			}
		}
		return mine
	}
	// next is when the item after i starts: its first piece, else the
	// answer's end.
	next := func(i int) (kind, before int) {
		for j := i + 1; j < len(items); j++ {
			if mine := of(j); len(mine) > 0 {
				return EventContent, mine[0].before
			}
		}
		return EventTail, out
	}
	for i, it := range items {
		item := it.(map[string]any)
		mine := of(i)
		first := 0
		if len(mine) > 0 {
			first = mine[0].before
		}
		id, at := item["id"], map[string]any{"output_index": i}
		endKind, end := next(i)
		switch item["type"] {
		case "reasoning":
			events = append(events, ev(EventContent, map[string]any{"type": "response.output_item.added", "output_index": i,
				"item": map[string]any{"type": "reasoning", "id": id, "summary": []any{}}}, first))
			for k, s := range item["summary"].([]any) {
				part := s.(map[string]any)
				summary := with(at, "item_id", id, "summary_index", k)
				events = append(events,
					ev(EventContent, with(summary, "type", "response.reasoning_summary_part.added", "part", with(part, "text", "")), first),
					ev(EventContent, with(summary, "type", "response.reasoning_summary_text.delta", "delta", part["text"]), first),
					ev(EventContent, with(summary, "type", "response.reasoning_summary_text.done", "text", part["text"]), first),
					ev(EventContent, with(summary, "type", "response.reasoning_summary_part.done", "part", part), first))
			}
		case "message":
			// The content part's events carry no logprobs: the deltas and
			// output_text.done do, as recorded streams show.
			part := item["content"].([]any)[0].(map[string]any)
			bare := with(part, "logprobs", []any{})
			events = append(events,
				ev(EventContent, map[string]any{"type": "response.output_item.added", "output_index": i, "item": with(item, "status", "in_progress", "content", []any{})}, first),
				ev(EventContent, with(at, "type", "response.content_part.added", "item_id", id, "content_index", 0, "part", with(bare, "text", "")), first))
			for k, p := range mine { // the message is the first item: its pieces are groups' order
				logprobs := []any{}
				if top >= 0 {
					logprobs = tokenLogprobs(groups[k], top)
				}
				events = append(events, ev(EventContent, with(at, "type", "response.output_text.delta", "item_id", id, "content_index", 0, "delta", p.text, "logprobs", logprobs), p.before))
			}
			events = append(events,
				ev(endKind, with(at, "type", "response.output_text.done", "item_id", id, "content_index", 0, "text", part["text"], "logprobs", part["logprobs"]), end),
				ev(endKind, with(at, "type", "response.content_part.done", "item_id", id, "content_index", 0, "part", bare), end))
		case "function_call":
			events = append(events, ev(EventContent, map[string]any{"type": "response.output_item.added", "output_index": i, "item": with(item, "status", "in_progress", "arguments", "")}, first))
			for _, p := range mine[min(1, len(mine)):] {
				events = append(events, ev(EventContent, with(at, "type", "response.function_call_arguments.delta", "item_id", id, "delta", p.text), p.before))
			}
			events = append(events, ev(endKind, with(at, "type", "response.function_call_arguments.done", "item_id", id, "arguments", item["arguments"]), end))
		default: // a compaction: added whole
			events = append(events, ev(EventContent, map[string]any{"type": "response.output_item.added", "output_index": i, "item": item}, first))
		}
		events = append(events, ev(endKind, map[string]any{"type": "response.output_item.done", "output_index": i, "item": item}, end))
	}
	terminal := "response.completed"
	if whole["status"] == "incomplete" {
		terminal = "response.incomplete"
	}
	events = append(events, ev(EventDone, map[string]any{"type": terminal, "response": whole}, out))
	for i := range events {
		events[i].Data.(map[string]any)["sequence_number"] = i
	}
	return events, nil
}

// with is a copy of m with the given keys set to the values after them.
func with(m map[string]any, kv ...any) map[string]any {
	c := maps.Clone(m)
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1]
	}
	return c
}
