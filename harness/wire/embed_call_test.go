package wire_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("reading embeddings calls off the wire", func() {
	DescribeTable("tells an embeddings endpoint from the rest",
		func(path string, want bool) { Expect(wire.IsEmbeddings(path)).To(Equal(want)) },
		Entry("OpenAI", "/v1/embeddings", true),
		Entry("Ollama's OpenAI-compatible", "/v1/embeddings", true),
		Entry("Gemini, one", "/v1beta/models/gemini-embedding-001:embedContent", true),
		Entry("Gemini, a batch", "/v1beta/models/text-embedding-004:batchEmbedContents", true),
		Entry("chat", "/v1/chat/completions", false),
		Entry("Gemini chat", "/v1beta/models/gemini-2.5-flash:generateContent", false),
		Entry("Ollama's native", "/api/embed", true),
		Entry("Ollama's older native", "/api/embeddings", true),
		Entry("Ollama's chat", "/api/chat", false),
		Entry("an upstream's own route", "/api/embedded", false),
	)

	DescribeTable("reads what a request asks to embed",
		func(path, body string, want wire.EmbedCall) {
			got, err := wire.ReadEmbedCall(path, []byte(body))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("OpenAI, a string", "/v1/embeddings", `{"model":"text-embedding-3-small","input":"scope 1"}`,
			wire.EmbedCall{Model: "text-embedding-3-small", Texts: []string{"scope 1"}}),
		Entry("OpenAI, strings, in 64 dimensions", "/v1/embeddings", `{"input":["a","b"],"model":"text-embedding-3-small","dimensions":64}`,
			wire.EmbedCall{Model: "text-embedding-3-small", Texts: []string{"a", "b"}, EmbedParams: llm.EmbedParams{Dimensions: 64}}),
		Entry("OpenAI, asking for base64 vectors", "/v1/embeddings", `{"model":"m","input":"a","encoding_format":"base64"}`,
			wire.EmbedCall{Model: "m", Texts: []string{"a"}, EmbedParams: llm.EmbedParams{Formats: []string{"base64"}}}),
		Entry("OpenAI, asking for floats", "/v1/embeddings", `{"model":"m","input":"a","encoding_format":"float"}`,
			wire.EmbedCall{Model: "m", Texts: []string{"a"}, EmbedParams: llm.EmbedParams{Formats: []string{"float"}}}),
		Entry("OpenAI, token ids", "/v1/embeddings", `{"model":"m","input":[1,2,3]}`,
			wire.EmbedCall{Model: "m", Tokens: 3}),
		Entry("OpenAI, arrays of token ids", "/v1/embeddings", `{"model":"m","input":[[1,2],[3,4,5]]}`,
			wire.EmbedCall{Model: "m", Tokens: 5}),
		Entry("Gemini embedContent: the model is the path's, parts joined", "/v1beta/models/gemini-embedding-001:embedContent",
			`{"content":{"parts":[{"text":"one"},{"text":"two"}]},"taskType":"RETRIEVAL_QUERY"}`,
			wire.EmbedCall{Model: "gemini-embedding-001", Texts: []string{"one\ntwo"}}),
		Entry("Gemini batchEmbedContents", "/v1beta/models/gemini-embedding-001:batchEmbedContents",
			`{"requests":[{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"a"}]}},{"content":{"parts":[{"text":"b"}]}}]}`,
			wire.EmbedCall{Model: "gemini-embedding-001", Texts: []string{"a", "b"}}),
		Entry("Gemini embedContent in fewer dimensions", "/v1beta/models/gemini-embedding-001:embedContent",
			`{"content":{"parts":[{"text":"one"}]},"outputDimensionality":768}`,
			wire.EmbedCall{Model: "gemini-embedding-001", Texts: []string{"one"}, EmbedParams: llm.EmbedParams{Dimensions: 768}}),
		Entry("Gemini batchEmbedContents, every request in the same dimensions, by either name", "/v1beta/models/gemini-embedding-001:batchEmbedContents",
			`{"requests":[{"content":{"parts":[{"text":"a"}]},"outputDimensionality":256},{"content":{"parts":[{"text":"b"}]},"output_dimensionality":256}]}`,
			wire.EmbedCall{Model: "gemini-embedding-001", Texts: []string{"a", "b"}, EmbedParams: llm.EmbedParams{Dimensions: 256}}),
		Entry("Gemini batchEmbedContents, requests in different dimensions: no one count", "/v1beta/models/gemini-embedding-001:batchEmbedContents",
			`{"requests":[{"content":{"parts":[{"text":"a"}]},"outputDimensionality":256},{"content":{"parts":[{"text":"b"}]}}]}`,
			wire.EmbedCall{Model: "gemini-embedding-001", Texts: []string{"a", "b"}}),
		Entry("Ollama's /api/embed, a string", "/api/embed", `{"model":"nomic-embed-text","input":"sea ice","truncate":true}`,
			wire.EmbedCall{Model: "nomic-embed-text", Texts: []string{"sea ice"}}),
		Entry("Ollama's /api/embed, strings", "/api/embed", `{"model":"nomic-embed-text","input":["a","b"],"keep_alive":"5m"}`,
			wire.EmbedCall{Model: "nomic-embed-text", Texts: []string{"a", "b"}}),
		Entry("Ollama's /api/embed in fewer dimensions", "/api/embed", `{"model":"qwen3-embedding","input":"a","dimensions":512}`,
			wire.EmbedCall{Model: "qwen3-embedding", Texts: []string{"a"}, EmbedParams: llm.EmbedParams{Dimensions: 512}}),
		Entry("Ollama's older /api/embeddings: one prompt", "/api/embeddings", `{"model":"all-minilm","prompt":"tide gauge","options":{}}`,
			wire.EmbedCall{Model: "all-minilm", Texts: []string{"tide gauge"}}),
		Entry("Ollama's older /api/embeddings, an empty prompt", "/api/embeddings", `{"model":"all-minilm","prompt":""}`,
			wire.EmbedCall{Model: "all-minilm", Texts: []string{""}}),
	)

	It("says what it cannot read", func() {
		_, err := wire.ReadEmbedCall("/v1/embeddings", []byte(`{"model":"m","input":{"x":1}}`))
		Expect(err).To(MatchError(ContainSubstring("input is not a string, strings or token ids")))
		_, err = wire.ReadEmbedCall("/v1/chat/completions", []byte(`{}`))
		Expect(err).To(MatchError(ContainSubstring("not an embeddings endpoint")))
	})

	DescribeTable("reads the tokens a response says it used",
		func(path, body string, want int, ok bool) {
			n, found := wire.ReportedEmbedTokens(path, []byte(body))
			Expect(found).To(Equal(ok))
			Expect(n).To(Equal(want))
		},
		Entry("OpenAI's usage.prompt_tokens", "/v1/embeddings",
			`{"data":[{"embedding":"AAAA","index":0}],"model":"text-embedding-3-small","usage":{"prompt_tokens":15,"total_tokens":15}}`, 15, true),
		Entry("a server that sends no usage", "/v1/embeddings", `{"data":[{"embedding":[0.1],"index":0}]}`, 0, false),
		Entry("Vertex AI's statistics per vector, summed", "/v1/models/text-embedding-004:batchEmbedContents",
			`{"embeddings":[{"values":[0.1],"statistics":{"tokenCount":4}},{"values":[0.2],"statistics":{"tokenCount":6}}]}`, 10, true),
		Entry("the Gemini API, which reports none", "/v1beta/models/gemini-embedding-001:embedContent",
			`{"embedding":{"values":[0.1,0.2]}}`, 0, false),
		Entry("an error body", "/v1/embeddings", `{"error":{"message":"Rate limit reached"}}`, 0, false),
		Entry("Ollama's prompt_eval_count", "/api/embed",
			`{"model":"nomic-embed-text","embeddings":[[0.1,0.2],[0.3,0.4]],"total_duration":1200000,"prompt_eval_count":9}`, 9, true),
		Entry("Ollama's error", "/api/embed", `{"error":"model \"x\" not found, try pulling it first"}`, 0, false),
		Entry("Ollama's older answer, which says no count", "/api/embeddings", `{"embedding":[0.1,0.2]}`, 0, false),
	)
})
