package cost_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cost"
)

// A row in LiteLLM's schema with a service tier's, audio and per-search
// rates (numbers of our own, in its key names).
const tieredRow = `{"rail-model": {"litellm_provider": "anthropic", "mode": "chat",
	"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 2e-07,
	"input_cost_per_token_batches": 1e-06, "output_cost_per_token_batches": 5e-06,
	"input_cost_per_token_flex": 1e-06,
	"input_cost_per_audio_token": 8e-06, "output_cost_per_audio_token": 1.6e-05, "cache_read_input_audio_token_cost": 4e-07,
	"search_context_cost_per_query": {"search_context_size_low": 0.005, "search_context_size_medium": 0.01, "search_context_size_high": 0.02}}}`

var _ = DescribeTable("a LiteLLM row's service tiers, audio and search rates",
	func(u cost.Usage, usd float64, unpriced bool) {
		t, err := cost.Parse([]byte(tieredRow), "rail.json")
		Expect(err).NotTo(HaveOccurred())
		m, ok := t.Lookup("anthropic", "rail-model")
		Expect(ok).To(BeTrue())
		c, err := m.Price(u)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Total()).To(BeNumerically("~", usd, 1e-12))
		Expect(c.Unpriced != nil).To(Equal(unpriced), "%q", c.Unpriced)
	},
	// 9,000 × $1/M + 1,000 cached × $0.10/M (the base's read scaled as the tier's input) + 500 × $5/M
	Entry("batch: the _batches rates, the cached read scaled", cost.Usage{Input: 10000, CacheRead: 1000, Output: 500, Tier: "batch"}, 0.009+0.0001+0.0025, false),
	Entry("flex with an input rate and no output rate: not a tier the row prices", cost.Usage{Input: 1000, Output: 10, Tier: "flex"}, 0.0, true),
	Entry("priority, which the row has no rates for", cost.Usage{Input: 1000, Output: 10, Tier: "priority"}, 0.0, true),
	// 200 text × $2/M + 800 audio × $8/M + 100 text × $10/M + 400 audio × $16/M
	Entry("audio in and out at the audio rates", cost.Usage{Input: 1000, InputAudio: 800, Output: 500, OutputAudio: 400}, 0.0004+0.0064+0.001+0.0064, false),
	// 400 × $2/M + 100 cached text × $0.20/M + 500 cached audio × $0.40/M
	Entry("cached audio at cache_read_input_audio_token_cost", cost.Usage{Input: 1000, CacheRead: 600, CacheReadAudio: 500}, 0.0008+0.00002+0.0002, false),
	// at batch, every rate halved as its input rate is: 400 × $1/M + 100 × $0.10/M + 500 × $0.20/M
	Entry("batch: the cached audio rate scaled", cost.Usage{Input: 1000, CacheRead: 600, CacheReadAudio: 500, Tier: "batch"}, 0.0004+0.00001+0.0001, false),
	// 1,000 × $2/M + 4 searches at the medium size's $0.01
	Entry("web searches at search_context_size_medium", cost.Usage{Input: 1000, WebSearches: 4}, 0.002+0.04, false),
)

// A row with a long-context tier and service tiers, in LiteLLM's key names
// (numbers of our own): priority's rates past 272k given, flex's only its
// input rate there.
const longServiceRow = `{"rail-long": {"litellm_provider": "openai", "mode": "chat",
	"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 2e-07,
	"input_cost_per_token_above_272k_tokens": 4e-06, "output_cost_per_token_above_272k_tokens": 1.5e-05,
	"input_cost_per_token_priority": 4e-06, "output_cost_per_token_priority": 2e-05,
	"input_cost_per_token_above_272k_tokens_priority": 8e-06, "output_cost_per_token_above_272k_tokens_priority": 3e-05,
	"cache_read_input_token_cost_above_272k_tokens_priority": 8e-07,
	"input_cost_per_token_flex": 1e-06, "output_cost_per_token_flex": 5e-06,
	"input_cost_per_token_above_272k_tokens_flex": 2e-06}}`

var _ = DescribeTable("a service tier past a long-context tier",
	func(u cost.Usage, usd float64, tier int, unpriced string) {
		t, err := cost.Parse([]byte(longServiceRow), "rail.json")
		Expect(err).NotTo(HaveOccurred())
		m, _ := t.Lookup("openai", "rail-long")
		c, err := m.Price(u)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Total()).To(BeNumerically("~", usd, 1e-12))
		Expect(c.Tier).To(Equal(tier))
		if unpriced == "" {
			Expect(c.Unpriced).To(BeEmpty())
		} else {
			Expect(c.Unpriced).To(ConsistOf(unpriced))
		}
	},
	// 200,000 × $8/M + 100,000 cached × $0.80/M + 1,000 × $30/M: the _above_272k_tokens_priority rates
	Entry("priority past 272k: its rates there", cost.Usage{Input: 300000, CacheRead: 100000, Output: 1000, Tier: "priority"}, 1.6+0.08+0.03, 272000, ""),
	// 100,000 × $4/M + 1,000 × $20/M
	Entry("priority under it: priority's", cost.Usage{Input: 100000, Output: 1000, Tier: "priority"}, 0.4+0.02, 0, ""),
	Entry("flex past 272k, whose row gives no output rate there: unpriced", cost.Usage{Input: 300000, Output: 1000, Tier: "flex"}, 0.0, 0,
		"served at the flex tier past 272000 input tokens, which rail-long has no rates for"),
	// 100,000 × $1/M + 1,000 × $5/M
	Entry("flex under it: flex's", cost.Usage{Input: 100000, Output: 1000, Tier: "flex"}, 0.1+0.005, 0, ""),
)

// Opus 4.6's published rates in LiteLLM's keys: $5/M in, $25/M out,
// 5-minute writes at $6.25/M, reads at $0.50/M, searches at $0.01.
const opusRow = `{"claude-opus-4-6": {"litellm_provider": "anthropic", "mode": "chat",
	"input_cost_per_token": 5e-06, "output_cost_per_token": 2.5e-05, "cache_creation_input_token_cost": 6.25e-06, "cache_read_input_token_cost": 5e-07,
	"search_context_cost_per_query": {"search_context_size_medium": 0.01}}}`

var _ = DescribeTable("a call's inference geography",
	func(geo string, usd float64, unpriced string) {
		t, err := cost.Parse([]byte(opusRow), "opus.json")
		Expect(err).NotTo(HaveOccurred())
		m, _ := t.Lookup("anthropic", "claude-opus-4-6")
		c, err := m.Price(cost.Usage{Input: 10000, CacheRead: 2000, CacheWrite: 1000, Output: 500, WebSearches: 2, Geo: geo})
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Total()).To(BeNumerically("~", usd, 1e-12))
		if unpriced == "" {
			Expect(c.Unpriced).To(BeEmpty())
		} else {
			Expect(c.Unpriced).To(ConsistOf(unpriced))
		}
	},
	// 7,000 × $5/M + 2,000 × $0.50/M + 1,000 × $6.25/M + 500 × $25/M, + 2 searches × $0.01
	Entry("the default: the rates", "", 0.035+0.001+0.00625+0.0125+0.02, ""),
	Entry("US-only: every token at 1.1 times, the searches as they are", "us", (0.035+0.001+0.00625+0.0125)*1.1+0.02, ""),
	Entry("a geography without a published price: unpriced", "eu", 0.0, "run in the eu inference geography, which testbed has no price for"),
)
