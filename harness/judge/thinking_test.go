package judge_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/judge"
)

// answering serves answer as every response's JSON body and keeps the last
// request's body.
func answering(answer map[string]any) (*httptest.Server, *map[string]any) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		Expect(json.Unmarshal(body, &got)).To(Succeed())
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer)
	}))
	DeferCleanup(srv.Close)
	return srv, &got
}

// graderOf is a grader of provider's model at srv.
func graderOf(provider, model string, srv *httptest.Server) *judge.Grader {
	GinkgoHelper()
	base := srv.URL
	if provider == llm.ProviderOpenAI {
		base += "/v1"
	}
	g, err := judge.New(context.Background(), llm.Endpoint{Provider: provider, BaseURL: base, Model: model}, "key-123", http.DefaultClient, "")
	Expect(err).NotTo(HaveOccurred())
	return g
}

func openAIAnswer(content, finish string, completion int) map[string]any {
	return map[string]any{"id": "c", "object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": 300, "completion_tokens": completion, "total_tokens": 300 + completion}}
}

var _ = DescribeTable("Thinks tells, by its name, a grader model that reasons before it answers",
	func(provider, model string, thinks bool) {
		Expect(judge.Thinks(provider, model)).To(Equal(thinks))
	},
	Entry(nil, llm.ProviderOpenAI, "gpt-4.1-mini", false),
	Entry(nil, llm.ProviderOpenAI, "gpt-4o", false),
	Entry(nil, llm.ProviderOpenAI, "ft:gpt-4o-mini-2024-07-18:acme::abc123", false),
	Entry(nil, llm.ProviderOpenAI, "o3-mini", true),
	Entry(nil, llm.ProviderOpenAI, "o4-mini-2025-04-16", true),
	Entry(nil, llm.ProviderOpenAI, "gpt-5", true),
	Entry(nil, llm.ProviderOpenAI, "gpt-5-mini", true),
	Entry(nil, llm.ProviderOpenAI, "gpt-5.1", true),
	Entry(nil, llm.ProviderOpenAI, "GPT-5.6-luna", true),
	Entry(nil, llm.ProviderOpenAI, "gpt-5-chat-latest", false),
	Entry(nil, llm.ProviderOpenAI, "gpt-50x-custom", false),
	Entry(nil, llm.ProviderAzure, "gpt-5-mini", true),
	Entry(nil, llm.ProviderOpenAI, "openai/o3", true),
	Entry(nil, llm.ProviderOpenAI, "qwen3:14b", false),
	Entry(nil, llm.ProviderAnthropic, "claude-haiku-4-5", false),
	Entry(nil, llm.ProviderAnthropic, "claude-sonnet-4-5-20250929", false),
	Entry(nil, llm.ProviderAnthropic, "claude-3-7-sonnet-20250219", false),
	Entry(nil, llm.ProviderAnthropic, "claude-opus-4-7", true),
	Entry(nil, llm.ProviderAnthropic, "claude-opus-4-8", true),
	Entry(nil, llm.ProviderAnthropic, "claude-sonnet-5", true),
	Entry(nil, llm.ProviderAnthropic, "claude-sonnet-5-20260101", true),
	Entry(nil, llm.ProviderAnthropic, "claude-fable-5", true),
	Entry(nil, llm.ProviderGemini, "gemini-2.0-flash", false),
	Entry(nil, llm.ProviderGemini, "gemini-2.5-flash", true),
	Entry(nil, llm.ProviderGemini, "gemini-2.5-pro", true),
	Entry(nil, llm.ProviderGemini, "gemini-3-pro-preview", true),
	Entry(nil, llm.ProviderGemini, "models/gemini-2.5-flash-lite", true),
	Entry(nil, llm.ProviderGemini, "gemini-flash-latest", true),
	Entry(nil, llm.ProviderGemini, "gemma-3-27b-it", false),
)

var _ = Describe("a grader model that thinks", func() {
	It("is asked by OpenAI Chat Completions at reasoning_effort low, without temperature 0 (which reasoning models refuse), bounded for its reasoning", func() {
		srv, got := answering(openAIAnswer(`{"score":1,"reason":"names it"}`, "stop", 180))
		g, u, err := graderOf(llm.ProviderOpenAI, "gpt-5-mini", srv).Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		Expect(g.Score).To(Equal(1.0))
		Expect(u.OutputTokens).To(Equal(180))
		Expect(*got).NotTo(HaveKey("temperature"))
		Expect((*got)["reasoning_effort"]).To(Equal("low"))
		Expect((*got)["max_completion_tokens"]).To(BeEquivalentTo(judge.ThinkingMaxTokens))
		Expect((*got)["response_format"].(map[string]any)["json_schema"].(map[string]any)["name"]).To(Equal(judge.GradeSchema))
	})

	DescribeTable("a GPT-5 chat model, which does not reason but takes only its default temperature, is asked without temperature and at the plain bound",
		func(provider, model string) {
			srv, got := answering(openAIAnswer(`{"score":1,"reason":"names it"}`, "stop", 20))
			_, _, err := graderOf(provider, model, srv).Grade(context.Background(), subject)
			Expect(err).NotTo(HaveOccurred())
			Expect(*got).NotTo(HaveKey("temperature"))
			Expect(*got).NotTo(HaveKey("reasoning_effort"))
			Expect((*got)["max_completion_tokens"]).To(BeEquivalentTo(judge.MaxTokens))
		},
		Entry(nil, llm.ProviderOpenAI, "gpt-5-chat-latest"),
		Entry(nil, llm.ProviderOpenAI, "gpt-5.2-chat-latest"),
	)

	It("is asked by Anthropic's Messages API for the shape as its answer (output_config), not a forced tool, without temperature", func() {
		srv, got := answering(map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "claude-sonnet-5", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "thinking", "thinking": "The answer names it.", "signature": "c2ln"},
				map[string]any{"type": "text", "text": `{"score":0.5,"reason":"half of it"}`}},
			"usage": map[string]any{"input_tokens": 300, "output_tokens": 90}})
		g, u, err := graderOf(llm.ProviderAnthropic, "claude-sonnet-5", srv).Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		Expect(g).To(Equal(judge.Grade{Score: 0.5, Reason: "half of it"}))
		Expect(u.OutputTokens).To(Equal(90))
		Expect(*got).NotTo(HaveKey("temperature"))
		Expect(*got).NotTo(HaveKey("tools"))
		Expect(*got).NotTo(HaveKey("tool_choice"))
		Expect((*got)["max_tokens"]).To(BeEquivalentTo(judge.ThinkingMaxTokens))
		oc := (*got)["output_config"].(map[string]any)
		Expect(oc["effort"]).To(Equal("low"))
		format := oc["format"].(map[string]any)
		Expect(format["type"]).To(Equal("json_schema"))
		Expect(format["schema"].(map[string]any)["title"]).To(Equal(judge.GradeSchema))
		Expect(format["schema"].(map[string]any)["additionalProperties"]).To(BeFalse())
		Expect((*got)["system"]).NotTo(BeEmpty())
	})

	It("is given Gemini's maxOutputTokens for its thoughts, which are counted as output", func() {
		srv, got := answering(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": `{"score":1,"reason":"r"}`}}}, "finishReason": "STOP"}},
			"usageMetadata": map[string]any{"promptTokenCount": 300, "candidatesTokenCount": 20, "thoughtsTokenCount": 400}})
		_, u, err := graderOf(llm.ProviderGemini, "gemini-2.5-flash", srv).Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.OutputTokens).To(Equal(420), "thoughts are billed as output")
		Expect((*got)["generationConfig"].(map[string]any)["maxOutputTokens"]).To(BeEquivalentTo(judge.ThinkingMaxTokens))
	})

	DescribeTable("that spent its bound before the shape is refused, saying it was cut off",
		func(provider, model string, answer map[string]any, reason string) {
			srv, _ := answering(answer)
			_, _, err := graderOf(provider, model, srv).Grade(context.Background(), subject)
			Expect(err).To(MatchError(judge.ErrUnparsable))
			Expect(err.Error()).To(ContainSubstring("cut off at its bound (" + reason))
		},
		Entry("OpenAI", llm.ProviderOpenAI, "gpt-5-mini", openAIAnswer("", "length", 4096), "finish_reason length"),
		Entry("Anthropic", llm.ProviderAnthropic, "claude-sonnet-5", map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "m", "stop_reason": "max_tokens",
			"content": []any{map[string]any{"type": "thinking", "thinking": "…", "signature": "c2ln"}}, "usage": map[string]any{"input_tokens": 300, "output_tokens": 4096}}, "stop_reason max_tokens"),
		Entry("Gemini", llm.ProviderGemini, "gemini-2.5-pro", map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model"}, "finishReason": "MAX_TOKENS"}},
			"usageMetadata": map[string]any{"promptTokenCount": 300, "thoughtsTokenCount": 4096}}, "finishReason MAX_TOKENS"),
	)
})

var _ = DescribeTable("Reasoning says whether the grader's model reasons, over what its name says",
	func(model string, on bool, temperature bool) {
		srv, got := answering(openAIAnswer(`{"score":1,"reason":"r"}`, "stop", 20))
		g, err := judge.New(context.Background(), llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: model}, "k", http.DefaultClient, "", judge.Reasoning(on))
		Expect(err).NotTo(HaveOccurred())
		_, _, err = g.Grade(context.Background(), subject)
		Expect(err).NotTo(HaveOccurred())
		if temperature {
			Expect((*got)["temperature"]).To(BeEquivalentTo(0))
			Expect(*got).NotTo(HaveKey("reasoning_effort"))
			return
		}
		Expect(*got).NotTo(HaveKey("temperature"))
		Expect((*got)["reasoning_effort"]).To(Equal("low"))
	},
	Entry("a deployment named otherwise than its reasoning model", "house-grader", true, false),
	Entry("a reasoning model's name, said not to", "gpt-5-mini", false, true),
)
