package standin_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin"
)

// postBody sends body to the stand-in's path and returns the answer's
// status and raw body.
func postBody(srv *standin.Server, path, body string) (int, []byte) {
	GinkgoHelper()
	resp, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, raw
}

// calledNames are the names of the tools an answer in dialect path calls.
func calledNames(path string, raw []byte) []string {
	GinkgoHelper()
	var names []string
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		var r struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						Function struct{ Name string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		Expect(json.Unmarshal(raw, &r)).To(Succeed(), string(raw))
		for _, tc := range r.Choices[0].Message.ToolCalls {
			names = append(names, tc.Function.Name)
		}
	case strings.HasSuffix(path, "/responses"):
		var r struct {
			Output []struct{ Type, Name string } `json:"output"`
		}
		Expect(json.Unmarshal(raw, &r)).To(Succeed(), string(raw))
		for _, o := range r.Output {
			if o.Type == "function_call" {
				names = append(names, o.Name)
			}
		}
	case strings.HasSuffix(path, "/messages"):
		var r struct {
			Content []struct{ Type, Name string } `json:"content"`
		}
		Expect(json.Unmarshal(raw, &r)).To(Succeed(), string(raw))
		for _, b := range r.Content {
			if b.Type == "tool_use" {
				names = append(names, b.Name)
			}
		}
	default:
		var r struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						FunctionCall *struct{ Name string } `json:"functionCall"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		Expect(json.Unmarshal(raw, &r)).To(Succeed(), string(raw))
		for _, p := range r.Candidates[0].Content.Parts {
			if p.FunctionCall != nil {
				names = append(names, p.FunctionCall.Name)
			}
		}
	}
	return names
}

// choiceBody is a request in the dialect of path offering get_sst and
// get_date, whose user asks for what, with choice spliced in as the
// dialect's tool choice (a JSON object's members, or "").
func choiceBody(path, what, choice string) string {
	if choice != "" {
		choice = ", " + choice
	}
	params := `{"type": "object", "properties": {}}`
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return `{"model": "gpt-4.1-mini", "messages": [{"role": "system", "content": "` + echoPrompt + `"}, {"role": "user", "content": "` + what + `"}],
			"tools": [{"type": "function", "function": {"name": "get_sst", "parameters": ` + params + `}}, {"type": "function", "function": {"name": "get_date", "parameters": ` + params + `}}]` + choice + `}`
	case strings.HasSuffix(path, "/responses"):
		return `{"model": "gpt-4.1-mini", "instructions": "` + echoPrompt + `", "input": "` + what + `",
			"tools": [{"type": "function", "name": "get_sst", "parameters": ` + params + `}, {"type": "function", "name": "get_date", "parameters": ` + params + `}]` + choice + `}`
	case strings.HasSuffix(path, "/messages"):
		return `{"model": "claude-haiku-4-5", "max_tokens": 500, "system": "` + echoPrompt + `", "messages": [{"role": "user", "content": "` + what + `"}],
			"tools": [{"name": "get_sst", "input_schema": ` + params + `}, {"name": "get_date", "input_schema": ` + params + `}]` + choice + `}`
	}
	return `{"systemInstruction": {"parts": [{"text": "` + echoPrompt + `"}]}, "contents": [{"role": "user", "parts": [{"text": "` + what + `"}]}],
		"tools": [{"functionDeclarations": [{"name": "get_sst", "parameters": ` + params + `}, {"name": "get_date", "parameters": ` + params + `}]}]` + choice + `}`
}

var _ = Describe("the tools a request lets the answer call", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	const (
		chat      = "/v1/chat/completions"
		responses = "/v1/responses"
		messages  = "/v1/messages"
		gemini    = "/v1beta/models/gemini-2.5-flash:generateContent"
	)

	DescribeTable("are the ones the answer calls",
		func(path, choice string, want []string) {
			status, raw := postBody(srv, path, choiceBody(path, "call get_sst get_date", choice))
			Expect(status).To(Equal(http.StatusOK), string(raw))
			Expect(calledNames(path, raw)).To(Equal(want))
		},
		Entry("Chat Completions, any of them, all at once", chat, "", []string{"get_sst", "get_date"}),
		Entry("Chat Completions, tool_choice none", chat, `"tool_choice": "none"`, nil),
		Entry("Chat Completions, parallel_tool_calls false", chat, `"parallel_tool_calls": false`, []string{"get_sst"}),
		Entry("Chat Completions, a forced function", chat, `"tool_choice": {"type": "function", "function": {"name": "get_date"}}`, []string{"get_date"}),
		Entry("Chat Completions, allowed_tools", chat,
			`"tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "get_sst"}}]}}`, []string{"get_sst"}),
		Entry("Responses, any of them", responses, "", []string{"get_sst", "get_date"}),
		Entry("Responses, tool_choice none", responses, `"tool_choice": "none"`, nil),
		Entry("Responses, parallel_tool_calls false", responses, `"parallel_tool_calls": false`, []string{"get_sst"}),
		Entry("Responses, a forced function", responses, `"tool_choice": {"type": "function", "name": "get_date"}`, []string{"get_date"}),
		Entry("Responses, allowed_tools", responses,
			`"tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "get_date"}]}`, []string{"get_date"}),
		Entry("Messages, any of them", messages, "", []string{"get_sst", "get_date"}),
		Entry("Messages, tool_choice none", messages, `"tool_choice": {"type": "none"}`, nil),
		Entry("Messages, disable_parallel_tool_use", messages, `"tool_choice": {"type": "auto", "disable_parallel_tool_use": true}`, []string{"get_sst"}),
		Entry("Messages, a forced tool", messages, `"tool_choice": {"type": "tool", "name": "get_date"}`, []string{"get_date"}),
		Entry("generateContent, any of them", gemini, "", []string{"get_sst", "get_date"}),
		Entry("generateContent, mode NONE", gemini, `"toolConfig": {"functionCallingConfig": {"mode": "NONE"}}`, nil),
		Entry("generateContent, mode ANY with allowedFunctionNames", gemini,
			`"toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_date"]}}`, []string{"get_date"}),
		Entry("generateContent, snake_case tool_config", gemini,
			`"tool_config": {"function_calling_config": {"mode": "NONE"}}`, nil),
	)

	It("get a call of a tool not called yet when the request requires one after the tool's result came back, not the same call again", func() {
		body := strings.Replace(choiceBody(chat, "what do you see", `"tool_choice": "required"`), `{"role": "user", "content": "what do you see"}]`,
			`{"role": "user", "content": "what do you see"},
				{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_sst", "arguments": "{}"}}]},
				{"role": "tool", "tool_call_id": "call_1", "content": "26.4 C"}]`, 1)
		status, raw := postBody(srv, chat, body)
		Expect(status).To(Equal(http.StatusOK), string(raw))
		Expect(calledNames(chat, raw)).To(Equal([]string{"get_date"}))
	})

	// An agent that requires a call every round (BeeAI's RequirementAgent, whose
	// answer is a final_answer tool) sends a second turn whose first turn called
	// every tool: a call of an earlier turn is no result the policy had for this
	// one, so it does not keep the required call on the tool just answered.
	DescribeTable("get a call of a tool not called since the last user message when the request requires one, whatever earlier turns called",
		func(path, body string) {
			status, raw := postBody(srv, path, body)
			Expect(status).To(Equal(http.StatusOK), string(raw))
			Expect(calledNames(path, raw)).To(Equal([]string{"get_date"}))
		},
		Entry("Chat Completions", chat, strings.Replace(choiceBody(chat, "what do you see", `"tool_choice": "required"`),
			`{"role": "user", "content": "what do you see"}]`,
			`{"role": "user", "content": "first look"},
				{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_sst", "arguments": "{}"}}, {"id": "call_2", "type": "function", "function": {"name": "get_date", "arguments": "{}"}}]},
				{"role": "tool", "tool_call_id": "call_1", "content": "25.9 C"},
				{"role": "tool", "tool_call_id": "call_2", "content": "2026-03-01"},
				{"role": "assistant", "content": "25.9 C on 2026-03-01"},
				{"role": "user", "content": "what do you see"},
				{"role": "assistant", "content": null, "tool_calls": [{"id": "call_3", "type": "function", "function": {"name": "get_sst", "arguments": "{}"}}]},
				{"role": "tool", "tool_call_id": "call_3", "content": "26.4 C"}]`, 1)),
		Entry("Messages", messages, strings.Replace(choiceBody(messages, "what do you see", `"tool_choice": {"type": "any"}`),
			`{"role": "user", "content": "what do you see"}]`,
			`{"role": "user", "content": "first look"},
				{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_sst", "input": {}}, {"type": "tool_use", "id": "toolu_2", "name": "get_date", "input": {}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "25.9 C"}, {"type": "tool_result", "tool_use_id": "toolu_2", "content": "2026-03-01"}]},
				{"role": "assistant", "content": "25.9 C on 2026-03-01"},
				{"role": "user", "content": "what do you see"},
				{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_3", "name": "get_sst", "input": {}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_3", "content": "26.4 C"}]}]`, 1)),
	)

	DescribeTable("get a call when the request requires one and the policy answered in prose, as the real APIs guarantee",
		func(path, choice string, want []string) {
			status, raw := postBody(srv, path, choiceBody(path, "what do you see", choice))
			Expect(status).To(Equal(http.StatusOK), string(raw))
			Expect(calledNames(path, raw)).To(Equal(want))
		},
		Entry("Chat Completions, auto: prose", chat, `"tool_choice": "auto"`, nil),
		Entry("Chat Completions, required: the first tool", chat, `"tool_choice": "required"`, []string{"get_sst"}),
		Entry("Chat Completions, a forced function", chat, `"tool_choice": {"type": "function", "function": {"name": "get_date"}}`, []string{"get_date"}),
		Entry("Chat Completions, allowed_tools, required", chat,
			`"tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": {"name": "get_date"}}]}}`, []string{"get_date"}),
		Entry("Responses, required", responses, `"tool_choice": "required"`, []string{"get_sst"}),
		Entry("Responses, a forced function", responses, `"tool_choice": {"type": "function", "name": "get_date"}`, []string{"get_date"}),
		Entry("Messages, any", messages, `"tool_choice": {"type": "any"}`, []string{"get_sst"}),
		Entry("Messages, a forced tool", messages, `"tool_choice": {"type": "tool", "name": "get_date"}`, []string{"get_date"}),
		Entry("generateContent, mode ANY", gemini, `"toolConfig": {"functionCallingConfig": {"mode": "ANY"}}`, []string{"get_sst"}),
		Entry("generateContent, mode ANY with allowedFunctionNames", gemini,
			`"toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_date"]}}`, []string{"get_date"}),
		Entry("generateContent, mode VALIDATED: prose", gemini, `"toolConfig": {"functionCallingConfig": {"mode": "VALIDATED"}}`, nil),
	)

	It("are not called when the policy calls only others: the generic policy answers what the request offers instead of nothing", func() {
		resp, err := http.Post(srv.URL()+chat, "application/json", strings.NewReader(choiceBody(chat, "call get_sst", `"tool_choice": "none"`)))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(raw))
		answer := chatAnswer(raw)
		Expect(answer.Message.ToolCalls).To(BeEmpty())
		Expect(answer.Message.Content).NotTo(BeEmpty())
		Expect(resp.Header.Get("X-Testbed-Policy")).To(Equal("generic"))
		Expect(resp.Header.Get("X-Testbed-Rule")).To(HavePrefix("generic:"))
	})

	DescribeTable("are the only ones the policy is shown, though all count as input",
		func(choice string, want []string) {
			promptTokens := func(raw []byte) int {
				var answer struct {
					Usage struct {
						Prompt int `json:"prompt_tokens"`
					} `json:"usage"`
				}
				Expect(json.Unmarshal(raw, &answer)).To(Succeed())
				return answer.Usage.Prompt
			}
			status, raw := postBody(srv, chat, choiceBody(chat, "what do you see", choice))
			Expect(status).To(Equal(http.StatusOK), string(raw))
			var names []string
			for _, t := range seen(chatAnswer(raw)).Tools {
				names = append(names, t.Name)
			}
			Expect(names).To(Equal(want))
			_, all := postBody(srv, chat, choiceBody(chat, "what do you see", ""))
			Expect(promptTokens(raw)).To(Equal(promptTokens(all)))
		},
		Entry("none", `"tool_choice": "none"`, nil),
		Entry("allowed_tools", `"tool_choice": {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "get_date"}}]}}`, []string{"get_date"}),
		Entry("auto", `"tool_choice": "auto"`, []string{"get_sst", "get_date"}),
	)
})

// chatAnswer is the message of a chat.completion body, its content and
// calls (a legacy function_call among them), as an llm.Response.
func chatAnswer(raw []byte) llm.Response {
	GinkgoHelper()
	var r struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
				FunctionCall *struct{ Name, Arguments string } `json:"function_call"`
			} `json:"message"`
		} `json:"choices"`
	}
	Expect(json.Unmarshal(raw, &r)).To(Succeed(), string(raw))
	c := r.Choices[0]
	out := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: c.Message.Content}, RawFinishReason: c.FinishReason}
	for _, tc := range c.Message.ToolCalls {
		out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments)})
	}
	if fc := c.Message.FunctionCall; fc != nil {
		out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{Name: fc.Name, Arguments: json.RawMessage(fc.Arguments)})
	}
	return out
}

var _ = Describe("the legacy Chat Completions functions API", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	const functions = `"functions": [{"name": "get_sst", "description": "Sea surface temperature at a point.", "parameters": {"type": "object", "properties": {"lon": {"type": "number"}, "lat": {"type": "number"}}}},
		{"name": "get_date", "parameters": {"type": "object", "properties": {}}}]`
	system := `{"role": "system", "content": "` + echoPrompt + `"}`

	It("answers one function_call, with finish_reason function_call and no tool_calls", func() {
		status, raw := postBody(srv, "/v1/chat/completions", `{"model": "gpt-3.5-turbo", "messages": [`+system+`, {"role": "user", "content": "call get_sst get_date"}], `+functions+`}`)
		Expect(status).To(Equal(http.StatusOK), string(raw))
		var r struct {
			Choices []struct {
				FinishReason string `json:"finish_reason"`
				Message      struct {
					Content      *string         `json:"content"`
					ToolCalls    json.RawMessage `json:"tool_calls"`
					FunctionCall struct {
						Name, Arguments string
					} `json:"function_call"`
				} `json:"message"`
			} `json:"choices"`
		}
		Expect(json.Unmarshal(raw, &r)).To(Succeed())
		c := r.Choices[0]
		Expect(c.FinishReason).To(Equal("function_call"))
		Expect(c.Message.Content).To(BeNil())
		Expect(c.Message.ToolCalls).To(BeNil())
		Expect(c.Message.FunctionCall.Name).To(Equal("get_sst"))
		Expect(c.Message.FunctionCall.Arguments).To(MatchJSON(`{"lon": 121.5, "lat": 25, "n": 1}`))
	})

	It("streams the call as function_call deltas, which the adapter puts together", func() {
		status, raw := postBody(srv, "/v1/chat/completions", `{"model": "gpt-3.5-turbo", "stream": true, "messages": [`+system+`, {"role": "user", "content": "call get_date"}], `+functions+`}`)
		Expect(status).To(Equal(http.StatusOK), string(raw))
		Expect(string(raw)).To(ContainSubstring(`"function_call":{"arguments":"","name":"get_date"}`))
		Expect(string(raw)).To(ContainSubstring(`"finish_reason":"function_call"`))
		Expect(string(raw)).NotTo(ContainSubstring(`"tool_calls"`))
		out, err := openai.StreamResponse(raw)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Message.ToolCalls).To(HaveLen(1))
		Expect(out.Message.ToolCalls[0].Name).To(Equal("get_date"))
		Expect(out.Message.ToolCalls[0].Arguments).To(MatchJSON(`{"lon": 121.5, "lat": 25, "n": 1}`))
	})

	It("reads the call and the function message answering it as a tool call and its result", func() {
		status, raw := postBody(srv, "/v1/chat/completions", `{"model": "gpt-3.5-turbo", "messages": [`+system+`,
			{"role": "user", "content": "sea temperature off Taiwan?"},
			{"role": "assistant", "content": null, "function_call": {"name": "get_sst", "arguments": "{\"lon\":121,\"lat\":23}"}},
			{"role": "function", "name": "get_sst", "content": "26.4"},
			{"role": "user", "content": "and the date?"}], `+functions+`}`)
		Expect(status).To(Equal(http.StatusOK), string(raw))
		r := seen(chatAnswer(raw))
		Expect(r.Messages[2].ToolCalls).To(Equal([]llm.ToolCall{{ID: "call_1", Name: "get_sst", Arguments: json.RawMessage(`{"lon":121,"lat":23}`)}}))
		Expect(r.Messages[3]).To(Equal(llm.Message{Role: llm.RoleTool, Name: "get_sst", ToolCallID: "call_1", Content: "26.4"}))
		Expect(r.Tools).To(HaveLen(2))
	})

	It("calls the function function_call names, though the policy answered in prose", func() {
		status, raw := postBody(srv, "/v1/chat/completions", `{"model": "gpt-3.5-turbo", "messages": [`+system+`, {"role": "user", "content": "what do you see"}], `+functions+`, "function_call": {"name": "get_date"}}`)
		Expect(status).To(Equal(http.StatusOK), string(raw))
		Expect(chatAnswer(raw).Message.ToolCalls).To(HaveLen(1))
		Expect(chatAnswer(raw).Message.ToolCalls[0].Name).To(Equal("get_date"))
		Expect(chatAnswer(raw).RawFinishReason).To(Equal("function_call"))
	})

	It("refuses a function message without the function's name, as the API does", func() {
		status, body := post(srv, "/v1/chat/completions", `{"model": "gpt-3.5-turbo", "messages": [`+system+`,
			{"role": "assistant", "content": null, "function_call": {"name": "get_sst", "arguments": "{}"}},
			{"role": "function", "content": "26.4"}], `+functions+`}`)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(body["error"]).To(HaveKeyWithValue("message", "Missing required parameter: 'messages[2].name'."))
	})
})

var _ = Describe("Azure OpenAI's paths", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	DescribeTable("are answered as OpenAI's, the deployment the model when the body names none",
		func(path, body, want string) {
			status, raw := postBody(srv, path, body)
			Expect(status).To(Equal(http.StatusOK), string(raw))
			Expect(string(raw)).To(ContainSubstring(want))
		},
		Entry("a deployment's chat completions", "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21",
			`{"messages": [{"role": "system", "content": "`+echoPrompt+`"}, {"role": "user", "content": "hi"}]}`, `"model":"gpt-4o-mini"`),
		Entry("the Responses API", "/openai/responses?api-version=2025-03-01-preview",
			`{"model": "gpt-4o-mini", "instructions": "`+echoPrompt+`", "input": "hi"}`, `"object":"response"`),
	)
})
