package cassette

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wI2L/jsondiff"

	"github.com/agentreplay/testbed/harness/wire"
)

// contentMembers are the top-level members of a request body that carry
// what the model is asked, or what it may answer with: one added or left
// out is never incidental, so no ignore rule is offered for it.
var contentMembers = map[string]bool{
	"model": true, "messages": true, "input": true, "contents": true, "prompt": true,
	"system": true, "instructions": true, "systemInstruction": true,
	"tools": true, "tool_choice": true, "toolConfig": true, "functions": true, "function_call": true,
	"response_format": true, "text": true, "generationConfig": true,
}

// settingMembers are the top-level members of a model request that set
// how the model answers (its length, stops, seed, reasoning, thinking,
// output, what a stream carries), across the APIs testbed reads: one an
// SDK starts or stops sending changes the answer or what is counted of
// it, whatever its value, so no ignore rule is offered for it either.
// Those with a default every API documents alike are in modelDefaults.
var settingMembers = map[string]bool{
	"max_tokens": true, "max_completion_tokens": true, "max_output_tokens": true, "stop": true, "stop_sequences": true,
	"seed": true, "top_k": true, "top_logprobs": true, "logit_bias": true, "reasoning_effort": true, "reasoning": true,
	"verbosity": true, "thinking": true, "output_config": true, "output_format": true, "modalities": true, "audio": true,
	"prediction": true, "stream_options": true, "think": true, "format": true, "options": true, "keep_alive": true,
	"safetySettings": true, "cachedContent": true, "service_tier": true,
}

// ignorable lists the JSON pointers of the members that live, a JSON
// object, adds to recorded or leaves out, that an ignore rule could leave
// out of matching when an SDK sends (or stops sending) them on every call:
// at the top, neither content (contentMembers) nor a setting of how the
// model answers (settingMembers) nor, in a call of an API
// whose defaults modelDefaults holds (defaults), a member at another value
// than the default its absence means; in a message, one that says nothing
// (echoed), for every message (a * for each index).
func ignorable(recorded, live []byte, defaults bool) []string {
	rv, err1 := decodeJSON(recorded)
	lv, err2 := decodeJSON(live)
	rm, rok := rv.(map[string]any)
	lm, lok := lv.(map[string]any)
	if err1 != nil || err2 != nil || !rok || !lok {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(rm)) {
		if _, both := lm[name]; !both && incidental(name, rm[name], defaults) {
			out = append(out, pointerTo(name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(lm)) {
		if _, both := rm[name]; !both && incidental(name, lm[name], defaults) {
			out = append(out, pointerTo(name))
		}
	}
	for _, key := range messageLists {
		ra, rok := rm[key].([]any)
		la, lok := lm[key].([]any)
		if rok && lok && len(ra) == len(la) {
			out = append(out, echoed("/"+key, ra, la)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// messageLists are the members of a model request that hold its
// conversation: Chat Completions' and Anthropic's messages, Responses'
// input, Gemini's contents.
var messageLists = []string{"messages", "input", "contents"}

// saying are the members of a message, or of a block or part of one, that
// carry what it says or which call it answers: one added or left out is
// never offered to be ignored (an assistant message's empty content
// included: ignoring /messages/*/content would ignore every text).
var saying = map[string]bool{
	"content": true, "text": true, "role": true, "type": true, "name": true, "id": true,
	"tool_calls": true, "tool_call_id": true, "tool_use_id": true, "call_id": true,
	"function": true, "arguments": true, "input": true, "output": true, "result": true, "is_error": true,
	"parts": true, "functionCall": true, "functionResponse": true, "args": true, "response": true,
	"source": true, "image_url": true, "inlineData": true, "fileData": true, "data": true,
	"thinking": true, "signature": true, "thoughtSignature": true, "summary": true, "encrypted_content": true,
}

// payloads are the members of a message's block or part whose value is
// what is said or done (a call's arguments, a tool's result, an image):
// nothing under them is offered to be ignored.
var payloads = map[string]bool{
	"input": true, "arguments": true, "args": true, "response": true, "output": true, "result": true,
	"source": true, "image_url": true, "inlineData": true, "fileData": true, "data": true,
}

// echoed lists, as pointers under key with a * for each index, the members
// the messages of live add to those of recorded, or leave out, in place,
// that say nothing (saying): what one SDK version echoes of an answer it
// was given (Anthropic's caller of a tool_use block) and another does not.
func echoed(key string, recorded, live []any) []string {
	var out []string
	for i := range recorded {
		if equalJSON(recorded[i], live[i]) {
			continue
		}
		rb, err1 := wire.MarshalPlain(recorded[i])
		lb, err2 := wire.MarshalPlain(live[i])
		if err1 != nil || err2 != nil {
			continue
		}
		patch, err := jsondiff.CompareJSON(rb, lb)
		if err != nil {
			continue
		}
		for _, op := range patch {
			toks := strings.Split(string(op.Path), "/")[1:]
			last := toks[len(toks)-1]
			if (op.Type != jsondiff.OperationAdd && op.Type != jsondiff.OperationRemove) || last == "-" || isIndex(last) || saying[unescapePointer(last)] ||
				slices.ContainsFunc(toks[:len(toks)-1], func(t string) bool { return payloads[unescapePointer(t)] }) {
				continue
			}
			for j, t := range toks {
				if isIndex(t) {
					toks[j] = "*"
				}
			}
			out = append(out, key+"/*/"+strings.Join(toks, "/"))
		}
	}
	return out
}

// covers reports whether pattern, a pointer with * for any member or
// element, points at pointer.
func covers(pattern, pointer string) bool {
	ps, qs := strings.Split(pattern, "/"), strings.Split(pointer, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != qs[i] {
			return false
		}
	}
	return true
}

// incidental reports whether a top-level member with value, present on
// one side only, may be left out of matching (ignorable): a member of
// modelDefaults only at its default, in a call of an API that documents
// it.
func incidental(name string, value any, defaults bool) bool {
	if contentMembers[name] || settingMembers[name] {
		return false
	}
	if def, ok := modelDefaults[name]; ok {
		// Elsewhere the default is not known (Ollama's stream is true).
		return defaults && sameScalar(value, def)
	}
	return true
}

// ignoreAdvice is the line a miss adds for the members ignorable found:
// the ignore rule that leaves them all out, and what it does not cover.
func ignoreAdvice(pointers []string, others int) string {
	rules := make([]string, len(pointers))
	for i, p := range pointers {
		rules[i] = "{body: " + flowScalar(p) + "}"
	}
	s := fmt.Sprintf("if the SDK now sends (or leaves out) %s on every call and the answer does not depend on it, leave it out of matching: match: {ignore: [%s]} (an ignored member is not compared at all); else re-record (docs/recording.md)",
		strings.Join(pointers, ", "), strings.Join(rules, ", "))
	switch {
	case others == 1:
		s += "; it does not cover the 1 other difference"
	case others > 1:
		s += fmt.Sprintf("; it does not cover the %d other differences", others)
	}
	return s
}

// pointerTo is the JSON pointer to a top-level member (RFC 6901).
func pointerTo(name string) string {
	return "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}
