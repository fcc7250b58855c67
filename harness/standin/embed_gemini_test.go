package standin_test

import (
	"context"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("Gemini embeddings", func() {
	var (
		srv *standin.Server
		c   *genai.Client
	)
	BeforeEach(func() {
		srv = startStandin(standin.Options{})
		var err error
		c, err = officialGemini(srv)
		Expect(err).NotTo(HaveOccurred())
	})
	texts := []*genai.Content{
		genai.NewContentFromText("sea surface temperature near Taiwan", genai.RoleUser),
		genai.NewContentFromText("ocean surface temperature around Taiwan", genai.RoleUser),
		genai.NewContentFromText("the price of a train ticket to Chicago", genai.RoleUser),
	}

	DescribeTable("answers the official SDK's EmbedContent (batchEmbedContents) with one vector per text in the model's documented dimension",
		func(model string, dims int) {
			resp, err := c.Models.EmbedContent(context.Background(), model, texts, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Embeddings).To(HaveLen(3))
			for _, e := range resp.Embeddings {
				Expect(e.Values).To(HaveLen(dims))
			}
			a, b, other := resp.Embeddings[0].Values, resp.Embeddings[1].Values, resp.Embeddings[2].Values
			Expect(cosine(a, b)).To(BeNumerically(">", cosine(a, other)), "texts about the same thing are nearer")

			again, err := c.Models.EmbedContent(context.Background(), model, texts[:1], nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Embeddings[0].Values).To(Equal(a), "the same text, the same vector")
		},
		Entry(nil, "text-embedding-004", 768),
		Entry(nil, "gemini-embedding-001", 3072),
		Entry("a model it does not list", "my-embedder", 768),
	)

	It("gives outputDimensionality dimensions when asked, and refuses more than the model has", func() {
		dims := int32(256)
		resp, err := c.Models.EmbedContent(context.Background(), "gemini-embedding-001", texts[:1], &genai.EmbedContentConfig{OutputDimensionality: &dims, TaskType: "RETRIEVAL_QUERY"})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Embeddings[0].Values).To(HaveLen(256))

		dims = 1024
		_, err = c.Models.EmbedContent(context.Background(), "text-embedding-004", texts[:1], &genai.EmbedContentConfig{OutputDimensionality: &dims})
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
		Expect(apiErr.Code).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Status).To(Equal("INVALID_ARGUMENT"))
	})

	It("reads outputDimensionality by its snake_case proto name too", func() {
		status, got := post(srv, "/v1beta/models/gemini-embedding-001:embedContent", `{"content": {"parts": [{"text": "tide tables"}]}, "output_dimensionality": 128}`)
		Expect(status).To(Equal(http.StatusOK), "%v", got)
		Expect(got["embedding"].(map[string]any)["values"]).To(HaveLen(128))
	})

	It("answers embedContent, the single-text method older SDKs call, with the batch's vector", func() {
		status, got := post(srv, "/v1beta/models/text-embedding-004:embedContent", `{"model": "models/text-embedding-004", "content": {"parts": [{"text": "sea surface temperature near Taiwan"}]}}`)
		Expect(status).To(Equal(http.StatusOK), "%v", got)
		values := got["embedding"].(map[string]any)["values"].([]any)
		Expect(values).To(HaveLen(768))

		resp, err := c.Models.EmbedContent(context.Background(), "text-embedding-004", texts[:1], nil)
		Expect(err).NotTo(HaveOccurred())
		for i, v := range values {
			Expect(float32(v.(float64))).To(Equal(resp.Embeddings[0].Values[i]))
		}
	})

	DescribeTable("refuses in Gemini's error shape what the API refuses",
		func(path, body string) {
			status, got := post(srv, path, body)
			Expect(status).To(Equal(http.StatusBadRequest), "%v", got)
			Expect(got).To(HaveKeyWithValue("error", HaveKeyWithValue("status", "INVALID_ARGUMENT")))
		},
		Entry("no content", "/v1beta/models/text-embedding-004:embedContent", `{}`),
		Entry("a content without parts", "/v1beta/models/text-embedding-004:embedContent", `{"content": {"parts": []}}`),
		Entry("no requests", "/v1beta/models/text-embedding-004:batchEmbedContents", `{"requests": []}`),
		Entry("a request without its model", "/v1beta/models/text-embedding-004:batchEmbedContents", `{"requests": [{"content": {"parts": [{"text": "x"}]}}]}`),
		Entry("a request for another model", "/v1beta/models/text-embedding-004:batchEmbedContents", `{"requests": [{"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "x"}]}}]}`),
	)
})
