package cost_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cost"
)

// price prices u for model in the default table.
func price(provider, model string, u cost.Usage) cost.Cost {
	GinkgoHelper()
	m, ok := cost.Default().Lookup(provider, model)
	Expect(ok).To(BeTrue(), "%s is priced", model)
	c, err := m.Price(u)
	Expect(err).NotTo(HaveOccurred())
	return c
}

var _ = Describe("pricing a call", func() {
	// Every figure below is worked by hand from the provider's published
	// per-million rates (prices/prices.json says which).
	DescribeTable("the providers' bills, by hand",
		func(provider, model string, u cost.Usage, want float64, tier int) {
			c := price(provider, model, u)
			Expect(c.Total()).To(BeNumerically("~", want, 1e-12))
			Expect(c.Tier).To(Equal(tier))
		},
		// 1,000 in at $0.40/M + 200 out at $1.60/M = 0.0004 + 0.00032
		Entry("OpenAI, plain", "openai", "gpt-4.1-mini", cost.Usage{Input: 1000, Output: 200}, 0.00072, 0),
		// 600 plain at $0.40/M + 400 cached at $0.10/M + 200 out at $1.60/M = 0.00024 + 0.00004 + 0.00032
		Entry("OpenAI, cached input", "openai", "gpt-4.1-mini", cost.Usage{Input: 1000, CacheRead: 400, Output: 200}, 0.0006, 0),
		Entry("OpenAI, a dated snapshot is its model", "openai", "gpt-4.1-mini-2025-04-14", cost.Usage{Input: 1000, Output: 200}, 0.00072, 0),
		// o4-mini: 2,000 in at $1.10/M + 3,000 out (2,500 of them reasoning, billed as output) at $4.40/M = 0.0022 + 0.0132
		Entry("OpenAI, reasoning billed as output", "openai", "o4-mini", cost.Usage{Input: 2000, Output: 3000, Reasoning: 2500}, 0.0154, 0),
		// gpt-5-mini, a grader that thinks: 3,000 in (1,000 of them cached at $0.025/M, the rest at
		// $0.25/M) + 1,200 out (1,000 of them reasoning) at $2/M = 0.0005 + 0.000025 + 0.0024
		Entry("OpenAI, a GPT-5 grader's dated snapshot, cached and reasoning", "openai", "gpt-5-mini-2025-08-07",
			cost.Usage{Input: 3000, CacheRead: 1000, Output: 1200, Reasoning: 1000}, 0.002925, 0),
		// gpt-5: 10,000 in at $1.25/M + 500 out at $10/M; gpt-5-nano: the same at $0.05/M and $0.40/M
		Entry("OpenAI, gpt-5", "openai", "gpt-5", cost.Usage{Input: 10000, Output: 500}, 0.0175, 0),
		Entry("OpenAI, gpt-5-nano", "openai", "gpt-5-nano", cost.Usage{Input: 10000, Output: 500}, 0.0007, 0),
		// 10,000 in at $0.02/M
		Entry("OpenAI, embeddings", "openai", "text-embedding-3-small", cost.Usage{Input: 10000}, 0.0002, 0),
		// Haiku 4.5: 1,000 plain at $1/M + 5,000 cache read at $0.10/M + 2,000 5-minute writes at $1.25/M
		// + 1,000 1-hour writes at $2/M + 300 out at $5/M = 0.001 + 0.0005 + 0.0025 + 0.002 + 0.0015
		Entry("Anthropic, cache reads and both cache writes", "anthropic", "claude-haiku-4-5",
			cost.Usage{Input: 9000, CacheRead: 5000, CacheWrite: 2000, CacheWrite1h: 1000, Output: 300}, 0.0075, 0),
		// Sonnet 4.5 at 150,000 in: $3/M + 1,000 out at $15/M = 0.45 + 0.015
		Entry("Anthropic, under the long-context tier", "anthropic", "claude-sonnet-4-5", cost.Usage{Input: 150000, Output: 1000}, 0.465, 0),
		// at 250,000 in the whole call is billed long: $6/M in + 1,000 out at $22.50/M = 1.5 + 0.0225
		Entry("Anthropic, over 200k tokens: the whole call at the long-context rates", "anthropic", "claude-sonnet-4-5",
			cost.Usage{Input: 250000, Output: 1000}, 1.5225, 200000),
		// 2.5 Flash: 4,000 in at $0.30/M + 1,500 out (1,000 thinking) at $2.50/M = 0.0012 + 0.00375
		Entry("Gemini, thinking billed as output", "gemini", "gemini-2.5-flash", cost.Usage{Input: 4000, Output: 1500, Reasoning: 1000}, 0.00495, 0),
		// 3,000 plain at $0.30/M + 1,000 cached at $0.03/M + 100 out at $2.50/M = 0.0009 + 0.00003 + 0.00025
		Entry("Gemini, cached content", "gemini", "gemini-2.5-flash", cost.Usage{Input: 4000, CacheRead: 1000, Output: 100}, 0.00118, 0),
		// 1.5 Flash over 128k: 200,000 in at $0.15/M + 1,000 out at $0.60/M = 0.03 + 0.0006
		Entry("Gemini, over the 128k tier", "gemini", "gemini-1.5-flash", cost.Usage{Input: 200000, Output: 1000}, 0.0306, 128000),
		// and at 100,000: $0.075/M + $0.30/M = 0.0075 + 0.0003
		Entry("Gemini, under it", "gemini", "gemini-1.5-flash", cost.Usage{Input: 100000, Output: 1000}, 0.0078, 0),
		Entry("a self-hosted Ollama model: priced, at $0 a token", "ollama", "gemma3:4b", cost.Usage{Input: 5000, Output: 500}, 0.0, 0),
	)

	It("leaves a model the table lacks unpriced, never $0", func() {
		_, ok := cost.Default().Lookup("openai", "gpt-unknown-9")
		Expect(ok).To(BeFalse())
		var none *cost.Table
		_, ok = none.Lookup("openai", "gpt-4.1-mini")
		Expect(ok).To(BeFalse(), "no table prices nothing")
	})

	It("refuses parts that do not add up", func() {
		m, _ := cost.Default().Lookup("openai", "gpt-4.1-mini")
		_, err := m.Price(cost.Usage{Input: 10, CacheRead: 20})
		Expect(err).To(MatchError(ContainSubstring("20 cached prompt tokens in a prompt of 10")))
		_, err = m.Price(cost.Usage{Output: 10, Reasoning: 11})
		Expect(err).To(MatchError(ContainSubstring("11 reasoning tokens in an answer of 10")))
		_, err = m.Price(cost.Usage{Input: 10, CacheRead: 4, CacheReadAudio: 5})
		Expect(err).To(MatchError(ContainSubstring("5 cached audio tokens in 4 cached prompt tokens")))
	})

	It("says where each of its rows comes from and when", func() {
		for _, name := range []string{"gpt-4.1", "gpt-4.1-mini", "text-embedding-3-small", "claude-haiku-4-5", "gemini-2.5-flash", "gemini-1.5-flash", "ollama/gemma3:4b", "ollama/qwen3:14b"} {
			m, ok := cost.Default().Lookup("", name)
			Expect(ok).To(BeTrue(), name)
			Expect(m.Source).NotTo(BeEmpty(), name)
			Expect(m.AsOf).To(MatchRegexp(`^\d{4}-\d{2}-\d{2}$`), name)
		}
	})
})

var _ = Describe("reading a LiteLLM table", func() {
	write := func(text string) string {
		path := filepath.Join(GinkgoT().TempDir(), "prices.json")
		Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
		return path
	}

	It("reads LiteLLM's rows: provider-prefixed keys, tiers, 1-hour writes, its sample_spec and image rows left out", func() {
		t, err := cost.Load(write(`{
			"sample_spec": {"input_cost_per_token": 0, "output_cost_per_token": 0, "mode": "one of: chat, embedding, ..."},
			"dall-e-3": {"mode": "image_generation", "input_cost_per_pixel": 1e-8, "output_cost_per_pixel": 0},
			"gemini/gemini-9-pro": {"litellm_provider": "gemini", "mode": "chat", "input_cost_per_token": 1e-6,
				"output_cost_per_token": 4e-6, "input_cost_per_token_above_200k_tokens": 2e-6, "output_cost_per_token_above_200k_tokens": 8e-6,
				"output_cost_per_reasoning_token": 5e-6, "supports_vision": true}
		}`))
		Expect(err).NotTo(HaveOccurred())
		_, ok := t.Lookup("", "sample_spec")
		Expect(ok).To(BeFalse())
		_, ok = t.Lookup("openai", "dall-e-3")
		Expect(ok).To(BeFalse())
		m, ok := t.Lookup("gemini", "gemini-9-pro")
		Expect(ok).To(BeTrue(), "found under the provider's prefix")
		// 300,000 in at $2/M + 2,000 out (1,000 reasoning): 1,000 at $8/M and 1,000 at the reasoning rate,
		// which has no long-context rate of its own: $5/M = 0.6 + 0.008 + 0.005
		c, err := m.Price(cost.Usage{Input: 300000, Output: 2000, Reasoning: 1000})
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Total()).To(BeNumerically("~", 0.613, 1e-12))
	})

	// A Sonnet-like row: $3/M in, $15/M out, 5-minute writes at $3.75/M, 1-hour
	// at $6/M, reads at $0.30/M; past 200k, $6/M in and $22.50/M out, the
	// cache's rates the same multiples of the long input rate. 250,000 in:
	// 50,000 plain at $6/M + 100,000 read at $0.60/M + 40,000 5-minute writes at
	// $7.50/M + 60,000 1-hour writes at $12/M + 1,000 out at $22.50/M
	// = 0.3 + 0.06 + 0.3 + 0.72 + 0.0225.
	DescribeTable("prices every part of a call past a long-context tier at the tier's rates, the cache's as multiples of its input rate",
		func(row string) {
			t, err := cost.Load(write(`{"claude-x": {"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5,
				"cache_creation_input_token_cost": 3.75e-6, "cache_creation_input_token_cost_above_1hr": 6e-6, "cache_read_input_token_cost": 3e-7,
				"input_cost_per_token_above_200k_tokens": 6e-6, "output_cost_per_token_above_200k_tokens": 2.25e-5` + row + `}}`))
			Expect(err).NotTo(HaveOccurred())
			m, ok := t.Lookup("anthropic", "claude-x")
			Expect(ok).To(BeTrue())
			c, err := m.Price(cost.Usage{Input: 250000, CacheRead: 100000, CacheWrite: 40000, CacheWrite1h: 60000, Output: 1000})
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Tier).To(Equal(200000))
			Expect(c.Total()).To(BeNumerically("~", 1.4025, 1e-12))
		},
		Entry("the tier's cache rates given, the 1-hour write's as LiteLLM keys it", `, "cache_creation_input_token_cost_above_200k_tokens": 7.5e-6,
			"cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-5, "cache_read_input_token_cost_above_200k_tokens": 6e-7`),
		Entry("none of them given: the base's, scaled as the input rate is", ``),
	)

	It("prices claude-sonnet-4-5's 1-hour writes past 200k at twice its long-context input rate", func() {
		c := price("anthropic", "claude-sonnet-4-5", cost.Usage{Input: 250000, CacheRead: 100000, CacheWrite: 40000, CacheWrite1h: 60000, Output: 1000})
		Expect(c.Total()).To(BeNumerically("~", 1.4025, 1e-12))
	})

	It("names every bad rate and row at once, each as path:line with the model", func() {
		path := write(`{
  "a": {"input_cost_per_token": "cheap", "output_cost_per_token": 1},
  "b": {"input_cost_per_token": 1,
        "output_cost_per_token": [2]},
  "c": {"input_cost_per_token": 4e-7, "output_cost_per_token": -1e-3},
  "d": 3
}`)
		_, err := cost.Load(path)
		Expect(err).To(MatchError(And(ContainSubstring(path+`:2: "a": input_cost_per_token is not a number`),
			ContainSubstring(path+`:4: "b": output_cost_per_token is not a number`),
			ContainSubstring(path+`:5: "c": output_cost_per_token is negative: -1e-3; a price is 0 or more`),
			ContainSubstring(path+`:6: "d": a row is an object of rates, not 3`))))
	})

	It("says when the file is not a table, at the line where it stops being one", func() {
		_, err := cost.Load(write(`[1, 2]`))
		Expect(err).To(MatchError(ContainSubstring(":1: not a LiteLLM price table")))
		path := write("{\n  \"gpt-4.1\": {\"input_cost_per_token\": 1e-7,\n}\n")
		_, err = cost.Load(path)
		Expect(err).To(MatchError(ContainSubstring(path + ":3: not a LiteLLM price table")))
		cut := write("{\n  \"gpt-4.1\": {\"input_cost_per_token\": 1e-7,\n")
		_, err = cost.Load(cut)
		Expect(err).To(MatchError(ContainSubstring(cut + ":3: not a LiteLLM price table")))
	})
})
