package cost_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("pricing a trace's calls", func() {
	p := cost.Pricer{Table: cost.Default(), Models: map[string]string{"gemma3:4b": "ollama/gemma3:4b"}}

	It("prices from the provider-reported usage when the call has one, and says so", func() {
		// Haiku 4.5: 1,000 plain at $1/M + 5,000 read at $0.10/M + 2,000 5-minute writes at $1.25/M
		// + 1,000 1-hour writes at $2/M + 300 out at $5/M; testbed's own counts are ignored
		c := &trace.LLMCall{Model: "claude-haiku-4-5", Input: trace.Parts{User: 10}, Output: 1,
			Reported: &trace.Usage{Input: 9000, CacheRead: 5000, CacheWrite: 3000, CacheWrite1h: 1000, Output: 300}}
		got := p.Call("anthropic", c)
		Expect(got).NotTo(BeNil())
		Expect(got.USD).To(BeNumerically("~", 0.0075, 1e-12))
		Expect(got.From).To(Equal(trace.CostFromReported))
		Expect(got.Model).To(Equal("claude-haiku-4-5"))
	})

	It("prices from testbed's counts when the provider reported none", func() {
		// 1,000 in at $0.40/M + 200 out at $1.60/M
		c := &trace.LLMCall{Model: "gpt-4.1-mini", Input: trace.Parts{System: 600, User: 400}, Output: 200}
		got := p.Call("openai", c)
		Expect(got.USD).To(BeNumerically("~", 0.00072, 1e-12))
		Expect(got.From).To(Equal(trace.CostFromCounted))
	})

	It("maps a suite's model name to the row it stands for", func() {
		got := p.Call("openai", &trace.LLMCall{Model: "gemma3:4b", Input: trace.Parts{User: 100}, Output: 5})
		Expect(got).NotTo(BeNil())
		Expect(got.Model).To(Equal("ollama/gemma3:4b"))
		Expect(cost.Pricer{Table: cost.Default()}.Call("openai", &trace.LLMCall{Model: "gemma3:4b"})).To(BeNil(), "unmapped, the bare name is no row")
	})

	It("leaves an unknown model unpriced, never $0, and a trace's sums say how many", func() {
		events := []trace.Event{
			{Kind: trace.KindLLM, LLM: &trace.LLMCall{Model: "mystery-model", Input: trace.Parts{User: 100}, Output: 5}},
			{Kind: trace.KindLLM, LLM: &trace.LLMCall{Model: "gpt-4.1-mini", Input: trace.Parts{User: 1000}, Output: 200}},
		}
		p.Trace("openai", events)
		Expect(events[0].LLM.Cost).To(BeNil())
		m := trace.Measure(events)
		Expect(m.PricedCalls).To(Equal(1))
		Expect(m.UnpricedCalls).To(Equal(1))
		Expect(m.CountedCalls).To(Equal(1))
		Expect(m.CostUSD).To(BeNumerically("~", 0.00072, 1e-12))
	})

	It("bills nothing for a call that failed without usage", func() {
		got := p.Call("openai", &trace.LLMCall{Model: "gpt-4.1-mini", Input: trace.Parts{User: 1000}, Error: "429 Too Many Requests"})
		Expect(got.USD).To(BeZero())
		Expect(got.From).To(Equal(trace.CostFromFailed))
	})

	It("estimates a request's most from its prompt and its max_tokens", func() {
		// 2,000 in at $2/M + 1,000 out at $8/M
		usd, ok := p.Estimate("openai", "openai/gpt-4.1", 2000, 1000)
		Expect(ok).To(BeTrue())
		Expect(usd).To(BeNumerically("~", 0.012, 1e-12))
		_, ok = p.Estimate("openai", "mystery-model", 2000, 1000)
		Expect(ok).To(BeFalse())
	})
})
