package provider_test

import (
	"context"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/anthropic"
	"github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/agents/llm/provider"
)

var _ = Describe("New", func() {
	DescribeTable("builds the adapter of the endpoint's provider",
		func(ep llm.Endpoint, want any) {
			c, err := provider.New(context.Background(), ep, "key", http.DefaultClient)
			Expect(err).NotTo(HaveOccurred())
			Expect(c).To(BeAssignableToTypeOf(want))
		},
		Entry("openai", llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "http://localhost:11434/v1", Model: "m"}, &openai.Client{}),
		Entry("gemini", llm.Endpoint{Provider: llm.ProviderGemini, Model: "gemini-2.5-flash"}, &gemini.Client{}),
		Entry("anthropic", llm.Endpoint{Provider: llm.ProviderAnthropic, BaseURL: llm.AnthropicBaseURL, Model: "claude-haiku-4-5"}, &anthropic.Client{}),
		Entry("openai, api chat", llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m", API: llm.APIChat}, &openai.Client{}),
		Entry("openai, api responses", llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m", API: llm.APIResponses}, &openai.Responses{}),
		Entry("azure", llm.Endpoint{Provider: llm.ProviderAzure, BaseURL: "https://res.openai.azure.com", Model: "d"}, &openai.Client{}),
		Entry("azure, api responses", llm.Endpoint{Provider: llm.ProviderAzure, BaseURL: "https://res.openai.azure.com", Model: "d", API: llm.APIResponses}, &openai.Responses{}),
	)

	DescribeTable("refuses an API it does not know, or one named for another provider",
		func(ep llm.Endpoint, want string) {
			_, err := provider.New(context.Background(), ep, "key", http.DefaultClient)
			Expect(err).To(MatchError(want))
		},
		Entry(nil, llm.Endpoint{Provider: llm.ProviderOpenAI, Model: "m", API: "assistants"}, `unknown openai API "assistants" (want chat or responses)`),
		Entry(nil, llm.Endpoint{Provider: llm.ProviderGemini, Model: "m", API: llm.APIResponses}, `api "responses": only an openai or azure endpoint chooses its API`),
		Entry(nil, llm.Endpoint{Provider: llm.ProviderAzure, Model: "m", API: "assistants"}, `unknown azure API "assistants" (want chat or responses)`),
	)

	DescribeTable("sends an endpoint's calls to its base URL's path for its API",
		func(ep llm.Endpoint, base, reply, path string) {
			srv := llmtest.NewServer(http.StatusOK, reply)
			DeferCleanup(srv.Close)
			ep.BaseURL = srv.URL + base
			c, err := provider.New(context.Background(), ep, "key", srv.Client())
			Expect(err).NotTo(HaveOccurred())
			resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Message.Content).To(Equal("hi"))
			r, _, err := srv.Only()
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Path).To(Equal(path))
		},
		Entry("anthropic: /v1/messages", llm.Endpoint{Provider: llm.ProviderAnthropic, Model: "m"}, "",
			`{"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
			"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 1}}`, "/v1/messages"),
		Entry("openai with api responses: /responses", llm.Endpoint{Provider: llm.ProviderOpenAI, Model: "m", API: llm.APIResponses}, "/v1",
			`{"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "m",
			"output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "hi", "annotations": []}]}],
			"usage": {"input_tokens": 3, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 4}}`, "/v1/responses"),
	)

	DescribeTable("streams the calls of an endpoint with stream: true, and a reply that is no stream is an error",
		func(provider_ string, path, query string, body map[string]any) {
			srv := llmtest.NewServer(http.StatusOK, `{}`)
			DeferCleanup(srv.Close)
			ep := llm.Endpoint{Provider: provider_, BaseURL: srv.URL, Model: "m", Stream: true}
			c, err := provider.New(context.Background(), ep, "key", srv.Client())
			Expect(err).NotTo(HaveOccurred())
			_, err = c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			Expect(err).To(HaveOccurred(), "a JSON {} is no event stream")
			r, got, err := srv.Only()
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Path).To(Equal(path))
			Expect(r.Query).To(Equal(query))
			for k, v := range body {
				Expect(got).To(HaveKeyWithValue(k, v))
			}
		},
		Entry("openai", llm.ProviderOpenAI, "/chat/completions", "", map[string]any{"stream": true, "stream_options": map[string]any{"include_usage": true}}),
		Entry("gemini", llm.ProviderGemini, "/v1beta/models/m:streamGenerateContent", "alt=sse", map[string]any{}),
		Entry("anthropic", llm.ProviderAnthropic, "/v1/messages", "", map[string]any{"stream": true}),
	)

	It("names the providers it knows when it does not know one", func() {
		_, err := provider.New(context.Background(), llm.Endpoint{Provider: "mistral"}, "key", http.DefaultClient)
		Expect(err).To(MatchError(`unknown model provider "mistral" (want openai, gemini, anthropic, azure, ollama)`))
	})

	It("builds an ollama endpoint for an outside agent, whose own client calls it, and says so to a built-in agent's call", func() {
		c, err := provider.New(context.Background(), llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "qwen3:14b"}, "", http.DefaultClient)
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		Expect(err).To(MatchError(ContainSubstring("only an outside agent")))
	})
})

var _ = Describe("New, for Azure OpenAI", func() {
	chatReply := `{"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4.1-mini-2025-04-14",
		"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}`
	responsesReply := `{"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4.1-mini",
		"output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "hi", "annotations": []}]}],
		"usage": {"input_tokens": 3, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 4}}`

	DescribeTable("sends a deployment's calls where Azure serves them, with the api-version and the key in api-key, never in Authorization",
		func(ep llm.Endpoint, reply, path, query string) {
			GinkgoT().Setenv("OPENAI_API_KEY", "sk-openai-key-not-for-azure")
			srv := llmtest.NewServer(http.StatusOK, reply)
			DeferCleanup(srv.Close)
			ep.Provider, ep.BaseURL = llm.ProviderAzure, srv.URL+"/"
			c, err := provider.New(context.Background(), ep, "az-key", srv.Client())
			Expect(err).NotTo(HaveOccurred())
			resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Message.Content).To(Equal("hi"))
			r, body, err := srv.Only()
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Path).To(Equal(path))
			Expect(r.Query).To(Equal(query))
			Expect(r.Header.Get("Api-Key")).To(Equal("az-key"))
			Expect(r.Header.Values("Authorization")).To(BeEmpty())
			Expect(body).To(HaveKeyWithValue("model", ep.Model))
		},
		Entry("Chat Completions at the default api-version", llm.Endpoint{Model: "my-gpt"}, chatReply,
			"/openai/deployments/my-gpt/chat/completions", "api-version="+llm.AzureAPIVersion),
		Entry("Chat Completions at the endpoint's api-version", llm.Endpoint{Model: "my-gpt", APIVersion: "2025-04-01-preview"}, chatReply,
			"/openai/deployments/my-gpt/chat/completions", "api-version=2025-04-01-preview"),
		Entry("the Responses API", llm.Endpoint{Model: "my-gpt", API: llm.APIResponses}, responsesReply,
			"/openai/responses", "api-version="+llm.AzureResponsesVersion),
	)
})

var _ = Describe("New, for a provider it does not know", func() {
	It("names the providers it knows", func() {
		_, err := provider.New(context.Background(), llm.Endpoint{Provider: "mistral", Model: "m"}, "key", http.DefaultClient)
		Expect(err).To(MatchError(`unknown model provider "mistral" (want ` + strings.Join(llm.Providers(), ", ") + `)`))
	})
})

var _ = Describe("NewEmbedder", func() {
	It("embeds through OpenAI's embeddings endpoint at the base URL, with the endpoint's dimensions", func() {
		srv := llmtest.NewServer(http.StatusOK, `{"object":"list","model":"m","data":[{"object":"embedding","index":0,"embedding":"AACAPw=="}],"usage":{"prompt_tokens":1,"total_tokens":1}}`)
		DeferCleanup(srv.Close)
		e, err := provider.NewEmbedder(llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL + "/v1", Model: "m", Dimensions: 1}, "key", srv.Client())
		Expect(err).NotTo(HaveOccurred())
		vecs, _, err := e.Embed(context.Background(), []string{"a"})
		Expect(err).NotTo(HaveOccurred())
		Expect(vecs).To(Equal([][]float32{{1}}))
		r, sent, err := srv.Only()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Path).To(Equal("/v1/embeddings"))
		Expect(sent).To(HaveKeyWithValue("dimensions", 1.0))
	})

	It("embeds through an Azure OpenAI deployment's embeddings endpoint", func() {
		srv := llmtest.NewServer(http.StatusOK, `{"object":"list","model":"text-embedding-3-small","data":[{"object":"embedding","index":0,"embedding":"AACAPw=="}],"usage":{"prompt_tokens":1,"total_tokens":1}}`)
		DeferCleanup(srv.Close)
		e, err := provider.NewEmbedder(llm.Endpoint{Provider: llm.ProviderAzure, BaseURL: srv.URL, Model: "embed-small"}, "az-key", srv.Client())
		Expect(err).NotTo(HaveOccurred())
		_, _, err = e.Embed(context.Background(), []string{"a"})
		Expect(err).NotTo(HaveOccurred())
		r, _, err := srv.Only()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Path).To(Equal("/openai/deployments/embed-small/embeddings"))
		Expect(r.Query).To(Equal("api-version=" + llm.AzureAPIVersion))
		Expect(r.Header.Get("Api-Key")).To(Equal("az-key"))
	})

	DescribeTable("refuses every provider but OpenAI's wire",
		func(p string) {
			_, err := provider.NewEmbedder(llm.Endpoint{Provider: p, Model: "m"}, "key", http.DefaultClient)
			Expect(err).To(MatchError(`embeddings: provider "` + p + `" is not supported (want openai or azure)`))
		},
		Entry(nil, llm.ProviderGemini),
		Entry(nil, llm.ProviderAnthropic),
	)
})
