package climate_test

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/climate"
	"github.com/agentreplay/testbed/agents/llm"
)

const (
	scopesQuestion = "Explain scope 1, scope 2 and scope 3 emissions for cities"
	vectorHeader   = "Relevant climate knowledge base excerpts were retrieved. Use them to ground your response when helpful.\n"
	vectorFooter   = "Always cite insights as coming from the internal climate knowledge base, not from personal memory."
)

// excerpt is one rendered match: its source file and score.
type excerpt struct {
	File  string
	Score float64
}

func excerpts(text string) []excerpt {
	var out []excerpt
	for _, m := range excerptRe.FindAllStringSubmatch(text, -1) {
		s, err := strconv.ParseFloat(m[2], 64)
		Expect(err).NotTo(HaveOccurred())
		out = append(out, excerpt{m[1], s})
	}
	return out
}

var _ = Describe("climate_vector_search", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	search := func(variant map[string]any, question string) agenttest.ToolReport {
		reply, rep := callTool(w, variant, climate.ToolVectorSearch, `{"question":`+strconv.Quote(question)+`}`)
		Expect(reply.Tools[0].Success).To(BeTrue())
		Expect(rep.Err).NotTo(HaveOccurred())
		return rep
	}

	DescribeTable("puts top_k excerpts into context, without paths when trimmed",
		func(variant map[string]any, n int, paths bool) {
			rep := search(variant, scopesQuestion)

			raw := string(rep.Raw)
			Expect(excerpts(raw)).To(HaveLen(5))
			Expect(strings.Count(raw, "\n   Path: kb/")).To(Equal(5))

			got := excerpts(rep.Context)
			Expect(got).To(HaveLen(n))
			Expect(got).To(Equal(excerpts(raw)[:n]))
			for i, e := range got {
				Expect(e.Score).To(BeNumerically(">=", 0.6))
				if i > 0 {
					Expect(e.Score).To(BeNumerically("<=", got[i-1].Score))
				}
			}
			Expect(got[0].File).To(Equal("scopes-in-city-inventories.md"))
			Expect(rep.Context).To(HavePrefix(vectorHeader))
			Expect(rep.Context).To(HaveSuffix(vectorFooter))
			Expect(strings.Count(rep.Context, "   Full Content: ")).To(Equal(n))
			if paths {
				Expect(rep.Context).To(Equal(raw))
				Expect(strings.Count(rep.Context, "Path: kb/")).To(Equal(n))
				Expect(rep.Context).To(ContainSubstring(", distance 0."))
			} else {
				Expect(rep.Context).NotTo(ContainSubstring("Path:"))
				Expect(rep.Context).NotTo(ContainSubstring("distance"))
			}
		},
		Entry("trim ours, top_k 3", ours, 3, false),
		Entry("trim none, top_k 5", none, 5, true),
		Entry("trim ours, top_k 1", map[string]any{"trim": "ours", "top_k": 1}, 1, false),
		Entry("trim seed, top_k 3", seed, 3, false),
	)

	DescribeTable("is not used when nothing scores min_score",
		func(variant map[string]any, question string) {
			rep := search(variant, question)
			Expect(rep.Context).To(Equal("Climate search was not used. Reason: no_relevant_matches"))
			Expect(rep.Raw).To(BeNil())
		},
		Entry("a question without climate words", ours, "What is the boiling point of water?"),
		Entry("small talk", ours, "Hello, how are you today?"),
		Entry("a climate question under a high min_score", map[string]any{"min_score": 0.99}, scopesQuestion),
	)

	DescribeTable("is not used for an empty question, and embeds nothing",
		func(arguments string) {
			reply, rep := callTool(w, ours, climate.ToolVectorSearch, arguments)
			Expect(reply.Tools[0].Success).To(BeTrue())
			Expect(rep.Context).To(Equal("Climate search was not used. Reason: empty_question"))
			Expect(w.transport.Requests(embedHost)).To(BeEmpty())
		},
		Entry("empty", `{"question":""}`),
		Entry("blank", `{"question":"  \n "}`),
		Entry("missing", `{}`),
	)

	It("embeds the knowledge base once per agent: one batch, then one call per question", func() {
		a := w.agent(ours)
		replies := run(a, "What is the difference between GPC BASIC and BASIC+?", "What do the notation keys NE and IE mean?")
		for _, r := range replies {
			Expect(names(r)).To(Equal([]string{climate.ToolVectorSearch}))
			Expect(r.Text).To(HavePrefix("According to the internal climate knowledge base ("))
		}
		Expect(replies[0].Text).To(HavePrefix("According to the internal climate knowledge base (gpc-basic-vs-basic-plus.md): "))
		Expect(replies[1].Text).To(HavePrefix("According to the internal climate knowledge base (notation-keys.md): "))

		calls := embeddingCalls(w.transport)
		Expect(calls).To(HaveLen(3))
		batch := calls[0]
		// Every document of the knowledge base gives passages, and some more
		// than one: each passage is a paragraph of exactly one document.
		docs, err := filepath.Glob("../../fixtures/climate/kb/*.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(docs).NotTo(BeEmpty())
		from := map[string]int{}
		for _, d := range docs {
			doc := string(fixture("kb/" + filepath.Base(d)))
			for _, text := range batch {
				if strings.Contains(doc, text) {
					from[d]++
				}
			}
			Expect(from[d]).To(BeNumerically(">=", 1), "%s gives no passage", d)
		}
		total := 0
		for _, n := range from {
			total += n
		}
		Expect(total).To(Equal(len(batch)), "each passage is found in exactly one document")
		Expect(len(batch)).To(BeNumerically(">", len(docs)), "some document gives more than one passage")
		for _, text := range batch {
			Expect(len(text)).To(BeNumerically(">=", 80))
			Expect(text).NotTo(HavePrefix("#"))
			Expect(text).NotTo(ContainSubstring("title:"))
		}
		Expect(calls[1:]).To(Equal([][]string{
			{"What is the difference between GPC BASIC and BASIC+?"},
			{"What do the notation keys NE and IE mean?"},
		}))

		// Another conversation with the same agent embeds only its question.
		run(a, "Explain scope 1, scope 2 and scope 3 emissions for cities")
		calls = embeddingCalls(w.transport)
		Expect(calls).To(HaveLen(4))
		Expect(calls[3]).To(Equal([]string{scopesQuestion}))

		// A new agent embeds the knowledge base again.
		run(w.agent(ours), scopesQuestion)
		calls = embeddingCalls(w.transport)
		Expect(calls).To(HaveLen(6))
		Expect(calls[4]).To(Equal(batch))
		Expect(calls[5]).To(Equal([]string{scopesQuestion}))
	})

	It("asks for the embeddings model and dimensions of climate.Info", func() {
		search(ours, scopesQuestion)
		for _, r := range w.transport.Requests(embedHost) {
			Expect(r.Method).To(Equal(http.MethodPost))
			Expect(string(r.Body)).To(ContainSubstring(`"model":"text-embedding-3-small"`))
			Expect(string(r.Body)).To(ContainSubstring(`"dimensions":64`))
		}
	})

	It("fails as a cc_error without an embeddings endpoint", func() {
		w.useModel(callOnce(climate.ToolVectorSearch, `{"question":"`+scopesQuestion+`"}`))
		cfg := w.config(ours)
		cfg.Embedder = nil
		a, err := climate.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		reply := ask(a, "scripted")
		Expect(reply.Tools[0].Success).To(BeFalse())
		Expect(reply.Tools[0].ErrorCode).To(Equal("cc_error"))
		env := decodeEnvelope(w.tracer.Reports("")[0].Context)
		Expect(env.Error).To(ContainSubstring("no embeddings endpoint configured"))
	})

	It("tries to index again after a failed attempt, in the same conversation", func() {
		failing := true
		stand := w.transport.Target(embedHost)
		down := agenttest.HostOf(httptestServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			rw.WriteHeader(http.StatusServiceUnavailable)
		})))
		w.transport.Route(embedHost, down)
		q := `{"question":"` + scopesQuestion + `"}`
		steps := []llm.Message{toolCallMessage(climate.ToolVectorSearch, q), {Role: llm.RoleAssistant, Content: "one"},
			toolCallMessage(climate.ToolVectorSearch, q), {Role: llm.RoleAssistant, Content: "two"}}
		w.useModel(&fake{Next: func(i int, _ llm.Request) llm.Message { return steps[i] }})
		a := w.agent(ours)
		replies := []climate.Reply{}
		for _, turn := range []string{"first try", "second try"} {
			if failing && turn == "second try" {
				w.transport.Route(embedHost, stand)
				failing = false
			}
			replies = append(replies, run(a, turn)...)
		}
		Expect(replies[0].Tools[0].Success).To(BeFalse(), "the embeddings endpoint was down")
		Expect(replies[1].Tools[0].Success).To(BeTrue(), "a failed index is not kept: the next search indexes again")
	})

	It("fails as a cc_error when the embeddings endpoint fails", func() {
		w.transport.Route(embedHost, agenttest.HostOf(httptestServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusInternalServerError)
			rw.Write([]byte(`{"error":{"message":"boom"}}`))
		}))))
		_, rep := callTool(w, ours, climate.ToolVectorSearch, `{"question":"`+scopesQuestion+`"}`)
		env := decodeEnvelope(rep.Context)
		Expect(env.Success).To(BeFalse())
		Expect(env.ErrorCode).To(Equal("cc_error"))
		Expect(env.Error).To(ContainSubstring("climate knowledge base unavailable"))
		Expect(env.Error).To(ContainSubstring("500"))
	})
})
