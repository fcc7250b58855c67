package standin_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("the stand-in embeddings", func() {
	var srv *standin.Server

	BeforeEach(func() { srv = startStandin(standin.Options{}) })

	embed := func(dims int, texts ...string) ([][]float32, llm.Usage) {
		vecs, usage, err := embedder(srv, dims).Embed(context.Background(), texts)
		Expect(err).NotTo(HaveOccurred())
		Expect(vecs).To(HaveLen(len(texts)))
		return vecs, usage
	}

	It("gives the same text the same vector, in one call or in two, alone or in a batch", func() {
		a, _ := embed(64, "What is the difference between GPC BASIC and BASIC+?")
		b, _ := embed(64, "landfill gas", "What is the difference between GPC BASIC and BASIC+?")
		Expect(b[1]).To(Equal(a[0]))
		Expect(b[0]).NotTo(Equal(a[0]))
	})

	DescribeTable("returns unit vectors",
		func(text string) {
			v, _ := embed(64, text)
			var n float64
			for _, x := range v[0] {
				n += float64(x) * float64(x)
			}
			Expect(math.Sqrt(n)).To(BeNumerically("~", 1, 1e-5))
		},
		Entry("a climate question", "Explain scope 1, scope 2 and scope 3 emissions for cities"),
		Entry("words without a concept", "What is the boiling point of water?"),
		Entry("only stop words", "the of and"),
		Entry("nothing", ""),
	)

	It("puts \"scope 2 emissions\" closer to a scopes passage than to a landfill passage", func() {
		var scopes, landfill string
		for _, p := range passages("scopes-in-city-inventories.md") {
			if strings.HasPrefix(p, `The idea of "scopes"`) {
				scopes = p
			}
		}
		for _, p := range passages("waste-sector-methods.md") {
			if strings.HasPrefix(p, "Methane from a landfill") {
				landfill = p
			}
		}
		Expect(scopes).NotTo(BeEmpty())
		Expect(landfill).NotTo(BeEmpty())
		v, _ := embed(64, "scope 2 emissions", scopes, landfill)
		toScopes, toLandfill := cosine(v[0], v[1]), cosine(v[0], v[2])
		Expect(toScopes).To(BeNumerically(">=", 0.6))
		Expect(toLandfill).To(BeNumerically("<", 0.6))
		Expect(toScopes).To(BeNumerically(">", toLandfill+0.3))
	})

	// Each knowledge-base document's headline question scores at least the
	// agent's min_score (0.6) against the best passage of that document.
	DescribeTable("finds each knowledge-base document from its headline question",
		func(doc, question string) {
			ps := passages(doc)
			v, _ := embed(64, append([]string{question}, ps...)...)
			best := 0.0
			for _, p := range v[1:] {
				best = math.Max(best, cosine(v[0], p))
			}
			Expect(best).To(BeNumerically(">=", 0.6), "%s: best passage scores %.3f", doc, best)
		},
		Entry(nil, "data-quality-and-uncertainty.md", "How should a city report data quality and uncertainty?"),
		Entry(nil, "global-warming-potentials-ar5-ar6.md", "Which global warming potential values does AR6 use for methane?"),
		Entry(nil, "gpc-basic-vs-basic-plus.md", "What is the difference between GPC BASIC and BASIC+?"),
		Entry(nil, "grid-emission-factors-scope2.md", "How do grid emission factors affect scope 2 accounting?"),
		Entry(nil, "notation-keys.md", "What do the notation keys NE and IE mean?"),
		Entry(nil, "scopes-in-city-inventories.md", "Explain scope 1, scope 2 and scope 3 emissions for cities"),
		Entry(nil, "transportation-methods.md", "Should transport emissions use fuel sales or vehicle kilometres travelled?"),
		Entry(nil, "waste-sector-methods.md", "How is landfill methane estimated with first order decay?"),
	)

	It("scores a question without climate words below min_score against every passage", func() {
		for _, doc := range []string{"scopes-in-city-inventories.md", "waste-sector-methods.md", "gpc-basic-vs-basic-plus.md"} {
			v, _ := embed(64, append([]string{"What is the boiling point of water?"}, passages(doc)...)...)
			for _, p := range v[1:] {
				Expect(cosine(v[0], p)).To(BeNumerically("<", 0.6))
			}
		}
	})

	DescribeTable("honours the dimensions asked for",
		func(dims, want int) {
			v, _ := embed(dims, "scope 2 emissions")
			Expect(v[0]).To(HaveLen(want))
		},
		Entry("64, the agent's", 64, 64),
		Entry("128", 128, 128),
		Entry("256", 256, 256),
		Entry("1536", 1536, 1536),
		Entry("none asked: 64", 0, 64),
	)

	It("reports the input tokens it counted", func() {
		_, one := embed(64, "scope 2 emissions")
		_, two := embed(64, "scope 2 emissions", "How is landfill methane estimated with first order decay?")
		Expect(one.InputTokens).To(BeNumerically(">", 0))
		Expect(two.InputTokens).To(BeNumerically(">", one.InputTokens))
		Expect(two.OutputTokens).To(BeZero())
	})

	It("models an embeddings call as cheaper than a chat call on the same question", func() {
		const q = "What is the difference between GPC BASIC and BASIC+?"
		post := func(path string, body []byte) (http.Header, []byte) {
			resp, err := http.Post(srv.URL()+path, "application/json", bytes.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", b)
			return resp.Header, b
		}
		eh, eb := post("/v1/embeddings", []byte(`{"model":"text-embedding-3-small","input":"`+q+`","dimensions":64}`))
		var emb struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float64 `json:"embedding"`
			} `json:"data"`
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
				TotalTokens  int `json:"total_tokens"`
			} `json:"usage"`
		}
		Expect(json.Unmarshal(eb, &emb)).To(Succeed())
		Expect(emb.Data).To(HaveLen(1))
		Expect(emb.Data[0].Embedding).To(HaveLen(64))
		Expect(emb.Usage.PromptTokens).To(BeNumerically(">", 0))
		Expect(emb.Usage.TotalTokens).To(Equal(emb.Usage.PromptTokens))

		el, err := time.ParseDuration(eh.Get(cassette.LatencyHeader))
		Expect(err).NotTo(HaveOccurred())
		lat := standin.DefaultLatency()
		Expect(el).To(Equal(lat.Fixed/4 + lat.PerInputToken*time.Duration(emb.Usage.PromptTokens)/4))

		ch, _ := post("/v1/chat/completions", wireBody(advisorRequest(userSays(q))))
		cl, err := time.ParseDuration(ch.Get(cassette.LatencyHeader))
		Expect(err).NotTo(HaveOccurred())
		Expect(el).To(BeNumerically(">", 0))
		Expect(el).To(BeNumerically("<", cl))
	})

	It("sends base64 vectors, when asked, of the same float32 values as the JSON numbers", func() {
		post := func(format string) []byte {
			body := `{"model":"text-embedding-3-small","input":["scope 2 emissions","landfill gas"],"dimensions":64,"encoding_format":"` + format + `"}`
			resp, err := http.Post(srv.URL()+"/v1/embeddings", "application/json", strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", b)
			return b
		}
		var floats struct {
			Data []struct {
				Embedding []float64 `json:"embedding"`
			} `json:"data"`
		}
		var packed struct {
			Data []struct {
				Embedding []byte `json:"embedding"` // a JSON string decodes as base64
			} `json:"data"`
		}
		Expect(json.Unmarshal(post("float"), &floats)).To(Succeed())
		Expect(json.Unmarshal(post("base64"), &packed)).To(Succeed())
		Expect(packed.Data).To(HaveLen(2))
		for i, d := range packed.Data {
			Expect(d.Embedding).To(HaveLen(4 * 64))
			for k, x := range floats.Data[i].Embedding {
				got := math.Float32frombits(binary.LittleEndian.Uint32(d.Embedding[4*k:]))
				Expect(got).To(Equal(float32(x)), "vector %d, dimension %d", i, k)
			}
		}
	})

	It("refuses an encoding_format other than float and base64", func() {
		resp, err := http.Post(srv.URL()+"/v1/embeddings", "application/json",
			strings.NewReader(`{"model":"m","input":"x","encoding_format":"int8"}`))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
	})

	It("refuses an input that is neither a string nor a list of strings", func() {
		resp, err := http.Post(srv.URL()+"/v1/embeddings", "application/json", bytes.NewReader([]byte(`{"model":"m","input":42}`)))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
	})
})
