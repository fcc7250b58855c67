package report_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("WriteBrief", func() {
	It("gives a line per suite and variant, each failure once, the failed thresholds and the same verdict as the tables", func() {
		r := fixture()
		brief := string(render(report.WriteBrief, r))
		text := string(render(report.WriteText, r))
		lastLine := func(s string) string {
			lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
			return lines[len(lines)-1]
		}
		Expect(r.Verdict()).To(Equal(lastLine(text)), "the verdict the caller prints is the tables' closing line")
		Expect(brief).NotTo(ContainSubstring(r.Verdict()))
		rows := 0
		for _, s := range r.Suites {
			for _, v := range s.Variants {
				rows++
				Expect(brief).To(MatchRegexp(`(?m)^` + s.Name + "/" + v.Name + `\s+\d+/\d+`))
			}
		}
		Expect(brief).To(ContainSubstring("failures ("))
		for _, s := range r.Suites {
			for _, v := range s.Variants {
				for _, sc := range v.Scenarios {
					if sc.Verdict == report.VerdictStale || sc.Verdict == report.VerdictError {
						Expect(brief).To(ContainSubstring(sc.ID + " " + sc.Verdict + ": "))
					}
				}
			}
		}
		Expect(len(strings.Split(brief, "\n"))).To(BeNumerically("<", len(strings.Split(text, "\n"))/2))
	})

	It("leaves out the failure lists when everything passed", func() {
		brief := string(render(report.WriteBrief, passing()))
		Expect(brief).NotTo(ContainSubstring("failures"))
		Expect(brief).NotTo(ContainSubstring("thresholds that failed"))
		Expect(passing().Verdict()).To(HavePrefix("PASS: "))
	})
})

var _ = Describe("WriteMarkdown's opening", func() {
	It("is the verdict and a line per suite and variant, what a pull-request comment needs first", func() {
		r := fixture()
		md := string(render(report.WriteMarkdown, r))
		Expect(md).To(HavePrefix("**" + r.Verdict() + "**\n\n| suite/variant | passed |"))
		Expect(strings.Index(md, "| odbchat/single-pass | 1/3 ✗ |")).To(BeNumerically("<", strings.Index(md, "## suite odbchat")))
	})
})

var _ = Describe("WriteBrief with a suite that does not gate", func() {
	It("gives each of its variants one line naming the runs that did not pass, and a verdict without thresholds it has none of", func() {
		failed := report.Scenario{ID: "city-zh", Verdict: report.VerdictFail,
			Checks: []report.Check{{Name: "route", Detail: "want tool:city_inventory_search, got answer"}}}
		passed := report.Scenario{ID: "city-en", Verdict: report.VerdictPass}
		v := report.Variant{Name: "trimmed", Scenarios: []report.Scenario{passed, failed}}
		v.Summary = report.Summarize(v.Scenarios)
		r := &report.Report{Mode: "replay", Suites: []report.Suite{{Name: "climate-paraphrase", Agent: "climate", NotGating: true, Variants: []report.Variant{v}}}}
		brief := string(render(report.WriteBrief, r))
		Expect(brief).To(ContainSubstring("✗ climate-paraphrase/trimmed (not gating): 1 of 2 scenarios does not pass (city-zh); testbed show climate-paraphrase/trimmed/<scenario> says why\n"))
		Expect(brief).NotTo(ContainSubstring("want tool:city_inventory_search"), "the checks are for testbed show")
		Expect(r.Verdict()).To(ContainSubstring("; not gating: 1 of 2 scenarios failed"))
		Expect(r.Verdict()).NotTo(ContainSubstring("0 of 0 thresholds"))
	})
})

var _ = Describe("a negative token reduction", func() {
	It("is warned about per variant, in the brief and the tables, naming the tools whose context outgrew their payload", func() {
		r := passing()
		v := &r.Suites[0].Variants[0]
		v.Trimming = []report.ToolTrim{
			{Tool: "lookup_flight", Calls: 2, RawTokens: 100, ContextTokens: 90, Reduction: 0.1},
			{Tool: "seat_map", Calls: 1, RawTokens: 20, ContextTokens: 80, Reduction: -3},
		}
		v.Summary.TokenReduction = 1 - 170.0/120
		name := r.Suites[0].Name + "/" + v.Name
		want := "token reduction is -41.7%: the tool results the agent put into the model's context hold more tokens than the raw payloads they came from, so the figure measures growth, not trimming; grown: seat_map (raw 20 → context 80 tokens over 1 call)"
		Expect(string(render(report.WriteBrief, r))).To(ContainSubstring("warnings (1):\n  ⚠ " + name + ": " + want))
		Expect(string(render(report.WriteText, r))).To(ContainSubstring(v.Name + ": " + want))

		v.Summary.TokenReduction = 0.2
		Expect(string(render(report.WriteBrief, r))).NotTo(ContainSubstring("warnings"))
		Expect(report.ReductionWarning(v)).To(BeEmpty())
	})
})
