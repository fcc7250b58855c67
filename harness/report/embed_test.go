package report_test

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("the embeddings calls' share of the spend", func() {
	run := func(chat, embed float64, embeds int) report.Scenario {
		return report.Scenario{ID: "s", Verdict: report.VerdictPass, Metrics: trace.Metrics{LLMCalls: 2, EmbedCalls: embeds,
			PricedCalls: 2 + embeds, CostUSD: chat + embed, EmbedCostUSD: embed}}
	}

	It("sums it per variant, within the total, and counts its calls among the priced", func() {
		s := report.SpendOf([]report.Run{run(0.004, 0.0002, 2).Runs()[0], run(0.006, 0.0001, 1).Runs()[0]})
		Expect(s.Total).To(BeNumerically("~", 0.0103, 1e-15))
		Expect(s.Mean).To(BeNumerically("~", 0.00515, 1e-15))
		Expect(s.Embed).To(BeNumerically("~", 0.0003, 1e-15))
		Expect(s.EmbedCalls).To(Equal(3))
		Expect(s.Priced).To(Equal(7))
		Expect(s.Unpriced).To(BeZero())
		Expect(s.Sources()).To(Equal("7 calls priced from reported usage, 3 embeddings calls among them, $0.000300 of the total"))
	})

	It("gets a column of its own in the spend table only when a variant made embeddings calls", func() {
		rep := func(embeds int) string {
			v := report.Variant{Name: "v", Scenarios: []report.Scenario{run(0.004, 0.0002*float64(embeds), embeds)}}
			v.Summary = report.Summarize(v.Scenarios)
			var b bytes.Buffer
			Expect(report.WriteMarkdown(&b, &report.Report{SchemaVersion: report.SchemaVersion, Mode: "replay",
				Suites: []report.Suite{{Name: "s", Agent: "a", Baseline: "v", Variants: []report.Variant{v}}}})).To(Succeed())
			return b.String()
		}
		Expect(rep(2)).To(ContainSubstring("| v | $0.00440 | $0.00440 | $0.00440 | 4/4 | $0.000400 in 2 calls |"))
		Expect(rep(0)).NotTo(ContainSubstring("embeddings"))
	})
})
