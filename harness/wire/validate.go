package wire

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Validation: the requests the real API refuses, with the API's own words,
// so that the stand-in refuses them (Read, Refusal) with 400 in the
// provider's own error shape: a recording against it then fails where a
// recording against the provider would, instead of writing an answer no
// provider gives. It checks what the APIs document and enforce (roles,
// required fields, the order of tool calls and their results); it does
// not second-guess a valid request.

// invalid is a request the real API refuses: its message, and OpenAI's
// param and code for it (empty when the API sends null).
type invalid struct {
	msg, param, code string
}

func (e *invalid) Error() string { return e.msg }

// chatRoles are the roles Chat Completions accepts, in the order its error
// lists them.
var chatRoles = []string{"system", "assistant", "user", "function", "tool", "developer"}

// chatToolName is the pattern Chat Completions holds tool names to.
var chatToolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validateChat returns what Chat Completions refuses in wr, or nil: no
// model; no messages; a role it does not have; a system, developer, user
// or tool message without content, or an assistant message with neither
// content nor tool calls (nor a legacy function_call); a function message
// without the function's name; a tool message without tool_call_id, or one that
// answers no tool call of the assistant message before it; an assistant
// message whose tool calls are not all answered by the tool messages right
// after it; stream_options without stream; tool_choice or
// parallel_tool_calls without tools; what a reasoning model does not take
// (reasoningParams); n outside 1 to 128;
// more than 4 stop sequences; top_logprobs outside 0 to 20; a tool name
// outside ^[a-zA-Z0-9_-]{1,64}$; a strict function's parameters or strict
// json_schema response format outside strict mode's subset (strictProblem),
// for one of OpenAI's models (strictModel).
func validateChat(wr chatRequest) error {
	if wr.Model == "" {
		return &invalid{msg: "you must provide a model parameter"}
	}
	if len(wr.Messages) == 0 {
		return &invalid{msg: "[] is too short - 'messages'", param: "messages"}
	}
	if n := wr.N; n != nil && *n < 1 {
		return &invalid{msg: fmt.Sprintf("Invalid 'n': integer below minimum value. Expected a value >= 1, but got %d instead.", *n), param: "n", code: "integer_below_min_value"}
	}
	if n := wr.N; n != nil && *n > 128 {
		return &invalid{msg: fmt.Sprintf("Invalid 'n': integer above maximum value. Expected a value <= 128, but got %d instead.", *n), param: "n", code: "integer_above_max_value"}
	}
	if n := len(wr.stops()); n > maxStops {
		return &invalid{msg: fmt.Sprintf("Invalid 'stop': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", maxStops, n), param: "stop", code: "array_above_max_length"}
	}
	if t := wr.TopLogprobs; t != nil && (*t < 0 || *t > maxTopLogprobs) {
		return &invalid{msg: fmt.Sprintf("Invalid 'top_logprobs': expected a value from 0 to %d, but got %d instead.", maxTopLogprobs, *t), param: "top_logprobs"}
	}
	if wr.StreamOptions != nil && !wr.Stream {
		return &invalid{msg: "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param: "stream_options"}
	}
	if len(wr.Tools) == 0 {
		// An agent that sends its default tool settings with no tools bound.
		if given(wr.ToolChoice) {
			return &invalid{msg: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", param: "tool_choice"}
		}
		if wr.ParallelToolCalls != nil {
			return &invalid{msg: "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", param: "parallel_tool_calls"}
		}
	}
	if err := reasoningParams(wr); err != nil {
		return err
	}
	type function struct{ param, name string }
	var functions []function
	for i, t := range wr.Tools {
		if t.Custom != nil {
			functions = append(functions, function{fmt.Sprintf("tools[%d].custom.name", i), t.Custom.Name})
			continue
		}
		functions = append(functions, function{fmt.Sprintf("tools[%d].function.name", i), t.Function.Name})
	}
	for i, f := range wr.Functions {
		functions = append(functions, function{fmt.Sprintf("functions[%d].name", i), f.Name})
	}
	for _, f := range functions {
		if !chatToolName.MatchString(f.name) {
			return &invalid{msg: fmt.Sprintf("Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", f.param),
				param: f.param, code: "invalid_value"}
		}
	}
	strict := strictModel(wr.Model)
	for i, t := range wr.Tools {
		if t.Custom == nil && isTrue(t.Function.Strict) && strict {
			if p := strictProblem(t.Function.Parameters); p != "" {
				return &invalid{msg: fmt.Sprintf("Invalid schema for function '%s': %s", t.Function.Name, p),
					param: fmt.Sprintf("tools[%d].function.parameters", i), code: "invalid_function_parameters"}
			}
		}
	}
	if rf := wr.ResponseFormat; rf != nil && rf.Type == "json_schema" && rf.JSONSchema != nil && isTrue(rf.JSONSchema.Strict) && strict {
		if p := strictProblem(rf.JSONSchema.Schema); p != "" {
			return &invalid{msg: fmt.Sprintf("Invalid schema for response_format '%s': %s", rf.JSONSchema.Name, p), param: "response_format"}
		}
	}
	var open []string // tool_call_ids of the last assistant message not answered yet
	calling := -1     // index of that assistant message; -1 when tool messages may not come
	for i, m := range wr.Messages {
		if !slices.Contains(chatRoles, m.Role) {
			p := fmt.Sprintf("messages[%d].role", i)
			return &invalid{msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role),
				param: p, code: "invalid_value"}
		}
		if m.Role != "tool" && len(open) > 0 {
			return &invalid{msg: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
				"The following tool_call_ids did not have response messages: " + strings.Join(open, ", "), param: fmt.Sprintf("messages.[%d].role", calling)}
		}
		switch m.Role {
		case "assistant":
			if m.Content == nil && len(m.ToolCalls) == 0 && m.FunctionCall == nil {
				return &invalid{msg: "Invalid value for 'content': expected a string, got null.", param: fmt.Sprintf("messages.[%d].content", i)}
			}
			open, calling = nil, -1
			for _, tc := range m.ToolCalls {
				open = append(open, tc.ID)
			}
			if len(open) > 0 {
				calling = i
			}
			continue
		case "tool":
			if m.ToolCallID == "" {
				return &invalid{msg: fmt.Sprintf("Missing required parameter: 'messages[%d].tool_call_id'.", i),
					param: fmt.Sprintf("messages[%d].tool_call_id", i), code: "missing_required_parameter"}
			}
			if calling < 0 {
				return &invalid{msg: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
					param: fmt.Sprintf("messages.[%d].role", i)}
			}
			if !calledBy(wr, calling, m.ToolCallID) {
				return &invalid{msg: fmt.Sprintf("Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.ToolCallID),
					param: fmt.Sprintf("messages.[%d].tool_call_id", i)}
			}
			if j := slices.Index(open, m.ToolCallID); j >= 0 {
				open = append(open[:j], open[j+1:]...)
			}
		case "function":
			if m.Name == "" {
				return &invalid{msg: fmt.Sprintf("Missing required parameter: 'messages[%d].name'.", i),
					param: fmt.Sprintf("messages[%d].name", i), code: "missing_required_parameter"}
			}
			calling = -1
		default:
			calling = -1
		}
		if m.Content == nil && m.Role != "function" {
			return &invalid{msg: fmt.Sprintf("Missing required parameter: 'messages[%d].content'.", i),
				param: fmt.Sprintf("messages[%d].content", i), code: "missing_required_parameter"}
		}
	}
	return nil
}

// isTrue reports whether a flag was given true.
func isTrue(b *bool) bool { return b != nil && *b }

// given reports whether a field was sent, and not as null.
func given(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// calledBy reports whether id is the id of one of the tool calls of
// message calling.
func calledBy(wr chatRequest, calling int, id string) bool {
	for _, tc := range wr.Messages[calling].ToolCalls {
		if tc.ID == id {
			return true
		}
	}
	return false
}

// maxStops is the most stop sequences a Chat Completions request may give.
const maxStops = 4

// maxCandidates is the most candidates a generateContent request may ask
// for (candidateCount), as Gemini's models allow.
const maxCandidates = 8

// validateGemini returns what generateContent refuses in gr, or nil: no
// contents; a role other than user or model (an empty role is a user's,
// and function, which older clients give the turn of function responses,
// is taken as one too, as the API takes it); a
// content without parts; a function call turn that does not come right
// after a user turn or a function response turn; a function response turn
// that does not come right after a function call turn, or that answers a
// different number of calls than that turn made; a candidateCount below 0
// or above 8, the most Gemini's models give; logprobs outside 0 to 20.
// Consecutive contents of one role are one turn, as the API takes them:
// the genai SDKs' chats keep each chunk of a streamed answer as a content
// of its own (a function call, then the empty text a stream ends with).
func validateGemini(gr geminiRequest) error {
	if len(gr.Contents) == 0 {
		return &invalid{msg: "* GenerateContentRequest.contents: contents is not specified\n"}
	}
	if n := gr.GenerationConfig.CandidateCount; n < 0 || n > maxCandidates {
		return &invalid{msg: fmt.Sprintf("* GenerateContentRequest.generation_config.candidate_count: must be between 1 and %d, got %d\n", maxCandidates, n)}
	}
	if n := gr.GenerationConfig.Logprobs; n != nil && (*n < 0 || *n > maxTopLogprobs) {
		return &invalid{msg: fmt.Sprintf("* GenerateContentRequest.generation_config.logprobs: must be between 0 and %d, got %d\n", maxTopLogprobs, *n)}
	}
	// A turn is a run of contents of one role, the model's or the user's
	// (function responses among them).
	type turn struct {
		model            bool
		calls, responses int
	}
	var turns []turn
	for i, c := range gr.Contents {
		if c.Role != "" && c.Role != "user" && c.Role != "model" && c.Role != "function" {
			return &invalid{msg: "Please use a valid role: user, model."}
		}
		if len(c.Parts) == 0 {
			return &invalid{msg: fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.\n", i)}
		}
		if model := c.Role == "model"; len(turns) == 0 || turns[len(turns)-1].model != model {
			turns = append(turns, turn{model: model})
		}
		t := &turns[len(turns)-1]
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				t.calls++
			}
			if p.FunctionResponse != nil {
				t.responses++
			}
		}
	}
	for i, t := range turns {
		if t.model && t.calls > 0 && i == 0 {
			return &invalid{msg: "Please ensure that function call turn comes immediately after a user turn or after a function response turn."}
		}
		if t.responses == 0 {
			continue
		}
		if i == 0 || turns[i-1].calls == 0 {
			return &invalid{msg: "Please ensure that function response turn comes immediately after a function call turn."}
		}
		if t.responses != turns[i-1].calls {
			return &invalid{msg: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."}
		}
	}
	return nil
}

// minThinkingBudget is the least budget_tokens extended thinking takes.
const minThinkingBudget = 1024

// validateAnthropic returns what Messages refuses in ar, or nil: no
// messages; thinking (enabled or adaptive) with no budget or one below
// 1,024 tokens, enabled for a model that does not think (anthropicThinks),
// a temperature other than 1, a tool_choice that forces tool
// use, or a last assistant message whose tool_use blocks the request
// answers that does not start with its thinking (thinkingFirst); a strict
// tool's schema or a structured-output schema outside structured outputs'
// subset (anthropicSchemas); an assistant message whose tool_use blocks
// are not each answered by a tool_result block in the message right after
// it.
func validateAnthropic(ar anthropicRequest) error {
	if len(ar.Messages) == 0 {
		return &invalid{msg: "messages: at least one message is required"}
	}
	if t := ar.Thinking; ar.thinks() {
		switch {
		case t.Type == "enabled" && t.BudgetTokens == nil:
			return &invalid{msg: "thinking.enabled.budget_tokens: Field required"}
		case t.Type == "enabled" && *t.BudgetTokens < minThinkingBudget:
			return &invalid{msg: fmt.Sprintf("thinking.enabled.budget_tokens: Input should be greater than or equal to %d", minThinkingBudget)}
		case t.Type == "enabled" && !anthropicThinks(ar.Model):
			return &invalid{msg: fmt.Sprintf("'%s' does not support thinking.", ar.Model)}
		case ar.Temperature != nil && *ar.Temperature != 1:
			return &invalid{msg: "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at https://platform.claude.com/docs/en/build-with-claude/extended-thinking"}
		case ar.TopK != nil:
			return &invalid{msg: "`top_k` must be unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking"}
		case ar.ToolChoice != nil && (ar.ToolChoice.Type == "any" || ar.ToolChoice.Type == "tool"):
			return &invalid{msg: "Thinking may not be enabled when tool_choice forces tool use."}
		}
		if err := thinkingFirst(ar); err != nil {
			return err
		}
	}
	if err := anthropicSchemas(ar); err != nil {
		return err
	}
	for i, m := range ar.Messages[:len(ar.Messages)-1] {
		if m.Role != "assistant" {
			continue
		}
		uses, _ := anthropicBlocks(m.Content)
		next, _ := anthropicBlocks(ar.Messages[i+1].Content)
		var missing []string
		for _, u := range uses {
			if u.Type != "tool_use" {
				continue
			}
			found := false
			for _, r := range next {
				found = found || r.Type == "tool_result" && r.ToolUseID == u.ID
			}
			if !found {
				missing = append(missing, u.ID)
			}
		}
		if len(missing) > 0 {
			return &invalid{msg: fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i+1, strings.Join(missing, ", "))}
		}
	}
	return nil
}

// thinkingFirst returns the API's refusal of a request with thinking
// enabled whose last message answers the tool_use blocks of the assistant
// message before it, when that message does not start with its thinking
// (or redacted thinking) block, as the model wrote it: an agent that drops
// the thinking it was given.
func thinkingFirst(ar anthropicRequest) error {
	last := len(ar.Messages) - 1
	if last < 1 || ar.Messages[last].Role != "user" || ar.Messages[last-1].Role != "assistant" {
		return nil
	}
	results, _ := anthropicBlocks(ar.Messages[last].Content)
	uses, _ := anthropicBlocks(ar.Messages[last-1].Content)
	for len(uses) > 1 && uses[0].Type == "compaction" {
		uses = uses[1:] // a compaction the answer started with comes before its thinking
	}
	answers := slices.ContainsFunc(results, func(b anthropicBlock) bool { return b.Type == "tool_result" })
	calls := slices.ContainsFunc(uses, func(b anthropicBlock) bool { return b.Type == "tool_use" })
	if !answers || !calls || uses[0].Type == "thinking" || uses[0].Type == "redacted_thinking" {
		return nil
	}
	return &invalid{msg: fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. "+
		"When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "+
		"We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. "+
		"Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", last-1, uses[0].Type)}
}

// mentionsJSON reports whether one of msgs says "json", in any case: JSON
// mode (json_object) needs it, OpenAI's APIs refuse a request whose
// messages never say it.
func mentionsJSON(msgs []llm.Message) bool {
	for _, m := range msgs {
		if strings.Contains(strings.ToLower(m.Content), "json") {
			return true
		}
	}
	return false
}
