package standin_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("Gemini 3's thought signatures, through the official Go SDK", func() {
	var c *genai.Client
	BeforeEach(func() {
		var err error
		c, err = officialGemini(startStandin(standin.Options{Policies: []standin.Policy{echo{}}}))
		Expect(err).NotTo(HaveOccurred())
	})
	config := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
			{Name: "get_sst", Description: "SST at a point."}, {Name: "get_date", Description: "Today's date."}}}},
	}
	ask := func(model, text string) *genai.Content {
		GinkgoHelper()
		resp, err := c.Models.GenerateContent(context.Background(), model, []*genai.Content{genai.NewContentFromText(text, genai.RoleUser)}, config)
		Expect(err).NotTo(HaveOccurred())
		return resp.Candidates[0].Content
	}
	result := genai.NewContentFromFunctionResponse("get_sst", map[string]any{"result": 26.4}, genai.RoleUser)

	It("signs the first function call of a Gemini 3 answer, alike for the same answer, and a chat that keeps the answer whole goes on", func() {
		content := ask("gemini-3-flash-preview", "call get_sst get_date")
		Expect(content.Parts).To(HaveLen(2))
		Expect(content.Parts[0].ThoughtSignature).NotTo(BeEmpty())
		Expect(content.Parts[1].ThoughtSignature).To(BeEmpty(), "parallel calls: the first is signed")
		Expect(ask("gemini-3-flash-preview", "call get_sst get_date").Parts[0].ThoughtSignature).To(Equal(content.Parts[0].ThoughtSignature))

		chat, err := c.Chats.Create(context.Background(), "gemini-3-flash-preview", config, nil)
		Expect(err).NotTo(HaveOccurred())
		_, err = chat.SendMessage(context.Background(), genai.Part{Text: "call get_sst"})
		Expect(err).NotTo(HaveOccurred())
		_, err = chat.SendMessage(context.Background(), *genai.NewPartFromFunctionResponse("get_sst", map[string]any{"result": 26.4}))
		Expect(err).NotTo(HaveOccurred())
	})

	DescribeTable("refuses a function call of the current turn sent back without its signature, as Gemini 3 does",
		func(model string, history func(call *genai.Content) []*genai.Content, refused bool) {
			call := ask(model, "call get_sst")
			contents := history(call)
			_, err := c.Models.GenerateContent(context.Background(), model, contents, config)
			if !refused {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			var apiErr genai.APIError
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
			Expect(apiErr.Code).To(Equal(400))
			Expect(apiErr.Status).To(Equal("INVALID_ARGUMENT"))
			Expect(apiErr.Message).To(HavePrefix("Function call is missing a thought_signature in functionCall parts."))
			Expect(apiErr.Message).To(ContainSubstring("function call `default_api:get_sst` , position 2."))
		},
		Entry("the call as answered", "gemini-3-flash-preview", func(call *genai.Content) []*genai.Content {
			return []*genai.Content{genai.NewContentFromText("call get_sst", genai.RoleUser), call, result}
		}, false),
		Entry("the call rebuilt without its signature", "gemini-3-flash-preview", func(call *genai.Content) []*genai.Content {
			call.Parts[0].ThoughtSignature = nil
			return []*genai.Content{genai.NewContentFromText("call get_sst", genai.RoleUser), call, result}
		}, true),
		Entry("a placeholder signature, for history the model did not make", "gemini-3-pro-preview", func(call *genai.Content) []*genai.Content {
			call.Parts[0].ThoughtSignature = []byte("skip_thought_signature_validator")
			return []*genai.Content{genai.NewContentFromText("call get_sst", genai.RoleUser), call, result}
		}, false),
		Entry("an earlier turn's call without it: not checked", "gemini-3-flash-preview", func(call *genai.Content) []*genai.Content {
			call.Parts[0].ThoughtSignature = nil
			return []*genai.Content{genai.NewContentFromText("call get_sst", genai.RoleUser), call, result,
				genai.NewContentFromText("26.4 °C.", genai.RoleModel), genai.NewContentFromText("and tomorrow?", genai.RoleUser)}
		}, false),
		Entry("Gemini 2.5, which neither gives nor checks them", "gemini-2.5-flash", func(call *genai.Content) []*genai.Content {
			Expect(call.Parts[0].ThoughtSignature).To(BeEmpty())
			return []*genai.Content{genai.NewContentFromText("call get_sst", genai.RoleUser), call, result}
		}, false),
	)

	It("streams the signature with its function call", func() {
		var signed []byte
		for resp, err := range c.Models.GenerateContentStream(context.Background(), "gemini-3-flash-preview",
			[]*genai.Content{genai.NewContentFromText("call get_sst", genai.RoleUser)}, config) {
			Expect(err).NotTo(HaveOccurred())
			for _, p := range resp.Candidates[0].Content.Parts {
				if p.FunctionCall != nil {
					signed = p.ThoughtSignature
				}
			}
		}
		Expect(signed).NotTo(BeEmpty())
		Expect(signed).To(Equal(ask("gemini-3-flash-preview", "call get_sst").Parts[0].ThoughtSignature), "the same answer, the same signature")
	})
})

var _ = Describe("Gemini's thoughts (thinkingConfig.includeThoughts), through the official Go SDK", func() {
	var c *genai.Client
	BeforeEach(func() {
		var err error
		c, err = officialGemini(startStandin(standin.Options{Policies: []standin.Policy{echo{}}}))
		Expect(err).NotTo(HaveOccurred())
	})
	config := func(include bool) *genai.GenerateContentConfig {
		return &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser),
			Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "get_sst", Description: "SST at a point."}}}},
			ThinkingConfig:    &genai.ThinkingConfig{IncludeThoughts: include},
		}
	}
	contents := []*genai.Content{genai.NewContentFromText("call get_sst", genai.RoleUser)}

	It("shows a thinking model's thought first, its tokens counted beside the candidates'; not unless asked, and a model that does not think refuses to be asked", func() {
		resp, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(true))
		Expect(err).NotTo(HaveOccurred())
		parts := resp.Candidates[0].Content.Parts
		Expect(parts).To(HaveLen(2))
		Expect(parts[0].Thought).To(BeTrue())
		Expect(parts[0].Text).To(Equal("Deciding from the request alone: call get_sst."))
		Expect(parts[1].FunctionCall.Name).To(Equal("get_sst"))
		u := resp.UsageMetadata
		Expect(u.ThoughtsTokenCount).To(BeNumerically(">", 0))
		Expect(u.TotalTokenCount).To(Equal(u.PromptTokenCount + u.CandidatesTokenCount + u.ThoughtsTokenCount))

		resp, err = c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(false))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Candidates[0].Content.Parts).To(HaveLen(1))
		Expect(resp.UsageMetadata.ThoughtsTokenCount).To(BeZero())

		_, err = c.Models.GenerateContent(context.Background(), "gemini-2.0-flash", contents, config(true))
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.Code).To(Equal(400))
		Expect(apiErr.Message).To(Equal("thinking_config is not supported."))
	})

	It("streams the thought in a chunk of its own, first, each chunk's usage counting it", func() {
		whole, err := c.Models.GenerateContent(context.Background(), "gemini-3-flash-preview", contents, config(true))
		Expect(err).NotTo(HaveOccurred())
		var first *genai.Part
		var last *genai.GenerateContentResponseUsageMetadata
		for resp, err := range c.Models.GenerateContentStream(context.Background(), "gemini-3-flash-preview", contents, config(true)) {
			Expect(err).NotTo(HaveOccurred())
			if first == nil {
				first = resp.Candidates[0].Content.Parts[0]
			}
			Expect(resp.UsageMetadata.ThoughtsTokenCount).To(Equal(whole.UsageMetadata.ThoughtsTokenCount))
			last = resp.UsageMetadata
		}
		Expect(first.Thought).To(BeTrue())
		Expect(first.Text).To(Equal(whole.Candidates[0].Content.Parts[0].Text))
		Expect(last.TotalTokenCount).To(Equal(whole.UsageMetadata.TotalTokenCount))
	})
})
