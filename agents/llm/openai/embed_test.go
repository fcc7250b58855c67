package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
	"github.com/agentreplay/testbed/agents/llm/openai"
)

// vector is v as the API sends a base64 embedding: little-endian float32s.
func vector(v ...float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// embeddings is an embeddings answer with the given (index, vector) items.
func embeddings(items ...string) string {
	data := ""
	for i, it := range items {
		if i > 0 {
			data += ","
		}
		data += it
	}
	return `{"object":"list","model":"text-embedding-3-small","data":[` + data + `],"usage":{"prompt_tokens":7,"total_tokens":7}}`
}

func item(index int, b64 string) string {
	return fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%q}`, index, b64)
}

var _ = Describe("Embedder", func() {
	embed := func(status int, reply string, dimensions int, texts ...string) (map[string]any, [][]float32, llm.Usage, error) {
		srv := llmtest.NewServer(status, reply)
		DeferCleanup(srv.Close)
		e := openai.NewEmbedder(srv.URL+"/v1", "text-embedding-3-small", "k", dimensions, srv.Client())
		vecs, usage, err := e.Embed(context.Background(), texts)
		r, sent, rerr := srv.Only()
		Expect(rerr).NotTo(HaveOccurred())
		Expect(r.Path).To(Equal("/v1/embeddings"))
		return sent, vecs, usage, err
	}

	It("asks for base64 vectors of the model and dimensions, and puts them in the order of the texts", func() {
		sent, vecs, usage, err := embed(http.StatusOK, embeddings(item(1, vector(3, 4)), item(0, vector(1, 2))), 2, "a", "b")
		Expect(err).NotTo(HaveOccurred())
		Expect(sent).To(Equal(map[string]any{"model": "text-embedding-3-small", "input": []any{"a", "b"},
			"encoding_format": "base64", "dimensions": 2.0}))
		Expect(vecs).To(Equal([][]float32{{1, 2}, {3, 4}}))
		Expect(usage).To(Equal(llm.Usage{InputTokens: 7}))
	})

	It("leaves dimensions out when none are asked for", func() {
		sent, _, _, err := embed(http.StatusOK, embeddings(item(0, vector(1))), 0, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(sent).NotTo(HaveKey("dimensions"))
	})

	DescribeTable("says what its requests ask of their vectors, as it sends them: base64, and its dimensions when it has them",
		func(dimensions int, want llm.EmbedParams) {
			e := openai.NewEmbedder("http://localhost/v1", "text-embedding-3-small", "k", dimensions, http.DefaultClient)
			Expect(e.Params()).To(Equal(want))
		},
		Entry("64 dimensions", 64, llm.EmbedParams{Formats: []string{"base64"}, Dimensions: 64}),
		Entry("the model's own", 0, llm.EmbedParams{Formats: []string{"base64"}}),
	)

	DescribeTable("refuses an answer that does not give one vector per text",
		func(reply, want string) {
			_, _, _, err := embed(http.StatusOK, reply, 0, "a", "b")
			Expect(err).To(MatchError(want))
		},
		Entry("too few", embeddings(item(0, vector(1))), "embeddings: asked for 2 vectors, got 1"),
		Entry("an index out of range", embeddings(item(0, vector(1)), item(2, vector(2))), "embeddings: index 2 out of range"),
	)

	It("returns an error status as an llm.StatusError", func() {
		_, _, _, err := embed(http.StatusBadRequest, `{"error":{"message":"bad model"}}`, 0, "a")
		var se *llm.StatusError
		Expect(err).To(BeAssignableToTypeOf(se))
		Expect(err.(*llm.StatusError).Code).To(Equal(http.StatusBadRequest))
	})
})
