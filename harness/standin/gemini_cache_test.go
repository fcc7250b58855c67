package standin_test

import (
	"context"
	"errors"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("Gemini's cached contents", func() {
	var (
		c     *genai.Client
		ctx   = context.Background()
		cache *genai.CachedContent
	)
	const model = "gemini-2.5-flash"

	BeforeEach(func() {
		var err error
		c, err = officialGemini(startStandin(standin.Options{Policies: []standin.Policy{echo{}}}))
		Expect(err).NotTo(HaveOccurred())
		cache, err = c.Caches.Create(ctx, model, &genai.CreateCachedContentConfig{
			TTL: time.Hour, DisplayName: "tide report",
			SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser),
			Contents:          []*genai.Content{genai.NewContentFromText("The tide report: high water 14:52 at Keelung.", genai.RoleUser)},
			Tools:             []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "tide_table", Description: "Tide times of a port."}}}},
		})
		Expect(err).NotTo(HaveOccurred())
	})

	// status is the HTTP status of err, an API error of the SDK's.
	status := func(err error) int {
		GinkgoHelper()
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		return apiErr.Code
	}

	It("is created, got, listed, updated and deleted with the official SDK", func() {
		Expect(cache.Name).To(MatchRegexp(`^cachedContents/[0-9a-z]+$`))
		Expect(cache.Model).To(Equal("models/" + model))
		Expect(cache.DisplayName).To(Equal("tide report"))
		Expect(cache.UsageMetadata.TotalTokenCount).To(BeNumerically(">", 10))

		got, err := c.Caches.Get(ctx, cache.Name, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Name).To(Equal(cache.Name))
		page, err := c.Caches.List(ctx, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Items).To(HaveLen(1))
		updated, err := c.Caches.Update(ctx, cache.Name, &genai.UpdateCachedContentConfig{TTL: 2 * time.Hour})
		Expect(err).NotTo(HaveOccurred())
		Expect(updated.ExpireTime.Sub(cache.ExpireTime)).To(Equal(time.Hour))

		_, err = c.Caches.Delete(ctx, cache.Name, nil)
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Caches.Get(ctx, cache.Name, nil)
		Expect(status(err)).To(Equal(http.StatusForbidden))
		_, err = c.Models.GenerateContent(ctx, model, genai.Text("call tide_table"), &genai.GenerateContentConfig{CachedContent: cache.Name})
		Expect(status(err)).To(Equal(http.StatusForbidden), "a deleted cache is not found")
	})

	It("reads a call naming it with its instruction, tools and contents first, counted as cached input, whole and streamed", func() {
		cfg := &genai.GenerateContentConfig{CachedContent: cache.Name}
		resp, err := c.Models.GenerateContent(ctx, model, genai.Text("call tide_table"), cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FunctionCalls()).To(HaveLen(1), "the tool is the cache's")
		Expect(resp.FunctionCalls()[0].Name).To(Equal("tide_table"))
		u := resp.UsageMetadata
		Expect(u.CachedContentTokenCount).To(Equal(cache.UsageMetadata.TotalTokenCount))
		Expect(u.PromptTokenCount).To(BeNumerically(">", u.CachedContentTokenCount), "the prompt counts the cache and the call's own contents")

		var last *genai.GenerateContentResponse
		for chunk, err := range c.Models.GenerateContentStream(ctx, model, genai.Text("call tide_table"), cfg) {
			Expect(err).NotTo(HaveOccurred())
			last = chunk
		}
		Expect(last.UsageMetadata.CachedContentTokenCount).To(Equal(u.CachedContentTokenCount))
		Expect(last.UsageMetadata.PromptTokenCount).To(Equal(u.PromptTokenCount))

		count, err := c.Models.CountTokens(ctx, model, genai.Text("call tide_table"), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(count.TotalTokens).To(BeNumerically("<", u.PromptTokenCount), "without the cache, fewer")
	})

	DescribeTable("refuses a call naming it as the API does",
		func(cfg *genai.GenerateContentConfig, model string, want int) {
			if cfg.CachedContent == "" {
				cfg.CachedContent = cache.Name
			}
			_, err := c.Models.GenerateContent(ctx, model, genai.Text("call tide_table"), cfg)
			Expect(status(err)).To(Equal(want))
		},
		Entry("that sets a system instruction too", &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser)}, model, http.StatusBadRequest),
		Entry("that sets tools too", &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "other"}}}}}, model, http.StatusBadRequest),
		Entry("for another model", &genai.GenerateContentConfig{}, "gemini-2.5-pro", http.StatusBadRequest),
		Entry("that it does not keep", &genai.GenerateContentConfig{CachedContent: "cachedContents/never"}, model, http.StatusForbidden),
	)
})
