package report_test

import (
	"bytes"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("an unpriced cost in the JSON report", func() {
	// unpriced is a report of one variant whose model and judge have no
	// price, beside one whose calls are all priced.
	unpriced := func() *report.Report {
		none := report.Scenario{ID: "a", Verdict: report.VerdictPass, Answer: []string{"ok <b>&</b>"},
			Metrics: trace.Metrics{LLMCalls: 2, UnpricedCalls: 2},
			Grading: &report.Grading{Grader: "openai mystery", Calls: 1, InputTokens: 100, OutputTokens: 20, Unpriced: true}}
		priced := report.Scenario{ID: "a", Verdict: report.VerdictPass,
			Metrics: trace.Metrics{LLMCalls: 1, PricedCalls: 1, CostUSD: 0.002},
			Grading: &report.Grading{Grader: "openai gpt-4.1-mini", Calls: 1, CostUSD: 0.0001}}
		v := func(name string, sc report.Scenario) report.Variant {
			return report.Variant{Name: name, Scenarios: []report.Scenario{sc}, Summary: report.Summarize([]report.Scenario{sc})}
		}
		return &report.Report{SchemaVersion: report.SchemaVersion, Mode: "replay", Suites: []report.Suite{{Name: "s",
			Variants: []report.Variant{v("none", none), v("priced", priced)}}}}
	}
	written := func(r *report.Report) string {
		GinkgoHelper()
		var buf bytes.Buffer
		Expect(report.WriteJSON(&buf, r)).To(Succeed())
		return buf.String()
	}
	type doc struct {
		Suites []struct {
			Variants []struct {
				Scenarios []struct {
					Grading map[string]any `json:"grading"`
				} `json:"scenarios"`
				Summary struct {
					Cost    map[string]any `json:"cost"`
					Grading map[string]any `json:"grading"`
				} `json:"summary"`
			} `json:"variants"`
		} `json:"suites"`
	}

	It("is null beside the counts that say why, never the number 0", func() {
		js := written(unpriced())
		var d doc
		Expect(json.Unmarshal([]byte(js), &d)).To(Succeed())
		none, priced := d.Suites[0].Variants[0], d.Suites[0].Variants[1]
		for _, key := range []string{"mean_usd", "p95_usd", "total_usd"} {
			Expect(none.Summary.Cost).To(HaveKeyWithValue(key, BeNil()), key)
			Expect(priced.Summary.Cost).To(HaveKeyWithValue(key, BeNumerically(">", 0)), key)
		}
		Expect(none.Summary.Cost).To(HaveKeyWithValue("priced_calls", 0.0))
		Expect(none.Summary.Cost).To(HaveKeyWithValue("unpriced_calls", 2.0))
		Expect(none.Summary.Grading).To(HaveKeyWithValue("cost_usd", BeNil()))
		Expect(none.Scenarios[0].Grading).To(HaveKeyWithValue("cost_usd", BeNil()))
		Expect(none.Scenarios[0].Grading).To(HaveKeyWithValue("unpriced", true))
		Expect(priced.Summary.Grading).To(HaveKeyWithValue("cost_usd", 0.0001))
		Expect(js).To(ContainSubstring(`"ok <b>&</b>"`), "still written without HTML escapes")
	})

	It("reads back as unpriced, and a file that wrote 0 for it still reads", func() {
		back, err := report.ReadJSON(strings.NewReader(written(unpriced())))
		Expect(err).NotTo(HaveOccurred())
		v := back.Suites[0].Variants[0]
		Expect(v.Summary.Cost.Short()).To(Equal("unpriced"))
		Expect(v.Summary.Grading.Unpriced).To(BeTrue())
		Expect(back).To(Equal(mustRead(written(unpriced()))), "the same report after a round trip")

		old := strings.NewReplacer(`"mean_usd": null`, `"mean_usd": 0`, `"p95_usd": null`, `"p95_usd": 0`,
			`"total_usd": null`, `"total_usd": 0`, `"cost_usd": null`, `"cost_usd": 0`).Replace(written(unpriced()))
		Expect(old).NotTo(MatchRegexp(`_usd": null`))
		fromOld, err := report.ReadJSON(strings.NewReader(old))
		Expect(err).NotTo(HaveOccurred())
		Expect(fromOld).To(Equal(back), "an older file's 0 beside the same counts reads as the same report")
		Expect(written(fromOld)).To(Equal(written(unpriced())), "and is written with null again")
	})
})

// mustRead is the report that js holds.
func mustRead(js string) *report.Report {
	GinkgoHelper()
	r, err := report.ReadJSON(strings.NewReader(js))
	Expect(err).NotTo(HaveOccurred())
	return r
}
