package cost_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("pricing embeddings calls", func() {
	p := cost.Pricer{Table: cost.Default()}
	reported := func(n int) *int { return &n }

	DescribeTable("at the model's input rate, from the provider's tokens when it reported them",
		func(provider string, c trace.EmbedCall, usd float64, from, row string) {
			got := p.Embed(provider, &c)
			Expect(got).NotTo(BeNil())
			Expect(got.USD).To(BeNumerically("~", usd, 1e-15))
			Expect(got.From).To(Equal(from))
			Expect(got.Model).To(Equal(row))
		},
		// the climate knowledge base: 7,155 tokens at $0.02/M = $0.0001431;
		// testbed's count (7,002) is ignored
		Entry("OpenAI, reported", "openai", trace.EmbedCall{Model: "text-embedding-3-small", Texts: 24, Input: 7002, Reported: reported(7155)},
			0.0001431, trace.CostFromReported, "text-embedding-3-small"),
		// 15 counted tokens at $0.02/M = $0.0000003
		Entry("OpenAI, counted", "openai", trace.EmbedCall{Model: "text-embedding-3-small", Texts: 1, Input: 15},
			0.0000003, trace.CostFromCounted, "text-embedding-3-small"),
		// the Gemini API reports no usage: 1,000 counted tokens at $0.15/M = $0.00015
		Entry("Gemini, counted", "gemini", trace.EmbedCall{Model: "gemini-embedding-001", Texts: 3, Input: 1000},
			0.00015, trace.CostFromCounted, "gemini-embedding-001"),
		Entry("a failed call without usage is billed nothing", "openai", trace.EmbedCall{Model: "text-embedding-3-small", Input: 500, Error: "429 Too Many Requests"},
			0.0, trace.CostFromFailed, "text-embedding-3-small"),
	)

	It("leaves an unknown embeddings model unpriced, never $0", func() {
		Expect(p.Embed("openai", &trace.EmbedCall{Model: "mystery-embedder", Input: 100})).To(BeNil())
	})

	It("prices a trace's embeddings calls beside its chat calls, and keeps them out of the chat figures", func() {
		events := []trace.Event{
			// 1,000 in at $2/M + 100 out at $8/M = $0.0028
			{Kind: trace.KindLLM, LLM: &trace.LLMCall{Model: "gpt-4.1", Input: trace.Parts{User: 1000}, Output: 100}},
			// 7,155 reported at $0.02/M = $0.0001431
			{Kind: trace.KindEmbed, Embed: &trace.EmbedCall{Model: "text-embedding-3-small", Texts: 24, Input: 7002, Reported: reported(7155)}},
			// 15 counted at $0.02/M = $0.0000003
			{Kind: trace.KindEmbed, Embed: &trace.EmbedCall{Model: "text-embedding-3-small", Texts: 1, Input: 15}},
			{Kind: trace.KindEmbed, Embed: &trace.EmbedCall{Model: "mystery-embedder", Texts: 1, Input: 9}},
		}
		p.Trace("openai", events)
		m := trace.Measure(events)
		Expect(m.LLMCalls).To(Equal(1))
		Expect(m.InputTokens).To(Equal(1000), "embedding inputs are no prompt's tokens")
		Expect(m.EmbedCalls).To(Equal(3))
		Expect(m.EmbedTokens).To(Equal(7155 + 15 + 9))
		Expect(m.EmbedCostUSD).To(BeNumerically("~", 0.0001434, 1e-15))
		Expect(m.CostUSD).To(BeNumerically("~", 0.0028+0.0001434, 1e-15))
		Expect(m.PricedCalls).To(Equal(3))
		Expect(m.UnpricedCalls).To(Equal(1))
		Expect(m.CountedCalls).To(Equal(2))
	})

	It("estimates an embeddings request at its input's tokens", func() {
		// 50,000 tokens at $0.02/M
		usd, ok := p.Estimate("openai", "text-embedding-3-small", 50000, 0)
		Expect(ok).To(BeTrue())
		Expect(usd).To(BeNumerically("~", 0.001, 1e-15))
	})
})
