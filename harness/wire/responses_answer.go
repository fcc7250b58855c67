package wire

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/agentreplay/testbed/agents/llm"
)

// The answer to a Responses request: the response object and the
// settings it echoes (responses.go says what is read and how).

// responsesEncoder answers rr, whose body and sample are given, with ids
// derived from them: the response's resp_ id and the x-request-id header's
// req_ id. keep, when set, is given each answer as its conversation will
// read it, by the response's id, with the response whole and, when it was
// compacted, what its compaction item is read as; t, when set,
// keeps what else a later request may name (a background stream's events,
// a compaction).
func responsesEncoder(rr responsesRequest, body []byte, sample int, t *Threads, keep func(id string, answer llm.Message, resp map[string]any, compacted []llm.Message)) Encoder {
	sum := requestHash(body, sample)
	h := hex.EncodeToString(sum[:])
	id := "resp_" + h[:48]
	// The compaction item the answer gives first, if any, and what it is
	// read as.
	var compacted struct {
		item    map[string]any
		carried []llm.Message
	}
	d := Encoder{
		Header:    openAIRequestHeader(sum),
		Error:     openAIStatusError,
		Malformed: `{"id": "` + id + `", "object": "response", "status": "completed", "output": [{"type": "message", "content": [{"type": "output_text", "text": "unterminated`,
		Completion: func(model string, msg llm.Message, end End, in, out int) (any, error) {
			resp := rr.echo(id, model, in, out)
			logprobs := []any{}
			if top := rr.logprobsAsked(); top >= 0 && msg.Content != "" {
				toks, err := answerTokens(msg.Content)
				if err != nil {
					return nil, err
				}
				logprobs = tokenLogprobs(toks, top)
			}
			var items []any
			if reasons(model) {
				item, toks, err := rr.reasoningItem(h, msg)
				if err != nil {
					return nil, err
				}
				items = append(items, item)
				usage := resp["usage"].(map[string]any)
				usage["output_tokens"], usage["total_tokens"] = out+toks, in+out+toks
				usage["output_tokens_details"] = map[string]any{"reasoning_tokens": toks}
			}
			answer := llm.Message{Role: llm.RoleAssistant, Content: msg.Content}
			status := "completed"
			if end.Truncated {
				resp["status"], status = "incomplete", "incomplete"
				resp["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
			}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				items = append(items, map[string]any{
					"type": "message", "id": "msg_" + h[16:64], "status": status, "role": "assistant",
					"content": []any{map[string]any{"type": "output_text", "text": msg.Content, "annotations": []any{}, "logprobs": logprobs}},
				})
			}
			for i, tc := range msg.ToolCalls {
				callID := fmt.Sprintf("call_%s%02d", h[40:62], i+1)
				items = append(items, map[string]any{
					"type": "function_call", "id": fmt.Sprintf("fc_%s%02d", h[8:54], i+1), "call_id": callID,
					"name": tc.Name, "arguments": string(tc.Arguments), "status": "completed",
				})
				answer.ToolCalls = append(answer.ToolCalls, llm.ToolCall{ID: callID, Name: tc.Name, Arguments: tc.Arguments})
			}
			if compacted.item != nil {
				items = append([]any{compacted.item}, items...)
			}
			resp["output"] = items
			if conv := conversationOf(rr.Conversation); conv != "" {
				resp["conversation"] = map[string]any{"id": conv}
			}
			if keep != nil {
				keep(id, answer, resp, compacted.carried)
			}
			if rr.Background && !rr.Stream {
				return queued(resp), nil
			}
			return resp, nil
		},
	}
	if above := rr.compactAbove(); above > 0 {
		d.Context = func(msgs []llm.Message, count func([]llm.Message) int) []llm.Message {
			if count(msgs) <= above {
				return msgs
			}
			read, item, carried := t.compactServerSide(h, msgs)
			if item != nil {
				compacted.item, compacted.carried = item, carried
			}
			return read
		}
	}
	if rr.Stream {
		d.Events = func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
			whole, err := d.Completion(model, msg, end, in, out)
			if err != nil {
				return nil, err
			}
			events, err := responsesEvents(whole.(map[string]any), msg, out, rr.logprobsAsked())
			if err == nil && t != nil && rr.Background {
				t.keepEvents(id, events)
			}
			return events, err
		}
	}
	return d
}

// echo is a response to rr without its output: the request's settings as
// the API echoes them (its tools, sampling, limits, reasoning, text format
// and verbosity, metadata, prompt cache key and retention, safety
// identifier, user, truncation and the service tier that served it), and
// usage.
func (rr responsesRequest) echo(id, model string, in, out int) map[string]any {
	tools := []any{}
	for _, t := range rr.Tools {
		strict := true // the Responses API's default
		if t.Strict != nil {
			strict = *t.Strict
		}
		tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description,
			"parameters": t.Parameters, "strict": strict})
	}
	format := json.RawMessage(`{"type": "text"}`)
	if rr.Text != nil && len(rr.Text.Format) > 0 {
		format = rr.Text.Format
	}
	orOne := func(v *float64) float64 {
		if v == nil {
			return 1
		}
		return *v
	}
	parallel := rr.ParallelToolCalls == nil || *rr.ParallelToolCalls
	verbosity := "medium"
	if rr.Text != nil && rr.Text.Verbosity != "" {
		verbosity = rr.Text.Verbosity
	}
	metadata := map[string]string{}
	if rr.Metadata != nil {
		metadata = rr.Metadata
	}
	var choice any = "auto"
	if len(rr.ToolChoice) > 0 && string(rr.ToolChoice) != "null" {
		choice = rr.ToolChoice // echoed as the API does
	}
	return map[string]any{
		"id": id, "object": "response", "created_at": 0, "completed_at": 0, "status": "completed",
		"background": rr.Background, "error": nil, "incomplete_details": nil,
		"instructions": rr.Instructions, "max_output_tokens": rr.MaxOutputTokens, "max_tool_calls": rr.MaxToolCalls,
		"model": model, "parallel_tool_calls": parallel, "previous_response_id": orNull(rr.PreviousResponseID),
		"reasoning": rr.reasoningEcho(), "service_tier": serviceTier(rr.ServiceTier),
		"temperature": orOne(rr.Temperature), "top_p": orOne(rr.TopP), "top_logprobs": cmp.Or(rr.TopLogprobs, new(int)),
		"text": map[string]any{"format": format, "verbosity": verbosity}, "tool_choice": choice, "tools": tools,
		"truncation": cmp.Or(rr.Truncation, "disabled"), "prompt_cache_key": rr.PromptCacheKey, "safety_identifier": rr.SafetyIdentifier, "access_programs": nil,
		"metadata": metadata, "store": rr.Store == nil || *rr.Store, "user": rr.User,
		"frequency_penalty": 0.0, "presence_penalty": 0.0, "billing": map[string]any{"payer": "developer"},
		"moderation": nil, "prompt_cache_retention": rr.PromptCacheRetention,
		"tool_usage": map[string]any{"image_gen": map[string]any{"input_tokens": 0, "input_tokens_details": map[string]any{"image_tokens": 0, "text_tokens": 0},
			"output_tokens": 0, "output_tokens_details": map[string]any{"image_tokens": 0, "text_tokens": 0}, "total_tokens": 0},
			"web_search": map[string]any{"num_requests": 0}},
		"usage": map[string]any{
			"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0, "cache_write_tokens": 0},
			"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": in + out,
		},
	}
}

// serviceTier is the service_tier an OpenAI answer (of either API)
// reports for a request that asked for tier: the tier that served it,
// "default" when the request left it to the project ("auto", or none),
// else the one it asked for (flex, priority, scale), as the APIs report
// the tier they used.
func serviceTier(tier string) string {
	if tier == "" || tier == "auto" {
		return "default"
	}
	return tier
}

// orNull is s, or null when it is empty.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// reasoningEcho is the reasoning settings of rr as its answer echoes them:
// those it gave, null where it gave none.
func (rr responsesRequest) reasoningEcho() map[string]any {
	echo := map[string]any{"effort": nil, "summary": nil}
	if r := rr.Reasoning; r != nil {
		if r.Effort != nil {
			echo["effort"] = *r.Effort
		}
		if r.Summary != nil {
			echo["summary"] = *r.Summary
		}
	}
	return echo
}
