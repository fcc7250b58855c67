package runner_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("pricing a report file again", func() {
	// The judge at $1 per thousand input tokens and $2 per thousand
	// output, above 1,000 input tokens at ten times that.
	table, err := cost.Parse([]byte(`{"gpt-4.1-mini": {"litellm_provider": "openai", "mode": "chat",
		"input_cost_per_token": 0.001, "output_cost_per_token": 0.002,
		"input_cost_per_token_above_1k_tokens": 0.01, "output_cost_per_token_above_1k_tokens": 0.02}}`), "judge.json")
	Expect(err).NotTo(HaveOccurred())
	// graded is a report of one scenario whose grader made calls of
	// (input, output) tokens, priced by the run at a cost of $9.
	graded := func(calls ...[2]int) *report.Report {
		g := &report.Grading{Grader: "rule-based stand-in judge", StandIn: true, Calls: len(calls), CostUSD: 9,
			Provider: "openai", Model: "gpt-4.1-mini"}
		for _, c := range calls {
			g.InputTokens += c[0]
			g.OutputTokens += c[1]
			g.Usage = append(g.Usage, trace.Usage{Input: c[0], Output: c[1]})
		}
		sc := report.Scenario{ID: "a", Verdict: report.VerdictPass, Grading: g}
		v := report.Variant{Name: "v", Scenarios: []report.Scenario{sc}, Summary: report.Summarize([]report.Scenario{sc})}
		return &report.Report{Suites: []report.Suite{{Name: "s", Variants: []report.Variant{v}}}}
	}
	// written before gradings kept their model and each call's tokens
	older := func(r *report.Report) *report.Report {
		g := r.Suites[0].Variants[0].Scenarios[0].Grading
		g.Provider, g.Model, g.Usage = "", "", nil
		return r
	}
	suites := []*scenario.Suite{{Name: "s", Judge: &scenario.Judge{Endpoint: llm.Endpoint{Provider: "openai", Model: "gpt-4.1-mini"}}}}

	It("prices the rubric grader's calls with the table too, each call at its own tier", func() {
		r := graded([2]int{600, 50}, [2]int{600, 50})
		Expect(runner.Reprice(r, table, nil)).To(Succeed())
		v := r.Suites[0].Variants[0]
		// two calls of 600 in and 50 out, under the tier: 2 × (0.6 + 0.1)
		Expect(v.Scenarios[0].Grading.CostUSD).To(BeNumerically("~", 1.4, 1e-12))
		Expect(v.Summary.Grading.CostUSD).To(BeNumerically("~", 1.4, 1e-12))
		Expect(v.Summary.Grading.Unpriced).To(BeFalse())
	})

	It("says a grader model the table lacks is unpriced, never its old price", func() {
		r := graded([2]int{600, 50})
		Expect(runner.Reprice(r, cost.Default(), nil)).To(Succeed())
		g := r.Suites[0].Variants[0].Summary.Grading
		Expect(g.CostUSD).To(BeNumerically("<", 9))
		r = graded([2]int{600, 50})
		r.Suites[0].Variants[0].Scenarios[0].Grading.Model = "mystery-judge"
		Expect(runner.Reprice(r, table, nil)).To(Succeed())
		g = r.Suites[0].Variants[0].Summary.Grading
		Expect(g.Unpriced).To(BeTrue())
		Expect(g.CostUSD).To(BeZero())
	})

	It("prices an older report's grading from its sums at the suite's judge, and refuses what the sums cannot tell", func() {
		r := older(graded([2]int{600, 50}, [2]int{300, 50}))
		Expect(runner.Reprice(r, table, suites)).To(Succeed())
		Expect(r.Suites[0].Variants[0].Summary.Grading.CostUSD).To(BeNumerically("~", 0.9+0.2, 1e-12))

		r = older(graded([2]int{600, 50}, [2]int{600, 50}))
		err := runner.Reprice(r, table, suites)
		Expect(err).To(MatchError(ContainSubstring("s/v/a: grading: 2 calls of gpt-4.1-mini hold 1200 input tokens together, above its long-context tier of 1000")))
		Expect(err).To(MatchError(ContainSubstring("replay with --prices instead: testbed run --prices FILE")))

		r = older(graded([2]int{600, 50}))
		Expect(runner.Reprice(r, table, nil)).To(MatchError(ContainSubstring("no suite under --root names its judge")))
	})
})
