package cost_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cost"
)

var _ = Describe("the shipped table's rows for the models outside teams call", func() {
	// Every figure is worked by hand from the per-million rates the row's
	// source gives (prices/prices.json says which), the names as the
	// providers' answers spell them.
	DescribeTable("a call's usage at the row's rates",
		func(provider, model string, u cost.Usage, want float64, tier int, row string) {
			m, ok := cost.Default().Lookup(provider, model)
			Expect(ok).To(BeTrue(), "%s is priced", model)
			Expect(m.Name).To(Equal(row))
			c, err := m.Price(u)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Unpriced).To(BeEmpty())
			Expect(c.Total()).To(BeNumerically("~", want, 1e-12))
			Expect(c.Tier).To(Equal(tier))
		},
		// 6,000 plain at $2.50/M + 4,000 cached at $1.25/M + 1,000 out at $10/M = 0.015 + 0.005 + 0.01
		Entry("gpt-4o, cached input", "openai", "gpt-4o-2024-08-06", cost.Usage{Input: 10000, CacheRead: 4000, Output: 1000}, 0.03, 0, "gpt-4o"),
		// the first snapshot at its own rates, not gpt-4o's: 10,000 at $5/M + 1,000 at $15/M = 0.05 + 0.015
		Entry("gpt-4o-2024-05-13, its own row", "openai", "gpt-4o-2024-05-13", cost.Usage{Input: 10000, Output: 1000}, 0.065, 0, "gpt-4o-2024-05-13"),
		// 100,000 at $0.15/M + 10,000 at $0.60/M = 0.015 + 0.006
		Entry("gpt-4o-mini", "openai", "gpt-4o-mini-2024-07-18", cost.Usage{Input: 100000, Output: 10000}, 0.021, 0, "gpt-4o-mini"),
		// 50,000 plain at $0.10/M + 50,000 cached at $0.025/M + 5,000 out at $0.40/M = 0.005 + 0.00125 + 0.002
		Entry("gpt-4.1-nano", "openai", "gpt-4.1-nano", cost.Usage{Input: 100000, CacheRead: 50000, Output: 5000}, 0.00825, 0, "gpt-4.1-nano"),
		// 5,000 at $2/M + 8,000 out (6,000 of them reasoning, billed as output) at $8/M = 0.01 + 0.064
		Entry("o3, reasoning billed as output", "openai", "o3-2025-04-16", cost.Usage{Input: 5000, Output: 8000, Reasoning: 6000}, 0.074, 0, "o3"),
		// 5,000 at $1.10/M + 2,000 at $4.40/M = 0.0055 + 0.0088
		Entry("o3-mini", "openai", "o3-mini-2025-01-31", cost.Usage{Input: 5000, Output: 2000, Reasoning: 1500}, 0.0143, 0, "o3-mini"),
		// 1,000 plain at $15/M + 1,000 cached at $7.50/M + 3,000 out at $60/M = 0.015 + 0.0075 + 0.18
		Entry("o1", "openai", "o1-2024-12-17", cost.Usage{Input: 2000, CacheRead: 1000, Output: 3000, Reasoning: 2500}, 0.2025, 0, "o1"),
		// 20,000 at $1.25/M + 2,000 at $10/M = 0.025 + 0.02
		Entry("gpt-5.1's dated snapshot", "openai", "gpt-5.1-2025-11-13", cost.Usage{Input: 20000, Output: 2000}, 0.045, 0, "gpt-5.1"),
		// 8,000 plain at $1.75/M + 2,000 cached at $0.175/M + 1,000 at $14/M = 0.014 + 0.00035 + 0.014
		Entry("gpt-5.2", "openai", "gpt-5.2", cost.Usage{Input: 10000, CacheRead: 2000, Output: 1000}, 0.02835, 0, "gpt-5.2"),
		// 100,000 at $0.13/M; at $0.10/M
		Entry("text-embedding-3-large", "openai", "text-embedding-3-large", cost.Usage{Input: 100000}, 0.013, 0, "text-embedding-3-large"),
		Entry("text-embedding-ada-002", "openai", "text-embedding-ada-002", cost.Usage{Input: 100000}, 0.01, 0, "text-embedding-ada-002"),
		// Opus 4.5: 3,000 plain at $5/M + 4,000 read at $0.50/M + 2,000 5-minute writes at $6.25/M + 1,000 1-hour
		// writes at $10/M + 1,000 out at $25/M = 0.015 + 0.002 + 0.0125 + 0.01 + 0.025
		Entry("claude-opus-4-5, reads and both writes", "anthropic", "claude-opus-4-5-20251101",
			cost.Usage{Input: 10000, CacheRead: 4000, CacheWrite: 2000, CacheWrite1h: 1000, Output: 1000}, 0.0645, 0, "claude-opus-4-5"),
		// 1,000 at $15/M + 1,000 at $75/M = 0.015 + 0.075
		Entry("claude-opus-4-1", "anthropic", "claude-opus-4-1-20250805", cost.Usage{Input: 1000, Output: 1000}, 0.09, 0, "claude-opus-4-1"),
		Entry("claude-opus-4", "anthropic", "claude-opus-4-20250514", cost.Usage{Input: 1000, Output: 1000}, 0.09, 0, "claude-opus-4"),
		// 100,000 at $3/M + 1,000 at $15/M = 0.3 + 0.015
		Entry("claude-sonnet-4 under 200k", "anthropic", "claude-sonnet-4-20250514", cost.Usage{Input: 100000, Output: 1000}, 0.315, 0, "claude-sonnet-4"),
		// past 200k the whole call is long: 300,000 at $6/M + 1,000 at $22.50/M = 1.8 + 0.0225
		Entry("claude-sonnet-4 over 200k: the whole call at the long-context rates", "anthropic", "claude-sonnet-4-20250514",
			cost.Usage{Input: 300000, Output: 1000}, 1.8225, 200000, "claude-sonnet-4"),
		// 5,000 plain at $3/M + 5,000 read at $0.30/M + 500 out at $15/M = 0.015 + 0.0015 + 0.0075
		Entry("claude-3-7-sonnet", "anthropic", "claude-3-7-sonnet-20250219", cost.Usage{Input: 10000, CacheRead: 5000, Output: 500}, 0.024, 0, "claude-3-7-sonnet"),
		// both 3.5 Sonnet snapshots at $3/M in, $15/M out: 1,000 + 100 = 0.003 + 0.0015
		Entry("claude-3-5-sonnet, the first snapshot", "anthropic", "claude-3-5-sonnet-20240620", cost.Usage{Input: 1000, Output: 100}, 0.0045, 0, "claude-3-5-sonnet"),
		Entry("claude-3-5-sonnet, the second", "anthropic", "claude-3-5-sonnet-20241022", cost.Usage{Input: 1000, Output: 100}, 0.0045, 0, "claude-3-5-sonnet"),
		// 8,000 plain at $0.80/M + 2,000 1-hour writes at $1.60/M + 1,000 out at $4/M = 0.0064 + 0.0032 + 0.004
		Entry("claude-3-5-haiku, 1-hour writes", "anthropic", "claude-3-5-haiku-20241022", cost.Usage{Input: 10000, CacheWrite1h: 2000, Output: 1000}, 0.0136, 0, "claude-3-5-haiku"),
		// 4,000 plain at $0.25/M + 1,000 5-minute writes at $0.30/M + 5,000 read at $0.03/M + 1,000 out at $1.25/M
		// = 0.001 + 0.0003 + 0.00015 + 0.00125
		Entry("claude-3-haiku", "anthropic", "claude-3-haiku-20240307", cost.Usage{Input: 10000, CacheWrite: 1000, CacheRead: 5000, Output: 1000}, 0.0027, 0, "claude-3-haiku"),
		// 100,000 at $1.25/M + 2,000 out (1,500 thinking) at $10/M = 0.125 + 0.02
		Entry("gemini-2.5-pro under 200k", "gemini", "gemini-2.5-pro", cost.Usage{Input: 100000, Output: 2000, Reasoning: 1500}, 0.145, 0, "gemini-2.5-pro"),
		// 200,000 plain at $2.50/M + 100,000 cached at $0.25/M + 2,000 out at $15/M = 0.5 + 0.025 + 0.03
		Entry("gemini-2.5-pro over 200k: the whole call at the long-context rates", "gemini", "models/gemini-2.5-pro",
			cost.Usage{Input: 300000, CacheRead: 100000, Output: 2000}, 0.555, 200000, "gemini-2.5-pro"),
		// 80,000 plain at $0.10/M + 20,000 cached at $0.01/M + 10,000 out at $0.40/M = 0.008 + 0.0002 + 0.004
		Entry("gemini-2.5-flash-lite", "gemini", "gemini-2.5-flash-lite", cost.Usage{Input: 100000, CacheRead: 20000, Output: 10000}, 0.0122, 0, "gemini-2.5-flash-lite"),
		// 100,000 at $0.10/M + 10,000 at $0.40/M; at $0.075/M and $0.30/M
		Entry("gemini-2.0-flash", "gemini", "gemini-2.0-flash", cost.Usage{Input: 100000, Output: 10000}, 0.014, 0, "gemini-2.0-flash"),
		Entry("gemini-2.0-flash-lite", "gemini", "gemini-2.0-flash-lite", cost.Usage{Input: 100000, Output: 10000}, 0.0105, 0, "gemini-2.0-flash-lite"),
		// 250,000 at $4/M + 1,000 at $18/M = 1.0 + 0.018
		Entry("gemini-3-pro-preview over 200k", "gemini", "gemini-3-pro-preview", cost.Usage{Input: 250000, Output: 1000}, 1.018, 200000, "gemini-3-pro-preview"),
		// 10,000 at $2/M + 1,000 at $12/M = 0.02 + 0.012
		Entry("gemini-3.1-pro-preview", "gemini", "gemini-3.1-pro-preview", cost.Usage{Input: 10000, Output: 1000}, 0.032, 0, "gemini-3.1-pro-preview"),
		// 10,000 at $0.50/M + 1,000 at $3/M = 0.005 + 0.003
		Entry("gemini-3-flash-preview", "gemini", "gemini-3-flash-preview", cost.Usage{Input: 10000, Output: 1000}, 0.008, 0, "gemini-3-flash-preview"),
		// web searches: o3 at $10 per 1,000 calls (a reasoning model): 1,000 × $2/M + 100 × $8/M + 2 × $0.01
		Entry("o3's web searches", "openai", "o3", cost.Usage{Input: 1000, Output: 100, WebSearches: 2}, 0.002+0.0008+0.02, 0, "o3"),
		// Gemini 3 bills each search query, $14 per 1,000: 10,000 × $2/M + 100 × $12/M + 3 × $0.014
		Entry("gemini-3-pro-preview's search queries, each billed", "gemini", "gemini-3-pro-preview",
			cost.Usage{Input: 10000, Output: 100, WebSearches: 3}, 0.02+0.0012+0.042, 0, "gemini-3-pro-preview"),
		// Anthropic's $10 per 1,000 searches: 1,000 × $5/M + 100 × $25/M + 1 × $0.01
		Entry("claude-opus-4-5's web searches", "anthropic", "claude-opus-4-5", cost.Usage{Input: 1000, Output: 100, WebSearches: 1}, 0.005+0.0025+0.01, 0, "claude-opus-4-5"),
	)

	// The names real traffic uses for a row's model, each the same model at
	// the same price (docs/cost.md says why).
	DescribeTable("other names of a row's model",
		func(provider, model, row string) {
			m, ok := cost.Default().Lookup(provider, model)
			Expect(ok).To(BeTrue(), "%s is priced", model)
			Expect(m.Name).To(Equal(row))
		},
		// Anthropic's -latest aliases point at the newest snapshot of the model
		Entry("claude-3-5-sonnet-latest", "anthropic", "claude-3-5-sonnet-latest", "claude-3-5-sonnet"),
		Entry("claude-3-7-sonnet-latest", "anthropic", "claude-3-7-sonnet-latest", "claude-3-7-sonnet"),
		Entry("claude-3-5-haiku-latest", "anthropic", "claude-3-5-haiku-latest", "claude-3-5-haiku"),
		// a Gemini stable version is the model itself
		Entry("gemini-2.0-flash-001", "gemini", "gemini-2.0-flash-001", "gemini-2.0-flash"),
		Entry("models/gemini-2.0-flash-lite-001", "gemini", "models/gemini-2.0-flash-lite-001", "gemini-2.0-flash-lite"),
		Entry("gemini-1.5-flash-002", "gemini", "gemini-1.5-flash-002", "gemini-1.5-flash"),
		// OpenRouter's names for Claude models, dotted, over the OpenAI wire
		Entry("anthropic/claude-sonnet-4.5", "openai", "anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
		Entry("anthropic/claude-3.5-sonnet", "openai", "anthropic/claude-3.5-sonnet", "claude-3-5-sonnet"),
		Entry("anthropic/claude-haiku-4.5", "openai", "anthropic/claude-haiku-4.5", "claude-haiku-4-5"),
		Entry("anthropic/claude-opus-4.1", "openai", "anthropic/claude-opus-4.1", "claude-opus-4-1"),
		Entry("anthropic/claude-3.5-haiku-latest", "openai", "anthropic/claude-3.5-haiku-latest", "claude-3-5-haiku"),
	)

	// These pass on the old code too: they guard the aliases above from
	// matching a model billed otherwise, or one the table lacks.
	DescribeTable("names that stay unpriced",
		func(provider, model string) {
			_, ok := cost.Default().Lookup(provider, model)
			Expect(ok).To(BeFalse(), "%s is not priced", model)
		},
		// a model of its own ($5/M in, $15/M out when it was offered), not gpt-4o
		Entry("chatgpt-4o-latest", "openai", "chatgpt-4o-latest"),
		// previews with a date of their own were billed apart from the GA model
		// (2.5 Flash's 05-20 preview at $0.15/M in): not mapped
		Entry("gemini-2.5-flash-preview-05-20", "gemini", "gemini-2.5-flash-preview-05-20"),
		Entry("gemini-2.5-pro-preview-06-05", "gemini", "gemini-2.5-pro-preview-06-05"),
		// -latest of a model the table lacks
		Entry("claude-3-opus-latest", "anthropic", "claude-3-opus-latest"),
		Entry("gemini-flash-latest", "gemini", "gemini-flash-latest"),
		// a Gemini API embedding model with three digits of its own name
		Entry("text-embedding-004", "gemini", "text-embedding-004"),
		// Bedrock's and Vertex AI's names: their regions bill apart
		Entry("Bedrock's claude-3-5-sonnet", "anthropic", "anthropic.claude-3-5-sonnet-20241022-v2:0"),
		Entry("Vertex AI's claude-sonnet-4", "anthropic", "claude-sonnet-4@20250514"),
		Entry("an unknown model's dotted Claude-like name", "openai", "anthropic/claude-9.9-sonnet"),
		// a newer model is not an older row's: claude-opus-4.6 is not claude-opus-4
		Entry("anthropic/claude-opus-4.6", "openai", "anthropic/claude-opus-4.6"),
		Entry("claude-opus-4-6", "anthropic", "claude-opus-4-6"),
		// ChatGPT's model, a -latest alias of no row
		Entry("gpt-5.1-chat-latest", "openai", "gpt-5.1-chat-latest"),
	)

	It("says where every row comes from and when", func() {
		t := cost.Default()
		n := 0
		for _, provider := range []string{"openai", "anthropic", "gemini", "ollama"} {
			for _, name := range t.Models(provider) {
				m, _ := t.Lookup("", name)
				Expect(m.Source).NotTo(BeEmpty(), name)
				Expect(m.AsOf).To(MatchRegexp(`^\d{4}-\d{2}-\d{2}$`), name)
				n++
			}
		}
		Expect(n).To(BeNumerically(">=", 41))
	})
})
