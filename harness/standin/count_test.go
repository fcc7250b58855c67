package standin_test

import (
	"context"
	"net/http"
	"strings"

	asdk "github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	osdk "github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

// The token counting endpoints, called through the official SDKs: each
// counts what the same request is billed as input when it is a call.
var _ = Describe("token counting", func() {
	const question = "What is the sea surface temperature near Taiwan today?"
	var srv *standin.Server
	ctx := context.Background()

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	It("answers Anthropic's count_tokens with the input tokens the call is billed", func() {
		c := asdk.NewClient(aoption.WithoutEnvironmentDefaults(), aoption.WithBaseURL(srv.URL()), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
		system := []asdk.TextBlockParam{{Text: echoPrompt}}
		msgs := []asdk.MessageParam{asdk.NewUserMessage(asdk.NewTextBlock(question))}
		tools := []asdk.ToolUnionParam{{OfTool: &asdk.ToolParam{Name: "get_sst", InputSchema: asdk.ToolInputSchemaParam{Properties: map[string]any{"lon": map[string]any{"type": "number"}}}}}}
		count, err := c.Messages.CountTokens(ctx, asdk.MessageCountTokensParams{Model: "claude-haiku-4-5", System: asdk.MessageCountTokensParamsSystemUnion{OfTextBlockArray: system},
			Messages: msgs, Tools: []asdk.MessageCountTokensToolUnionParam{{OfTool: tools[0].OfTool}}})
		Expect(err).NotTo(HaveOccurred())
		call, err := c.Messages.New(ctx, asdk.MessageNewParams{Model: "claude-haiku-4-5", MaxTokens: 100, System: system, Messages: msgs, Tools: tools})
		Expect(err).NotTo(HaveOccurred())
		Expect(count.InputTokens).To(BeNumerically(">", 10))
		Expect(count.InputTokens).To(Equal(call.Usage.InputTokens))
	})

	It("gives its answers and refusals the request id header Anthropic's and OpenAI's carry", func() {
		for _, c := range []struct{ path, header, prefix, body string }{
			{"/v1/messages/count_tokens", "Request-Id", "req_011", `{"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "hi"}]}`},
			{"/v1/messages/count_tokens", "Request-Id", "req_011", `{"model": "claude-haiku-4-5", "messages": [{"role": "bot", "content": "hi"}]}`}, // refused
			{"/v1/responses/input_tokens", "X-Request-Id", "req_", `{"model": "gpt-4.1-mini", "input": "hi"}`},
		} {
			resp, err := http.Post(srv.URL()+c.path, "application/json", strings.NewReader(c.body))
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.Header.Get(c.header)).To(HavePrefix(c.prefix), "%s %s: status %d", c.path, c.body, resp.StatusCode)
		}
	})

	It("answers Gemini's countTokens with the prompt tokens the call is billed", func() {
		srv := startStandin(standin.Options{}) // the generic policy answers a request with no system prompt
		c, err := officialGemini(srv)
		Expect(err).NotTo(HaveOccurred())
		contents := []*genai.Content{genai.NewContentFromText(question, genai.RoleUser)}
		count, err := c.Models.CountTokens(ctx, "gemini-2.5-flash", contents, nil)
		Expect(err).NotTo(HaveOccurred())
		call, err := c.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(count.TotalTokens).To(BeNumerically(">", 5))
		Expect(count.TotalTokens).To(Equal(call.UsageMetadata.PromptTokenCount))
	})

	It("answers a Gemini countTokens that wraps a whole generateContentRequest", func() {
		status, body := post(srv, "/v1beta/models/gemini-2.5-flash:countTokens", `{"generateContentRequest": {"model": "models/gemini-2.5-flash",
			"systemInstruction": {"parts": [{"text": "`+echoPrompt+`"}]}, "contents": [{"role": "user", "parts": [{"text": "`+question+`"}]}]}}`)
		Expect(status).To(Equal(http.StatusOK))
		Expect(body["totalTokens"]).To(BeNumerically(">", 10))
		Expect(body["promptTokensDetails"]).To(HaveLen(1))
	})

	It("answers OpenAI's responses/input_tokens with the input tokens the call is billed", func() {
		c := osdk.NewClient(ooption.WithBaseURL(srv.URL()+"/v1"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
		input := responses.ResponseNewParamsInputUnion{OfString: osdk.String(question)}
		count, err := c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{Model: osdk.String("gpt-4.1-mini"), Instructions: osdk.String(echoPrompt),
			Input: responses.InputTokenCountParamsInputUnion{OfString: osdk.String(question)}})
		Expect(err).NotTo(HaveOccurred())
		call, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1-mini", Instructions: osdk.String(echoPrompt), Input: input})
		Expect(err).NotTo(HaveOccurred())
		Expect(count.InputTokens).To(BeNumerically(">", 10))
		Expect(count.InputTokens).To(Equal(call.Usage.InputTokens))
	})
})
