package external_test

// The shapes FuzzSDKReading builds an answer into: each API's whole answer
// and its stream, as the providers' API references describe them.

// obj is a JSON object.
type obj = map[string]any

// chatUsage is the Chat Completions usage of a.
func (a answer) chatUsage() obj {
	return obj{"prompt_tokens": a.in, "completion_tokens": a.out, "total_tokens": a.in + a.out,
		"prompt_tokens_details":     obj{"cached_tokens": a.cached, "cache_write_tokens": a.written, "audio_tokens": a.audio},
		"completion_tokens_details": obj{"reasoning_tokens": a.reasoning, "audio_tokens": a.audio, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}
}

// chat is a as a whole chat completion.
func (a answer) chat() string {
	msg := obj{"role": "assistant", "content": a.text, "refusal": nil, "annotations": []any{}}
	if a.calls {
		msg["tool_calls"] = []any{obj{"id": a.id, "type": "function", "function": obj{"name": a.tool, "arguments": a.args}}}
		if a.text == "" {
			msg["content"] = nil
		}
	}
	choices := []any{obj{"index": 0, "message": msg, "logprobs": nil, "finish_reason": a.finish}}
	if a.twoChoices {
		choices = append(choices, obj{"index": 1, "message": obj{"role": "assistant", "content": "Or: " + a.text}, "logprobs": nil, "finish_reason": "stop"})
	}
	return mustJSON(obj{"id": "chatcmpl-f1", "object": "chat.completion", "created": 1767225600, "model": a.model, "service_tier": a.tier,
		"choices": choices, "usage": a.chatUsage()})
}

// chatStream is a as chat completion chunks, with the usage-only chunk
// stream_options.include_usage asks for, and [DONE].
func (a answer) chatStream() string {
	chunk := func(choices []any, usage any) obj {
		return obj{"id": "chatcmpl-f2", "object": "chat.completion.chunk", "created": 1767225600, "model": a.model, "service_tier": a.tier,
			"system_fingerprint": "fp_f2", "choices": choices, "usage": usage}
	}
	delta := func(index int, d obj, finish any) []any {
		return []any{obj{"index": index, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	out := []any{chunk(delta(0, obj{"role": "assistant", "content": ""}, nil), nil)}
	for _, p := range a.textPieces() {
		out = append(out, chunk(delta(0, obj{"content": p}, nil), nil))
		if a.twoChoices {
			out = append(out, chunk(delta(1, obj{"content": p}, nil), nil))
		}
	}
	if a.calls {
		half := len(a.args) / 2
		out = append(out,
			chunk(delta(0, obj{"tool_calls": []any{obj{"index": 0, "id": a.id, "type": "function", "function": obj{"name": a.tool, "arguments": ""}}}}, nil), nil),
			chunk(delta(0, obj{"tool_calls": []any{obj{"index": 0, "function": obj{"arguments": a.args[:half]}}}}, nil), nil),
			chunk(delta(0, obj{"tool_calls": []any{obj{"index": 0, "function": obj{"arguments": a.args[half:]}}}}, nil), nil))
	}
	if a.twoChoices {
		out = append(out, chunk(delta(1, obj{}, "stop"), nil))
	}
	out = append(out, chunk(delta(0, obj{}, a.finish), nil), chunk([]any{}, a.chatUsage()))
	return eventStream(false, "data: [DONE]", out...)
}

// responses is a as a whole Responses API response.
func (a answer) responses() obj {
	var output []any
	if a.thought != "" {
		output = append(output, obj{"id": "rs_f", "type": "reasoning", "summary": []any{obj{"type": "summary_text", "text": a.thought}}})
	}
	if a.text != "" || !a.calls {
		output = append(output, obj{"id": "msg_f", "type": "message", "role": "assistant", "status": "completed",
			"content": []any{obj{"type": "output_text", "text": a.text, "annotations": []any{}, "logprobs": []any{}}}})
	}
	if a.calls {
		output = append(output, obj{"id": "fc_f", "type": "function_call", "status": "completed", "call_id": a.id, "name": a.tool, "arguments": a.args})
	}
	r := obj{"id": "resp_f", "object": "response", "created_at": 1767225600, "status": "completed", "model": a.model, "service_tier": a.tier, "output": output,
		"usage": obj{"input_tokens": a.in, "input_tokens_details": obj{"cached_tokens": a.cached, "cache_write_tokens": a.written},
			"output_tokens": a.out, "output_tokens_details": obj{"reasoning_tokens": a.reasoning}, "total_tokens": a.in + a.out}}
	if a.incomplete {
		r["status"], r["incomplete_details"] = "incomplete", obj{"reason": a.finish}
	}
	return r
}

// responsesStream is a as Responses API events, ending on the whole
// response in response.completed (or response.incomplete).
func (a answer) responsesStream() string {
	whole := a.responses()
	created := obj{"id": "resp_f", "object": "response", "created_at": 1767225600, "status": "in_progress", "model": a.model, "output": []any{}}
	out := []any{obj{"type": "response.created", "response": created}, obj{"type": "response.in_progress", "response": created}}
	for i, item := range whole["output"].([]any) {
		it := item.(obj)
		out = append(out, obj{"type": "response.output_item.added", "output_index": i, "item": obj{"id": it["id"], "type": it["type"]}})
		switch it["type"] {
		case "reasoning":
			out = append(out, obj{"type": "response.reasoning_summary_text.delta", "item_id": it["id"], "output_index": i, "summary_index": 0, "delta": a.thought})
		case "message":
			out = append(out, obj{"type": "response.content_part.added", "item_id": it["id"], "output_index": i, "content_index": 0, "part": obj{"type": "output_text", "text": ""}})
			for _, p := range a.textPieces() {
				out = append(out, obj{"type": "response.output_text.delta", "item_id": it["id"], "output_index": i, "content_index": 0, "delta": p, "logprobs": []any{}})
			}
			out = append(out, obj{"type": "response.output_text.done", "item_id": it["id"], "output_index": i, "content_index": 0, "text": a.text})
		case "function_call":
			out = append(out, obj{"type": "response.function_call_arguments.delta", "item_id": it["id"], "output_index": i, "delta": a.args},
				obj{"type": "response.function_call_arguments.done", "item_id": it["id"], "output_index": i, "arguments": a.args})
		}
		out = append(out, obj{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	end := "response.completed"
	if a.incomplete {
		end = "response.incomplete"
	}
	for i, e := range out {
		e.(obj)["sequence_number"] = i
	}
	out = append(out, obj{"type": end, "sequence_number": len(out), "response": whole})
	return eventStream(true, "", out...)
}

// anthropicUsage is the Messages usage of a, its output count out.
func (a answer) anthropicUsage(out int) obj {
	return obj{"input_tokens": a.in, "cache_creation_input_tokens": a.written, "cache_read_input_tokens": a.cached, "output_tokens": out,
		"cache_creation":        obj{"ephemeral_5m_input_tokens": a.written - a.written/2, "ephemeral_1h_input_tokens": a.written / 2},
		"output_tokens_details": obj{"thinking_tokens": a.reasoning}, "service_tier": a.tier, "speed": a.speed}
}

// anthropicBlocks is a's content blocks.
func (a answer) anthropicBlocks() []any {
	var blocks []any
	if a.thought != "" {
		blocks = append(blocks, obj{"type": "thinking", "thinking": a.thought, "signature": "c2ln"})
	}
	if a.text != "" || !a.calls {
		blocks = append(blocks, obj{"type": "text", "text": a.text})
	}
	if a.calls {
		blocks = append(blocks, obj{"type": "tool_use", "id": a.id, "name": a.tool, "input": a.argsObject})
	}
	return blocks
}

// anthropic is a as a whole Messages response.
func (a answer) anthropic() obj {
	return obj{"id": "msg_f", "type": "message", "role": "assistant", "model": a.model, "content": a.anthropicBlocks(),
		"stop_reason": a.finish, "stop_sequence": nil, "usage": a.anthropicUsage(a.out)}
}

// anthropicStream is a as Messages events: the blocks in deltas, the stop
// reason and cumulative usage in message_delta.
func (a answer) anthropicStream() string {
	start := obj{"id": "msg_f", "type": "message", "role": "assistant", "model": a.model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": a.anthropicUsage(min(a.out, 1))}
	out := []any{obj{"type": "message_start", "message": start}, obj{"type": "ping"}}
	for i, b := range a.anthropicBlocks() {
		block := b.(obj)
		delta := func(d obj) obj { return obj{"type": "content_block_delta", "index": i, "delta": d} }
		switch block["type"] {
		case "thinking":
			out = append(out, obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "thinking", "thinking": "", "signature": ""}},
				delta(obj{"type": "thinking_delta", "thinking": a.thought}), delta(obj{"type": "signature_delta", "signature": "c2ln"}))
		case "text":
			out = append(out, obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "text", "text": ""}})
			for _, p := range a.textPieces() {
				out = append(out, delta(obj{"type": "text_delta", "text": p}))
			}
		case "tool_use":
			half := len(a.args) / 2
			out = append(out, obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "tool_use", "id": a.id, "name": a.tool, "input": obj{}}},
				delta(obj{"type": "input_json_delta", "partial_json": a.args[:half]}), delta(obj{"type": "input_json_delta", "partial_json": a.args[half:]}))
		}
		out = append(out, obj{"type": "content_block_stop", "index": i})
	}
	usage := a.anthropicUsage(a.out)
	delete(usage, "service_tier")
	delete(usage, "cache_creation")
	out = append(out, obj{"type": "message_delta", "delta": obj{"stop_reason": a.finish, "stop_sequence": nil}, "usage": usage}, obj{"type": "message_stop"})
	return eventStream(true, "", out...)
}

// geminiUsage is a's usageMetadata: audio in the prompt and the cache by
// modality.
func (a answer) geminiUsage() obj {
	return obj{"promptTokenCount": a.in, "candidatesTokenCount": a.out, "thoughtsTokenCount": a.reasoning, "cachedContentTokenCount": a.cached,
		"toolUsePromptTokenCount": a.written, "totalTokenCount": a.in + a.out + a.reasoning + a.written,
		"promptTokensDetails": []any{obj{"modality": "TEXT", "tokenCount": a.in - a.audio}, obj{"modality": "AUDIO", "tokenCount": a.audio}},
		"cacheTokensDetails":  []any{obj{"modality": "AUDIO", "tokenCount": a.audio / 2}}}
}

// geminiParts is a's parts: its thought, its text (in the pieces given)
// and its call.
func (a answer) geminiParts(texts ...string) []any {
	var parts []any
	if a.thought != "" {
		parts = append(parts, obj{"text": a.thought, "thought": true})
	}
	for _, t := range texts {
		parts = append(parts, obj{"text": t})
	}
	return append(parts, a.geminiCall()...)
}

// geminiCall is a's functionCall part, if it calls a tool, with its
// thought signature; no args when a.noArgs.
func (a answer) geminiCall() []any {
	if !a.calls {
		return nil
	}
	call := obj{"id": a.id, "name": a.tool, "args": a.argsObject}
	if a.noArgs {
		delete(call, "args")
	}
	return []any{obj{"functionCall": call, "thoughtSignature": "c2ln"}}
}

// geminiCandidate is candidate index of parts and finish reason ("" for
// none); index 0 goes unsaid, as proto3's JSON leaves it.
func geminiCandidate(index int, parts []any, finish string) obj {
	c := obj{"content": obj{"role": "model", "parts": parts}}
	if index > 0 {
		c["index"] = index
	}
	if finish != "" {
		c["finishReason"] = finish
	}
	return c
}

// gemini is a as a whole generateContent response.
func (a answer) gemini() obj {
	cands := []any{geminiCandidate(0, a.geminiParts(a.text), a.finish)}
	if a.twoChoices {
		cands = append(cands, geminiCandidate(1, []any{obj{"text": "Or: " + a.text}}, "STOP"))
	}
	return obj{"candidates": cands, "usageMetadata": a.geminiUsage(), "modelVersion": a.model, "responseId": "g-f"}
}

// geminiStream is a as streamGenerateContent?alt=sse chunks: a piece of
// text each, the thought first and the call with the finish reason last,
// the usage so far on each.
func (a answer) geminiStream() string {
	pieces := a.textPieces()
	var out []any
	for i, p := range pieces {
		parts, finish, other := []any{obj{"text": p}}, "", ""
		if i == 0 && a.thought != "" {
			parts = append([]any{obj{"text": a.thought, "thought": true}}, parts...)
		}
		if i == len(pieces)-1 {
			parts, finish, other = append(parts, a.geminiCall()...), a.finish, "STOP"
		}
		cands := []any{geminiCandidate(0, parts, finish)}
		if a.twoChoices {
			cands = append(cands, geminiCandidate(1, []any{obj{"text": p}}, other))
		}
		out = append(out, obj{"candidates": cands, "usageMetadata": a.geminiUsage(), "modelVersion": a.model})
	}
	return eventStream(false, "", out...)
}

// interaction is a as a whole Interactions API answer: its thought, its
// text and its call as steps, audio by modality in its usage.
func (a answer) interaction() obj {
	var steps []any
	if a.thought != "" {
		steps = append(steps, obj{"type": "thought", "signature": "c2ln"})
	}
	steps = append(steps, obj{"type": "model_output", "content": []any{obj{"type": "text", "text": a.text}}})
	status := "completed"
	if a.calls {
		steps, status = append(steps, obj{"type": "function_call", "id": a.id, "name": a.tool, "arguments": a.argsObject}), "requires_action"
	}
	return obj{"id": "v1_f", "object": "interaction", "model": a.model, "status": status, "service_tier": a.tier, "steps": steps,
		"usage": obj{"total_input_tokens": a.in, "total_output_tokens": a.out, "total_thought_tokens": a.reasoning, "total_cached_tokens": a.cached,
			"total_tool_use_tokens": a.written, "total_tokens": a.in + a.out + a.reasoning + a.written,
			"input_tokens_by_modality":  []any{obj{"modality": "text", "tokens": a.in - a.audio}, obj{"modality": "audio", "tokens": a.audio}},
			"cached_tokens_by_modality": []any{obj{"modality": "audio", "tokens": a.audio / 2}},
			"output_tokens_by_modality": []any{obj{"modality": "audio", "tokens": a.audio}}}}
}
