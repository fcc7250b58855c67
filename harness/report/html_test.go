package report_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("WriteHTML", func() {
	page := func(r *report.Report) string { return string(render(report.WriteHTML, r)) }

	It("draws every chart the report has data for, per suite", func() {
		html := page(fixture())
		labels := regexp.MustCompile(`<svg [^>]*aria-label="([^"]*)"`).FindAllStringSubmatch(html, -1)
		var charts []string
		timelines := 0
		for _, l := range labels {
			if l[1] == "timeline on the replayed clock" {
				timelines++ // one per scenario trace with events, below
				continue
			}
			charts = append(charts, l[1])
		}
		withEvents := 0
		for _, s := range fixture().Suites {
			for _, v := range s.Variants {
				for _, sc := range v.Scenarios {
					if len(sc.Events) > 0 {
						withEvents++
					}
				}
			}
		}
		Expect(timelines).To(Equal(withEvents))
		Expect(charts).To(Equal([]string{
			// odbchat: two variants, roles, trimming, routing
			"input tokens by part (mean per scenario)",
			"replayed latency per scenario (dots), p50 and p95 (ticks)",
			"LLM latency by role (total over the suite)",
			"payload token reduction by tool (raw upstream → model context; tools whose payloads shrank)",
			"routing confusion, variant legacy",
			"routing confusion, variant single-pass",
			// climate: one variant with trimming
			"input tokens by part (mean per scenario)",
			"replayed latency per scenario (dots), p50 and p95 (ticks)",
			"payload token reduction by tool (raw upstream → model context; tools whose payloads shrank)",
		}))
	})

	It("draws the latency budget from the suite's latency threshold", func() {
		Expect(page(fixture())).To(ContainSubstring(">budget 2.0 s</text>"))
	})

	It("is self-contained: one inlined script, no external resource, links only within the page", func() {
		html := page(fixture())
		Expect(strings.Count(html, "<script")).To(Equal(1))
		Expect(html).To(ContainSubstring("<script>\n"))
		Expect(html).NotTo(MatchRegexp(`src=|href="[^#]|<link`))
		Expect(html).To(ContainSubstring(`<meta name="viewport" content="width=device-width, initial-scale=1">`))
	})

	It("escapes text from the report", func() {
		r := fixture()
		r.Suites[0].Variants[0].Scenarios[0].Answer = []string{`<script>alert("x")</script>`}
		r.Suites[0].Variants[0].Scenarios[0].ID = `<b>id</b>`
		html := page(r)
		Expect(strings.Count(html, "<script")).To(Equal(1))
		Expect(html).NotTo(ContainSubstring("<b>id</b>"))
		Expect(html).To(ContainSubstring("&lt;script&gt;"))
	})

	It("puts each scenario's trace in an expandable block", func() {
		html := page(fixture())
		scenarios := 0
		for _, s := range fixture().Suites {
			for _, v := range s.Variants {
				scenarios += len(v.Scenarios)
			}
		}
		Expect(strings.Count(html, `<details class="scenario"`)).To(Equal(scenarios))
		Expect(html).To(ContainSubstring("ghrsst.bbox_mean"))
	})
})
