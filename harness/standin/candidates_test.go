package standin_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("a Gemini request for several candidates (candidateCount)", func() {
	var c *genai.Client

	BeforeEach(func() {
		srv := startStandin(standin.Options{})
		var err error
		c, err = officialGemini(srv)
		Expect(err).NotTo(HaveOccurred())
	})
	contents := []*genai.Content{genai.NewContentFromText("Say hello to the harbour master.", genai.RoleUser)}
	config := func(n int32) *genai.GenerateContentConfig {
		return &genai.GenerateContentConfig{CandidateCount: n}
	}

	It("answers that many candidates, each the same answer, and counts every candidate's tokens", func() {
		one, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(1))
		Expect(err).NotTo(HaveOccurred())
		three, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(3))
		Expect(err).NotTo(HaveOccurred())
		Expect(three.Candidates).To(HaveLen(3))
		for i, cand := range three.Candidates {
			Expect(cand.Index).To(BeEquivalentTo(i))
			Expect(cand.Content.Parts[0].Text).To(Equal(one.Candidates[0].Content.Parts[0].Text))
			Expect(cand.FinishReason).To(Equal(genai.FinishReasonStop))
		}
		Expect(three.UsageMetadata.PromptTokenCount).To(Equal(one.UsageMetadata.PromptTokenCount))
		Expect(three.UsageMetadata.CandidatesTokenCount).To(Equal(3 * one.UsageMetadata.CandidatesTokenCount))
	})

	It("streams every candidate in each chunk, the last with all of their tokens", func() {
		texts := make([]string, 2)
		var last *genai.GenerateContentResponse
		for chunk, err := range c.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", contents, config(2)) {
			Expect(err).NotTo(HaveOccurred())
			Expect(chunk.Candidates).To(HaveLen(2))
			for _, cand := range chunk.Candidates {
				texts[cand.Index] += cand.Content.Parts[0].Text
			}
			last = chunk
		}
		Expect(texts[0]).NotTo(BeEmpty())
		Expect(texts[1]).To(Equal(texts[0]))
		whole, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(2))
		Expect(err).NotTo(HaveOccurred())
		Expect(last.UsageMetadata.CandidatesTokenCount).To(Equal(whole.UsageMetadata.CandidatesTokenCount))
	})
})
