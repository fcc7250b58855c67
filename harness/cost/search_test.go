package cost_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cost"
)

var _ = Describe("web searches", func() {
	// Every figure is worked by hand from the published rates docs/cost.md
	// cites: OpenAI's $10 per 1,000 web search calls for reasoning models,
	// Google's $35 per 1,000 grounded prompts for Gemini 2.5.
	DescribeTable("at testbed's table's per-search rates",
		func(provider, model string, u cost.Usage, usd float64) {
			c := price(provider, model, u)
			Expect(c.Unpriced).To(BeEmpty())
			Expect(c.Total()).To(BeNumerically("~", usd, 1e-12))
		},
		// 10,000 × $1.25/M + 500 × $10/M + 3 × $0.01
		Entry("gpt-5: each web_search_call", "openai", "gpt-5", cost.Usage{Input: 10000, Output: 500, WebSearches: 3}, 0.0125+0.005+0.03),
		// 6,000 × $0.25/M + 400 × $2/M + 2 × $0.01
		Entry("gpt-5-mini", "openai", "gpt-5-mini", cost.Usage{Input: 6000, Output: 400, WebSearches: 2}, 0.0015+0.0008+0.02),
		// 2,000 × $1.10/M + 100 × $4.40/M + 1 × $0.01
		Entry("o4-mini", "openai", "o4-mini", cost.Usage{Input: 2000, Output: 100, WebSearches: 1}, 0.0022+0.00044+0.01),
		// 4,000 × $0.30/M + 100 × $2.50/M + one grounded prompt × $0.035, whatever its three queries
		Entry("gemini-2.5-flash: once per grounded prompt, not per query", "gemini", "gemini-2.5-flash",
			cost.Usage{Input: 4000, Output: 100, WebSearches: 3}, 0.0012+0.00025+0.035),
	)

	It("leaves gpt-4.1's searches unpriced: its fee depends on the tool version, which the answer does not name", func() {
		c := price("openai", "gpt-4.1", cost.Usage{Input: 1000, Output: 100, WebSearches: 2})
		Expect(c.Unpriced).To(ConsistOf("2 web searches, which gpt-4.1 has no per-search rate for"))
		Expect(c.Total()).To(BeNumerically("~", 0.002+0.0008, 1e-12), "its tokens priced")
	})

	row := func(per string) string {
		return `{"gemini-x": {"litellm_provider": "gemini", "mode": "chat", "input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6,
			"search_context_cost_per_query": {"search_context_size_medium": 0.014}` + per + `}}`
	}
	DescribeTable("a row's testbed_search_per",
		func(per string, usd float64) {
			t, err := cost.Parse([]byte(row(per)), "x.json")
			Expect(err).NotTo(HaveOccurred())
			m, _ := t.Lookup("gemini", "gemini-x")
			c, err := m.Price(cost.Usage{Input: 1000, WebSearches: 4})
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Total()).To(BeNumerically("~", usd, 1e-12))
		},
		Entry("none: each search", ``, 0.001+4*0.014),
		Entry(`"query": each search`, `, "testbed_search_per": "query"`, 0.001+4*0.014),
		Entry(`"prompt": once a call`, `, "testbed_search_per": "prompt"`, 0.001+0.014),
	)

	It("refuses a testbed_search_per it does not know", func() {
		_, err := cost.Parse([]byte(row(`, "testbed_search_per": "request"`)), "x.json")
		Expect(err).To(MatchError(ContainSubstring(`x.json:2: "gemini-x": testbed_search_per is "prompt" or "query", not "request"`)))
	})
})
