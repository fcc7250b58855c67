package standin_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin"
)

// A reasoning setting sent to a model that does not reason is refused as
// the providers refuse it (reasoning_params.go quotes their words and
// where they were seen): an agent configured for a reasoning model and
// pointed at an older one, or given a default it sends to every model.
var _ = Describe("a reasoning setting for a model that does not reason", func() {
	var srv *standin.Server
	BeforeEach(func() { srv = startStandin(standin.Options{}) })

	DescribeTable("Chat Completions: refused with 400 and OpenAI's words, param and code null",
		func(model, effort string) {
			status, got := post(srv, chatPath, `{"model": "`+model+`", "reasoning_effort": "`+effort+`", "messages": [`+user+`]}`)
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(Equal(map[string]any{"error": map[string]any{
				"message": "Unrecognized request argument supplied: reasoning_effort", "type": "invalid_request_error", "param": nil, "code": nil}}))
		},
		Entry("gpt-4o-mini told to reason little", "gpt-4o-mini", "low"),
		Entry("gpt-4o told not to reason, which it cannot anyway", "gpt-4o", "none"),
		Entry("a dated gpt-4o snapshot", "gpt-4o-2024-08-06", "low"),
	)

	It("Responses API: refuses a reasoning effort with 400 and OpenAI's words, param and code", func() {
		resp, b := wirePost(srv, http.MethodPost, "/v1/responses", `{"model": "gpt-4.1", "input": "hi", "reasoning": {"effort": "low"}}`)
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
		e := openAIErrorOf(b)
		Expect(e.Type).To(Equal("invalid_request_error"))
		Expect(e.Message).To(Equal("Unsupported parameter: 'reasoning.effort' is not supported with this model."))
		Expect(e.Param).To(Equal("reasoning.effort"))
		Expect(e.Code).To(Equal("unsupported_parameter"))
	})

	DescribeTable("Messages: refuses thinking with 400 and Anthropic's words, naming the model",
		func(model string) {
			status, got := post(srv, "/v1/messages", `{"model": "`+model+`", "max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 1024},
				"messages": [{"role": "user", "content": "weather in Taipei"}]}`)
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(HaveKeyWithValue("error", map[string]any{"type": "invalid_request_error", "message": "'" + model + "' does not support thinking."}))
		},
		Entry("Claude 3.5 Haiku", "claude-3-5-haiku-20241022"),
		Entry("Claude 3.5 Sonnet", "claude-3-5-sonnet-20241022"),
	)

	DescribeTable("is taken from a model that reasons, with no setting at all, or behind a router's prefix",
		func(path, body string) {
			status, got := post(srv, path, body)
			Expect(status).To(Equal(http.StatusOK), "%v", got)
		},
		Entry("Chat: gpt-4o-mini with reasoning_effort null", chatPath, `{"model": "gpt-4o-mini", "reasoning_effort": null, "messages": [`+user+`]}`),
		Entry("Chat: o4-mini told to reason little", chatPath, `{"model": "o4-mini", "reasoning_effort": "low", "messages": [`+user+`]}`),
		Entry("Responses: gpt-4.1 with effort null", "/v1/responses", `{"model": "gpt-4.1", "input": "hi", "reasoning": {"effort": null, "summary": null}}`),
		Entry("Responses: gpt-5 told to reason little", "/v1/responses", `{"model": "gpt-5", "input": "hi", "reasoning": {"effort": "low"}}`),
		Entry("Messages: Claude 3.7 Sonnet thinking", "/v1/messages", `{"model": "claude-3-7-sonnet-20250219", "max_tokens": 2048,
			"thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [{"role": "user", "content": "weather in Taipei"}]}`),
		Entry("Messages: Claude Haiku 4.5 thinking", "/v1/messages", `{"model": "claude-haiku-4-5", "max_tokens": 2048,
			"thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [{"role": "user", "content": "weather in Taipei"}]}`),
		// A model named with a router's prefix (OpenRouter's openai/gpt-4o)
		// is not OpenAI's API: OpenRouter ignores a parameter its model
		// does not take ("Non-standard parameters", its API reference),
		// so nothing is refused by the model's name.
		Entry("Chat: gpt-4.1-mini behind a router's prefix told to reason", chatPath, `{"model": "openai/gpt-4.1-mini", "reasoning_effort": "medium", "messages": [`+user+`]}`),
		Entry("Chat: o4-mini behind a router's prefix with max_tokens", chatPath, `{"model": "openai/o4-mini", "max_tokens": 300, "messages": [`+user+`]}`),
		Entry("Chat: o3-mini behind a router's prefix with a temperature", chatPath, `{"model": "openai/o3-mini", "temperature": 0.2, "messages": [`+user+`]}`),
		Entry("Responses: gpt-4.1 behind a router's prefix told to reason", "/v1/responses", `{"model": "openai/gpt-4.1", "input": "hi", "reasoning": {"effort": "low"}}`),
		Entry("Messages: Claude 3.5 Haiku without thinking", "/v1/messages", `{"model": "claude-3-5-haiku-20241022", "max_tokens": 2048,
			"messages": [{"role": "user", "content": "weather in Taipei"}]}`),
	)
})
