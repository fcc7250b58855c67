package report_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agentreplay/testbed/harness/report"
)

// gfm renders markdown as GitHub does: CommonMark with GitHub's extensions
// (tables, strikethrough, autolinks, task lists).
func gfm(md string) string {
	GinkgoHelper()
	var out bytes.Buffer
	Expect(goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &out)).To(Succeed())
	return out.String()
}

// rawPipe is a table row left as paragraph text: a table that did not render.
var rawPipe = regexp.MustCompile(`<p>[^<]*\|[^<]*\|`)

// renders checks that md renders with tables tables and no raw table row.
func renders(md string, tables int) {
	GinkgoHelper()
	html := gfm(md)
	Expect(strings.Count(html, "<table>")).To(Equal(tables), html)
	Expect(rawPipe.FindString(html)).To(BeEmpty(), "a table row rendered as text")
	Expect(strings.Count(html, "<pre>")).To(Equal(strings.Count(html, "</pre>")))
}

// brief is WriteMarkdownBrief of r, linking latest-full.md.
func brief(r *report.Report) string {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(report.WriteMarkdownBrief(&buf, r, "latest-full.md")).To(Succeed())
	return buf.String()
}

var _ = Describe("WriteMarkdownBrief", func() {
	It("matches its golden file: the verdict, the headline table, the failures and the link", func() {
		golden("report-brief.md", []byte(brief(fixture())))
	})

	It("keeps a large report within a pull-request comment, the verdict and table first", func() {
		r := large(3000)
		var full bytes.Buffer
		Expect(report.WriteMarkdown(&full, r)).To(Succeed())
		Expect(full.Len()).To(BeNumerically(">", 4*report.CommentLimit), "the full report would not fit")

		md := brief(r)
		Expect(len(md)).To(BeNumerically("<=", report.CommentLimit))
		Expect(len(md)).To(BeNumerically(">", report.CommentLimit/2), "it fills the room with failures")
		Expect(md).To(HavePrefix("**FAIL: "))
		Expect(strings.SplitN(md, "\n", 4)[2]).To(HavePrefix("| suite/variant | passed |"))
		Expect(md).To(MatchRegexp(`\n… and [\d,]+ more in \[latest-full\.md\]\(latest-full\.md\)\.\n`))
		Expect(md).To(HaveSuffix("is in [latest-full.md](latest-full.md).\n"))
		renders(md, 1)
	})

	It("lists every failure of a report that fits", func() {
		md := brief(fixture())
		Expect(md).NotTo(ContainSubstring("… and"))
		Expect(md).To(ContainSubstring("### Failures"))
		Expect(md).To(ContainSubstring("### Thresholds that failed"))
		renders(md, 1)
	})
})

var _ = Describe("WriteComparisonMarkdown", func() {
	// many is a comparison of n scenarios, every one regressed.
	many := func(n int) report.Comparison {
		base, head := &report.Variant{Name: "old"}, &report.Variant{Name: "new"}
		for i := range n {
			id := fmt.Sprintf("scenario-%04d|with a pipe", i)
			base.Scenarios = append(base.Scenarios, scenarioOf(id, "pass", "tool:a", 100, 1, time.Second, "ok", "a"))
			head.Scenarios = append(head.Scenarios, scenarioOf(id, "fail", "code", 180, 2, 2*time.Second, "no", "b", "c"))
		}
		return report.CompareVariants("climate", base, head, "old", "new")
	}
	write := func(details string, cs ...report.Comparison) string {
		GinkgoHelper()
		var buf bytes.Buffer
		Expect(report.WriteComparisonMarkdown(&buf, cs, details)).To(Succeed())
		return buf.String()
	}

	It("renders the summary and the regressions as tables, with the link", func() {
		md := write("https://ci.example/run/1", many(3))
		Expect(md).To(HavePrefix("**testbed compare: 3 scenarios regressed in 1 comparisons**\n"))
		Expect(md).To(ContainSubstring(`| scenario-0002\|with a pipe | PASS → FAIL | tool:a → code | a → b,c | 100 → 180 (+80, +80.0%) |`))
		Expect(md).To(HaveSuffix("[https://ci.example/run/1](https://ci.example/run/1).\n"))
		renders(md, 2)
		Expect(gfm(md)).To(ContainSubstring("<td>scenario-0002|with a pipe</td>"), "the escaped pipe stays in its cell")
	})

	It("fits a pull-request comment however many scenarios regressed", func() {
		md := write("https://ci.example/run/1", many(5000), many(10))
		Expect(len(md)).To(BeNumerically("<=", report.CommentLimit))
		Expect(md).To(ContainSubstring("5010 scenarios regressed in 2 comparisons"))
		Expect(md).To(MatchRegexp(`\n… and [\d,]+ more in \[the full report\]\(https://ci\.example/run/1\)\.\n`))
		renders(md, 2)
	})

	It("keeps the summary table short: every comparison that regressed, then others up to 40, counting the rest", func() {
		calm := many(1)
		calm.Rows[0].Regressed = false
		cs := []report.Comparison{}
		for range 300 {
			cs = append(cs, calm)
		}
		cs = append(cs, many(2))
		md := write("https://ci.example/run/1", cs...)
		Expect(md).To(HavePrefix("**testbed compare: 2 scenarios regressed in 301 comparisons**\n"))
		Expect(strings.Count(md, "| climate: old → new |")).To(Equal(40))
		Expect(md).To(MatchRegexp(`\| climate: old → new \| 2 \|`), "the one that regressed is listed first")
		Expect(md).To(ContainSubstring("\n… and 261 more comparisons, none regressed.\n"))
		renders(md, 2)
	})

	It("says so when nothing regressed", func() {
		c := many(2)
		for i := range c.Rows {
			c.Rows[i].Regressed = false
		}
		md := write("", c)
		Expect(md).To(HavePrefix("**testbed compare: no scenario regressed in 1 comparisons**\n"))
		renders(md, 1)
	})
})
