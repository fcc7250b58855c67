package standin_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

// post sends body to the stand-in's path and returns the status and the
// decoded body.
func post(srv *standin.Server, path, body string) (int, map[string]any) {
	GinkgoHelper()
	status, raw := postBody(srv, path, body)
	var out map[string]any
	Expect(json.Unmarshal(raw, &out)).To(Succeed(), string(raw))
	return status, out
}

const (
	chatPath   = "/v1/chat/completions"
	geminiPath = "/v1beta/models/gemini-2.5-flash:generateContent"
	user       = `{"role": "user", "content": "What is the sea surface temperature near Taiwan?"}`
	call       = `{"role": "assistant", "content": null, "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "get_sst", "arguments": "{}"}}]}`
	toolAnswer = `{"role": "tool", "tool_call_id": "call_a", "content": "26.4"}`
	gUser      = `{"role": "user", "parts": [{"text": "What is the sea surface temperature near Taiwan?"}]}`
	gCall      = `{"role": "model", "parts": [{"functionCall": {"name": "get_sst", "args": {}}}]}`
	gAnswer    = `{"role": "user", "parts": [{"functionResponse": {"name": "get_sst", "response": {"result": 26.4}}}]}`
)

var _ = Describe("the stand-in refuses what the real APIs refuse", func() {
	var srv *standin.Server
	BeforeEach(func() { srv = startStandin(standin.Options{}) })

	DescribeTable("Chat Completions: 400 invalid_request_error with OpenAI's message, param and code, streamed or not",
		func(body, message string, param, code any) {
			for _, stream := range []string{`"stream": false`, `"stream": true`} {
				b := strings.Replace(body, `"model"`, stream+`, "model"`, 1)
				status, got := post(srv, chatPath, b)
				Expect(status).To(Equal(http.StatusBadRequest), "%s: %v", stream, got)
				Expect(got).To(Equal(map[string]any{"error": map[string]any{
					"message": message, "type": "invalid_request_error", "param": param, "code": code}}), stream)
			}
		},
		Entry("an invalid role", `{"model": "gpt-4.1-mini", "messages": [{"role": "bot", "content": "hi"}]}`,
			"Invalid value: 'bot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", "messages[0].role", "invalid_value"),
		Entry("no model", `{"model": "", "messages": [`+user+`]}`, "you must provide a model parameter", nil, nil),
		Entry("no choice asked for", `{"model": "gpt-4.1-mini", "n": 0, "messages": [`+user+`]}`,
			"Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead.", "n", "integer_below_min_value"),
		Entry("more alternatives a token than the API gives", `{"model": "gpt-4.1-mini", "logprobs": true, "top_logprobs": 21, "messages": [`+user+`]}`,
			"Invalid 'top_logprobs': expected a value from 0 to 20, but got 21 instead.", "top_logprobs", nil),
		Entry("more choices than the API gives", `{"model": "gpt-4.1-mini", "n": 129, "messages": [`+user+`]}`,
			"Invalid 'n': integer above maximum value. Expected a value <= 128, but got 129 instead.", "n", "integer_above_max_value"),
		Entry("no messages", `{"model": "gpt-4.1-mini", "messages": []}`, "[] is too short - 'messages'", "messages", nil),
		Entry("JSON mode, the word json in no message", `{"model": "gpt-4.1-mini", "response_format": {"type": "json_object"}, "messages": [`+user+`]}`,
			"'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "messages", nil),
		Entry("a user message without content", `{"model": "gpt-4.1-mini", "messages": [{"role": "user"}]}`,
			"Missing required parameter: 'messages[0].content'.", "messages[0].content", "missing_required_parameter"),
		Entry("an assistant message with neither content nor tool calls", `{"model": "gpt-4.1-mini", "messages": [`+user+`, {"role": "assistant", "content": null}, `+user+`]}`,
			"Invalid value for 'content': expected a string, got null.", "messages.[1].content", nil),
		Entry("a tool message without tool_call_id", `{"model": "gpt-4.1-mini", "messages": [`+user+`, `+call+`, {"role": "tool", "content": "26.4"}]}`,
			"Missing required parameter: 'messages[2].tool_call_id'.", "messages[2].tool_call_id", "missing_required_parameter"),
		Entry("a tool message after no tool call", `{"model": "gpt-4.1-mini", "messages": [`+user+`, `+toolAnswer+`]}`,
			"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "messages.[1].role", nil),
		Entry("a tool message answering another call", `{"model": "gpt-4.1-mini", "messages": [`+user+`, `+call+`, {"role": "tool", "tool_call_id": "call_b", "content": "1"}]}`,
			"Invalid parameter: 'tool_call_id' of 'call_b' not found in 'tool_calls' of previous message.", "messages.[2].tool_call_id", nil),
		Entry("a tool call left unanswered", `{"model": "gpt-4.1-mini", "messages": [`+user+`, `+call+`, `+user+`]}`,
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_a",
			"messages.[1].role", nil),
		Entry("a tool_choice with no tools, as an agent sends its default tool settings", `{"model": "gpt-4.1-mini", "messages": [`+user+`], "tool_choice": "auto"}`,
			"Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", "tool_choice", nil),
		Entry("parallel_tool_calls with no tools", `{"model": "gpt-4.1-mini", "messages": [`+user+`], "tools": [], "parallel_tool_calls": false}`,
			"Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", "parallel_tool_calls", nil),
		Entry("max_tokens to a reasoning model", `{"model": "o4-mini", "max_tokens": 300, "messages": [`+user+`]}`,
			"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter"),
		Entry("max_tokens to GPT-5", `{"model": "gpt-5.2", "max_tokens": 300, "messages": [`+user+`]}`,
			"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter"),
		Entry("temperature 0 to GPT-5's first models", `{"model": "gpt-5-mini-2025-08-07", "temperature": 0, "messages": [`+user+`]}`,
			"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "temperature", "unsupported_value"),
		Entry("a temperature to a later GPT-5 told to reason", `{"model": "gpt-5.1", "reasoning_effort": "low", "temperature": 0.2, "messages": [`+user+`]}`,
			"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", "temperature", "unsupported_value"),
		Entry("a tool name outside the pattern", `{"model": "gpt-4.1-mini", "messages": [`+user+`], "tools": [{"type": "function", "function": {"name": "get sst", "parameters": {"type": "object"}}}]}`,
			"Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", "tools[0].function.name", "invalid_value"),
	)

	DescribeTable("Chat Completions: takes what a model takes",
		func(body string) {
			status, got := post(srv, chatPath, body)
			Expect(status).To(Equal(http.StatusOK), "%v", got)
		},
		Entry("max_completion_tokens and the default temperature from a reasoning model", `{"model": "o3", "max_completion_tokens": 300, "temperature": 1, "messages": [`+user+`]}`),
		Entry("a temperature to a later GPT-5 that does not reason (its default effort)", `{"model": "gpt-5.2", "temperature": 0.2, "messages": [`+user+`]}`),
		Entry("a temperature to a later GPT-5 told not to reason", `{"model": "gpt-5.1", "reasoning_effort": "none", "temperature": 0, "messages": [`+user+`]}`),
		Entry("max_tokens and temperature 0 to a model before them", `{"model": "gpt-4.1-mini", "max_tokens": 300, "temperature": 0, "messages": [`+user+`]}`),
		Entry("tool_choice null with no tools, as not given", `{"model": "gpt-4.1-mini", "tool_choice": null, "messages": [`+user+`]}`),
	)

	It("Chat Completions: refuses stream_options without stream", func() {
		status, got := post(srv, chatPath, `{"model": "gpt-4.1-mini", "messages": [`+user+`], "stream_options": {"include_usage": true}}`)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(got).To(HaveKeyWithValue("error", HaveKeyWithValue("param", "stream_options")))
	})

	It("Chat Completions: the official SDK gets a 400 *openai.Error for an invalid role in a stream", func() {
		c := sdk.NewClient(option.WithBaseURL(srv.URL()+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
		stream := c.Chat.Completions.NewStreaming(context.Background(), sdk.ChatCompletionNewParams{
			Model:    "gpt-4.1-mini",
			Messages: []sdk.ChatCompletionMessageParamUnion{{OfUser: &sdk.ChatCompletionUserMessageParam{Role: "bot", Content: sdk.ChatCompletionUserMessageParamContentUnion{OfString: sdk.String("hi")}}}},
		})
		for stream.Next() {
		}
		var apiErr *sdk.Error
		Expect(errors.As(stream.Err(), &apiErr)).To(BeTrue(), "%v", stream.Err())
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Param).To(Equal("messages[0].role"))
	})

	DescribeTable("generateContent: 400 INVALID_ARGUMENT with Gemini's message, streamed or not",
		func(body, message string) {
			for _, path := range []string{geminiPath, strings.Replace(geminiPath, ":generateContent", ":streamGenerateContent?alt=sse", 1)} {
				status, got := post(srv, path, body)
				Expect(status).To(Equal(http.StatusBadRequest), "%s: %v", path, got)
				Expect(got).To(Equal(map[string]any{"error": map[string]any{"code": 400.0, "message": message, "status": "INVALID_ARGUMENT"}}), path)
			}
		},
		Entry("an invalid role", `{"contents": [{"role": "assistant", "parts": [{"text": "hi"}]}]}`, "Please use a valid role: user, model."),
		Entry("OpenAI's tool role", `{"contents": [`+gUser+`, `+gCall+`, {"role": "tool", "parts": [{"text": "26.4"}]}]}`, "Please use a valid role: user, model."),
		Entry("no contents", `{"contents": []}`, "* GenerateContentRequest.contents: contents is not specified\n"),
		Entry("more candidates than a model gives", `{"contents": [`+gUser+`], "generationConfig": {"candidateCount": 9}}`,
			"* GenerateContentRequest.generation_config.candidate_count: must be between 1 and 8, got 9\n"),
		Entry("a content without parts", `{"contents": [{"role": "user", "parts": []}]}`, "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n"),
		Entry("a function call first", `{"contents": [`+gCall+`, `+gAnswer+`]}`,
			"Please ensure that function call turn comes immediately after a user turn or after a function response turn."),
		Entry("a function response after a model turn that made no call", `{"contents": [`+gUser+`, {"role": "model", "parts": [{"text": "Let me see."}]}, `+gAnswer+`]}`,
			"Please ensure that function response turn comes immediately after a function call turn."),
		Entry("fewer responses than the calls of a turn given as two contents", `{"contents": [`+gUser+`, `+gCall+`, `+gCall+`, `+gAnswer+`]}`,
			"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."),
		Entry("a function response after no call", `{"contents": [`+gUser+`, `+gAnswer+`]}`,
			"Please ensure that function response turn comes immediately after a function call turn."),
		Entry("fewer responses than calls", `{"contents": [`+gUser+`, {"role": "model", "parts": [{"functionCall": {"name": "get_sst", "args": {}}}, {"functionCall": {"name": "get_date", "args": {}}}]}, `+gAnswer+`]}`,
			"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."),
	)

	DescribeTable("generateContent: thinking settings a model does not take, refused as the Gemini API refuses them",
		func(model, config, message string) {
			path := strings.Replace(geminiPath, "gemini-2.5-flash", model, 1)
			for _, p := range []string{path, strings.Replace(path, ":generateContent", ":streamGenerateContent?alt=sse", 1)} {
				status, got := post(srv, p, `{"contents": [`+gUser+`], "generationConfig": `+config+`}`)
				if message == "" {
					Expect(status).To(Equal(http.StatusOK), "%s: %v", p, got)
					break // a stream's body is not one JSON object
				}
				Expect(status).To(Equal(http.StatusBadRequest), "%s: %v", p, got)
				Expect(got).To(Equal(map[string]any{"error": map[string]any{"code": 400.0, "message": message, "status": "INVALID_ARGUMENT"}}), p)
			}
		},
		Entry("a thinking budget to Gemini 2.0 Flash", "gemini-2.0-flash", `{"thinkingConfig": {"thinkingBudget": 0}}`, "thinking_config is not supported."),
		Entry("thoughts asked of Gemini 1.5, in snake case", "gemini-1.5-flash-002", `{"thinking_config": {"include_thoughts": true}}`, "thinking_config is not supported."),
		Entry("a thinking level to Gemini 2.5, which takes budgets", "gemini-2.5-flash", `{"thinkingConfig": {"thinkingLevel": "low"}}`, "Thinking level is not supported for this model."),
		Entry("a thinking budget to Gemini 2.5 Flash", "gemini-2.5-flash", `{"thinkingConfig": {"thinkingBudget": 0}}`, ""),
		Entry("a thinking level to Gemini 3", "gemini-3-flash-preview", `{"thinkingConfig": {"thinkingLevel": "low"}}`, ""),
		Entry("thoughts asked of Gemini 2.0 Flash Thinking", "gemini-2.0-flash-thinking-exp-01-21", `{"thinkingConfig": {"includeThoughts": true}}`, ""),
		Entry("no thinking settings to Gemini 2.0 Flash", "gemini-2.0-flash", `{"temperature": 0}`, ""),
		Entry("a model it does not know", "gemma-3-27b-it", `{"thinkingConfig": {"thinkingLevel": "low"}}`, ""),
	)

	DescribeTable("generateContent: takes consecutive contents of one role as one turn, as the API does",
		func(contents string) {
			status, got := post(srv, geminiPath, `{"contents": [`+contents+`]}`)
			Expect(status).To(Equal(http.StatusOK), "%v", got)
		},
		Entry("a streamed call kept as the genai SDKs' chats keep it: the call, then the empty text the stream ended with",
			gUser+`, `+gCall+`, {"role": "model", "parts": [{"text": ""}]}, `+gAnswer),
		Entry("a call after the model's own text", gUser+`, {"role": "model", "parts": [{"text": "Let me see."}]}, `+gCall+`, `+gAnswer),
		Entry("two calls' responses in contents of their own", gUser+`, {"role": "model", "parts": [{"functionCall": {"name": "get_sst", "args": {}}}, {"functionCall": {"name": "get_date", "args": {}}}]}, `+gAnswer+`, `+
			`{"role": "user", "parts": [{"functionResponse": {"name": "get_date", "response": {"result": "2026-11-27"}}}]}`),
	)

	It("generateContent: takes the function role older clients give a turn of function responses, as the API does", func() {
		status, got := post(srv, geminiPath, `{"contents": [`+gUser+`, `+gCall+`, `+strings.Replace(gAnswer, `"role": "user"`, `"role": "function"`, 1)+`]}`)
		Expect(status).To(Equal(http.StatusOK), "%v", got)
	})

	It("generateContent: the official SDK gets a 400 APIError for an invalid role", func() {
		c, err := officialGemini(srv)
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", []*genai.Content{{Role: "assistant", Parts: []*genai.Part{{Text: "hi"}}}}, nil)
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.Code).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(Equal("Please use a valid role: user, model."))
	})

	DescribeTable("Messages: 400 invalid_request_error with Anthropic's message",
		func(body, message string) {
			status, got := post(srv, "/v1/messages", body)
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(HaveKeyWithValue("type", "error"))
			Expect(got).To(HaveKeyWithValue("error", Equal(map[string]any{"type": "invalid_request_error", "message": message})))
		},
		Entry("an invalid role", `{"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "developer", "content": "hi"}]}`,
			`messages.0: role "developer": want user, assistant or system`),
		Entry("a block a system message does not hold", `{"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"},
			{"role": "system", "content": [{"type": "image", "source": {"type": "url", "url": "https://example.test/a.png"}}]}]}`,
			`messages.1: the stand-in reads text blocks from a system message, not "image"`),
		Entry("no messages", `{"model": "claude-haiku-4-5", "max_tokens": 100, "messages": []}`, "messages: at least one message is required"),
		Entry("a thinking budget below the least", `{"model": "claude-sonnet-4-5", "max_tokens": 2000, "thinking": {"type": "enabled", "budget_tokens": 500}, "messages": [{"role": "user", "content": "hi"}]}`,
			"thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
		Entry("a top_k with thinking", `{"model": "claude-opus-4-1", "max_tokens": 2000, "top_k": 40, "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [{"role": "user", "content": "hi"}]}`,
			"`top_k` must be unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking"),
		Entry("a temperature with thinking", `{"model": "claude-sonnet-4-6", "max_tokens": 2000, "temperature": 0.2, "thinking": {"type": "adaptive"}, "messages": [{"role": "user", "content": "hi"}]}`,
			"`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at https://platform.claude.com/docs/en/build-with-claude/extended-thinking"),
		Entry("thinking with a tool_choice that forces a tool", `{"model": "claude-sonnet-4-5", "max_tokens": 4000, "thinking": {"type": "enabled", "budget_tokens": 1024},
			"tool_choice": {"type": "any"}, "tools": [{"name": "get_sst", "input_schema": {"type": "object"}}], "messages": [{"role": "user", "content": "hi"}]}`,
			"Thinking may not be enabled when tool_choice forces tool use."),
		Entry("a tool_use left without its tool_result", `{"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [
			{"role": "user", "content": "SST near Taiwan?"},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "get_sst", "input": {}}]},
			{"role": "user", "content": "well?"}]}`,
			"messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the next message."),
	)

	It("Messages: takes thinking with temperature 1, an automatic tool_choice, and a budget of 1,024 or more", func() {
		status, got := post(srv, "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 4000, "temperature": 1, "thinking": {"type": "enabled", "budget_tokens": 1024},
			"tool_choice": {"type": "auto"}, "system": "`+echoPrompt+`", "messages": [{"role": "user", "content": "hi"}]}`)
		Expect(status).To(Equal(http.StatusOK), "%v", got)
	})

	It("Messages: a refusal carries a request-id header, which its body repeats, as the API's do", func() {
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model": "claude-haiku-4-5", "messages": [`+user+`]}`))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var got map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&got)).To(Succeed())
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(resp.Header.Get("Request-Id")).To(HavePrefix("req_011"))
		Expect(got).To(HaveKeyWithValue("request_id", resp.Header.Get("Request-Id")))
	})
})
