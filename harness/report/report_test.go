package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(name string, got []byte) {
	GinkgoHelper()
	path := filepath.Join("testdata", name)
	if *update {
		Expect(os.MkdirAll("testdata", 0o755)).To(Succeed())
		Expect(os.WriteFile(path, got, 0o644)).To(Succeed())
	}
	want, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred(), "run: go test ./harness/report/ -update")
	Expect(string(got)).To(Equal(string(want)), "output differs from %s; if the change is intended, run: go test ./harness/report/ -update", path)
}

type writer func(io.Writer, *report.Report) error

func render(write writer, r *report.Report) []byte {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(write(&buf, r)).To(Succeed())
	return buf.Bytes()
}

var _ = Describe("renderers", func() {
	DescribeTable("match their golden file",
		func(write writer, name string) {
			golden(name, render(write, fixture()))
		},
		Entry("text", writer(report.WriteText), "report.txt"),
		Entry("markdown", writer(report.WriteMarkdown), "report.md"),
		Entry("json", writer(report.WriteJSON), "report.json"),
		Entry("html", writer(report.WriteHTML), "report.html"),
	)

	DescribeTable("are deterministic",
		func(write writer) {
			first := render(write, fixture())
			for range 5 {
				Expect(render(write, fixture())).To(Equal(first))
			}
		},
		Entry("text", writer(report.WriteText)),
		Entry("markdown", writer(report.WriteMarkdown)),
		Entry("json", writer(report.WriteJSON)),
		Entry("html", writer(report.WriteHTML)),
	)

	DescribeTable("end with the overall verdict",
		func(write writer, r *report.Report, last string) {
			lines := strings.Split(strings.TrimRight(string(render(write, r)), "\n"), "\n")
			Expect(lines[len(lines)-1]).To(Equal(last))
		},
		Entry("text, failing", writer(report.WriteText), fixture(),
			"FAIL: 2 of 7 scenarios, 1 of 5 thresholds failed, judging 2 suites, 3 variants, 7 runs and 12 model calls"),
		Entry("text, passing", writer(report.WriteText), passing(),
			"PASS: all 1 scenario and 1 threshold passed, judging 1 suite, 1 variant, 1 run and 3 model calls"),
		Entry("markdown, failing", writer(report.WriteMarkdown), fixture(),
			"**FAIL: 2 of 7 scenarios, 1 of 5 thresholds failed, judging 2 suites, 3 variants, 7 runs and 12 model calls**"),
	)

	It("writes tables that fit a 132-column terminal", func() {
		for i, line := range strings.Split(string(render(report.WriteText, fixture())), "\n") {
			if strings.HasPrefix(line, "  ✗ ") || strings.HasPrefix(line, "  ⚠ ") {
				continue // notes are not wrapped, so that paths and URLs stay whole
			}
			Expect(len([]rune(line))).To(BeNumerically("<=", 132), "line %d: %s", i+1, line)
		}
	})

	It("lists the baseline first and compares the others with it", func() {
		r := fixture()
		v := &r.Suites[0].Variants[0]
		v.Scenarios = v.Scenarios[:2] // without its stale run
		v.Summary = report.Summarize(v.Scenarios)
		text := string(render(report.WriteText, r))
		Expect(strings.Index(text, "variant legacy")).To(BeNumerically("<", strings.Index(text, "variant single-pass")))
		Expect(text).To(ContainSubstring("1.50 (−0.50)"))
		Expect(text).To(ContainSubstring("2049 (+10.6%)"))
	})

	It("gives no change against the baseline for a variant whose figures left a stale run out", func() {
		text := string(render(report.WriteText, fixture()))
		Expect(text).To(MatchRegexp(`single-pass\s+1\.50\s+2049\s+205\s+1373 ms\s+1844 ms`), "over the two runs measured, with no change")
		Expect(text).To(ContainSubstring("⚠ single-pass: over 2 of 3 runs; 1 stale or errored, not measured, so no change against legacy is given"))
	})

	It("escapes markdown in report text", func() {
		r := passing()
		r.Suites[0].Variants[0].Scenarios[0].Route = "a|b *c* <d>"
		Expect(string(render(report.WriteMarkdown, r))).To(ContainSubstring(`a\|b \*c\* \<d>`))
	})
})

var _ = Describe("routing confusion", func() {
	// withRoutes is the passing report with its variant's confusion built
	// from one scenario per (expected, observed) pair, as "e>o".
	withRoutes := func(pairs ...string) *report.Report {
		r := passing()
		var scs []report.Scenario
		for _, p := range pairs {
			e, o, _ := strings.Cut(p, ">")
			scs = append(scs, report.Scenario{ExpectedRoute: e, Route: o})
		}
		r.Suites[0].Variants[0].Confusion = report.Confusion(scs)
		return r
	}
	// section returns the lines of the text report's confusion section.
	section := func(text string) []string {
		_, after, found := strings.Cut(text, "routing confusion (expected → observed) — trimmed\n")
		Expect(found).To(BeTrue(), text)
		before, _, _ := strings.Cut(after, "\n\n")
		return strings.Split(before, "\n")
	}
	tools := []string{"tool:ghrsst.bbox_mean", "tool:ghrsst.point_value", "tool:ghrsst.point_series", "tool:ghrsst.area_series"}

	It("is shown only for a variant with confusion cells", func() {
		Expect(string(render(report.WriteText, passing()))).NotTo(ContainSubstring("routing confusion"))
		Expect(string(render(report.WriteMarkdown, passing()))).NotTo(ContainSubstring("routing confusion"))
	})

	It("marks right routes, shows none as ·, and gives each row's accuracy", func() {
		lines := section(string(render(report.WriteText,
			withRoutes("answer>answer", "answer>answer", "answer>tool:a", "tool:a>", "tool:a>tool:a"))))
		Expect(lines).To(Equal([]string{
			"expected   —  answer  tool:a  accuracy",
			"──────────────────────────────────────",
			"answer    ·       2✓      1      66.7%",
			"tool:a    1       ·       1✓     50.0%",
		}))
	})

	It("heads tool routes by the tool's name when the full names do not fit", func() {
		var pairs []string
		for _, e := range tools {
			for _, o := range tools {
				pairs = append(pairs, e+">"+o)
			}
		}
		lines := section(string(render(report.WriteText, withRoutes(pairs...))))
		Expect(lines[0]).To(MatchRegexp(`^expected +ghrsst.area_series +ghrsst.bbox_mean +ghrsst.point_series +ghrsst.point_value +accuracy$`))
		Expect(lines[2]).To(MatchRegexp(`^tool:ghrsst.area_series +1✓ +1 +1 +1 +25.0%$`))
		for _, l := range lines {
			Expect(utf8.RuneCountInString(l)).To(BeNumerically("<=", 132), l)
		}
	})

	It("keeps full route names in the header when cutting them would make two the same", func() {
		pairs := []string{"rag>rag", "rag>tool:rag"}
		for _, o := range tools {
			pairs = append(pairs, "rag>"+o)
		}
		pairs = append(pairs, "rag>tool:ghrsst.climatology")
		text := string(render(report.WriteText, withRoutes(pairs...)))
		Expect(text).NotTo(ContainSubstring("expected  rag  rag"))
		Expect(text).To(ContainSubstring("too many for a table"))
	})

	It("lists the misrouted cells when even tool names do not fit", func() {
		var pairs []string
		for _, o := range append(tools, "tool:ghrsst.climatology", "tool:ghrsst.anomaly_map", "tool:docs.search") {
			pairs = append(pairs, "tool:ghrsst.bbox_mean>"+o)
		}
		pairs = append(pairs, "tool:ghrsst.bbox_mean>tool:docs.search", "answer>")
		r := withRoutes(pairs...)
		Expect(section(string(render(report.WriteText, r)))).To(Equal([]string{
			"  2 expected and 8 observed routes are too many for a table; 1 of 9 routed as expected, the others:",
			"  answer → —: 1",
			"  tool:ghrsst.bbox_mean → tool:docs.search: 2",
			"  tool:ghrsst.bbox_mean → tool:ghrsst.anomaly_map: 1",
			"  tool:ghrsst.bbox_mean → tool:ghrsst.area_series: 1",
			"  tool:ghrsst.bbox_mean → tool:ghrsst.climatology: 1",
			"  tool:ghrsst.bbox_mean → tool:ghrsst.point_series: 1",
			"  tool:ghrsst.bbox_mean → tool:ghrsst.point_value: 1",
		}))
		Expect(string(render(report.WriteMarkdown, r))).To(ContainSubstring(
			"### routing confusion (expected → observed) — trimmed\n\n" +
				"- 2 expected and 8 observed routes are too many for a table; 1 of 9 routed as expected, the others:\n" +
				"- answer → —: 1\n"))
	})
})

var _ = Describe("payload trimming", func() {
	It("is left out when no variant has trimming", func() {
		r := passing()
		r.Suites[0].Variants[0].Trimming = nil
		Expect(string(render(report.WriteText, r))).NotTo(ContainSubstring("payload trimming"))
	})

	It("totals each variant and shows — for a tool without raw payload", func() {
		r := passing()
		r.Suites[0].Variants[0].Trimming = []report.ToolTrim{
			{Tool: "a", Calls: 2, RawTokens: 1000, ContextTokens: 250, Reduction: 0.75},
			{Tool: "b", Calls: 1, ContextTokens: 50},
		}
		Expect(string(render(report.WriteText, r))).To(ContainSubstring(
			"payload trimming by tool\n" +
				"variant  tool   calls  raw tok  context tok  reduction\n" +
				"──────────────────────────────────────────────────────\n" +
				"trimmed  a          2     1000          250      75.0%\n" +
				"trimmed  b          1        0           50          —\n" +
				"trimmed  total      3     1000          300      70.0%\n"))
	})
})

var _ = Describe("input tokens by part", func() {
	// withProvider is the passing report with its variant's model at
	// provider, every scenario reporting 1000 input tokens, 600 of them
	// read from the prompt cache and 100 written to it.
	withProvider := func(provider string) string {
		r := passing()
		v := &r.Suites[0].Variants[0]
		v.Provider = provider
		for i := range v.Scenarios {
			m := &v.Scenarios[i].Metrics
			m.ReportedInput, m.ReportedCacheRead, m.ReportedCacheWrite = 1000, 600, 100
		}
		return string(render(report.WriteText, r))
	}

	It("labels the counts of a model other than OpenAI's as estimates with the suite's encoding", func() {
		out := withProvider("anthropic")
		Expect(out).To(ContainSubstring("trimmed (anthropic): the parts and total are estimates with cl100k_base, not the model's own tokenizer"))
		Expect(out).To(ContainSubstring("1000 (cache: 600 read, 100 written)"))
	})

	It("does not for an OpenAI model", func() {
		Expect(withProvider("openai")).NotTo(ContainSubstring("estimates with"))
		Expect(withProvider("")).NotTo(ContainSubstring("estimates with"))
	})

	It("gives the thinking tokens a provider reported as their own part of its reported output", func() {
		r := passing()
		v := &r.Suites[0].Variants[0]
		for i := range v.Scenarios {
			m := &v.Scenarios[i].Metrics
			m.ReportedInput, m.ReportedOutput, m.ReportedReasoning = 1000, 300, 120
		}
		Expect(string(render(report.WriteText, r))).To(ContainSubstring(
			"provider-reported output tokens (mean per scenario), thinking as its own part: trimmed 300 = 180 answer + 120 thinking"))
		Expect(withProvider("gemini")).NotTo(ContainSubstring("thinking"), "no note when no provider reported thinking")
	})
})

var _ = Describe("JSON", func() {
	DescribeTable("is the report encoded in one piece, indented",
		func(r *report.Report) {
			c := *r
			c.SchemaVersion = report.SchemaVersion
			var compact, want bytes.Buffer
			enc := json.NewEncoder(&compact)
			enc.SetEscapeHTML(false)
			Expect(enc.Encode(&c)).To(Succeed())
			Expect(json.Indent(&want, compact.Bytes(), "", "  ")).To(Succeed())
			Expect(string(render(report.WriteJSON, r))).To(Equal(want.String()))
		},
		Entry("a report", fixture()),
		Entry("no suites", &report.Report{Mode: "replay"}),
		Entry("an empty list of suites", &report.Report{Mode: "replay", Suites: []report.Suite{}}),
		Entry("a later field that reads like the suites", &report.Report{Mode: "replay", Suites: fixture().Suites,
			Replay: &report.ReplayStats{UnusedCassettes: []string{`"suites": []`}}}),
	)

	It("fails on the first suite that has no JSON form, as one encoding would", func() {
		// Two suites fail, each its own way: the error is the first one's.
		r := fixture()
		for i, bad := range []float64{math.NaN(), math.Inf(1)} {
			s := r.Suites[0]
			s.Name = fmt.Sprint("bad ", i)
			s.Variants = []report.Variant{{Name: "v", Thresholds: []report.Threshold{{Observed: bad}}}}
			r.Suites = append(r.Suites, s)
		}
		_, want := json.Marshal(r)
		Expect(want).To(HaveOccurred())
		Expect(report.WriteJSON(io.Discard, r)).To(MatchError("write json report: " + want.Error()))
	})

	It("starts with schemaVersion and ends with a newline", func() {
		out := render(report.WriteJSON, fixture())
		Expect(string(out)).To(HavePrefix("{\n  \"schemaVersion\": 1,\n"))
		Expect(string(out)).To(HaveSuffix("}\n"))
	})

	It("reads back what it wrote", func() {
		want := fixture()
		got, err := report.ReadJSON(bytes.NewReader(render(report.WriteJSON, want)))
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(want))
	})

	It("renders the same text after a round trip", func() {
		got, err := report.ReadJSON(bytes.NewReader(render(report.WriteJSON, fixture())))
		Expect(err).NotTo(HaveOccurred())
		Expect(render(report.WriteText, got)).To(Equal(render(report.WriteText, fixture())))
	})

	DescribeTable("rejects a schemaVersion it does not read",
		func(doc, mention string) {
			_, err := report.ReadJSON(strings.NewReader(doc))
			Expect(err).To(MatchError(report.ErrSchemaVersion))
			Expect(err.Error()).To(ContainSubstring(mention))
		},
		Entry("newer", `{"schemaVersion": 99, "mode": "replay", "suites": []}`, "schemaVersion 99"),
		Entry("zero", `{"schemaVersion": 0, "suites": []}`, "schemaVersion 0"),
		Entry("missing", `{"mode": "replay", "suites": []}`, "no schemaVersion"),
	)

	It("reports malformed JSON", func() {
		_, err := report.ReadJSON(strings.NewReader(`{"schemaVersion": 1,`))
		Expect(err).To(HaveOccurred())
		Expect(errors.Is(err, report.ErrSchemaVersion)).To(BeFalse())
	})
})

// BenchmarkWriteText and its siblings render a report of one suite with two
// variants of 100 scenarios each.
func BenchmarkWriteText(b *testing.B) { benchWrite(b, report.WriteText) }

// BenchmarkWriteJSON renders the report of BenchmarkWriteText as JSON.
func BenchmarkWriteJSON(b *testing.B) { benchWrite(b, report.WriteJSON) }

// BenchmarkWriteMarkdown renders the report of BenchmarkWriteText as markdown.
func BenchmarkWriteMarkdown(b *testing.B) { benchWrite(b, report.WriteMarkdown) }

// BenchmarkWriteHTML renders the report of BenchmarkWriteText as HTML with charts.
func BenchmarkWriteHTML(b *testing.B) { benchWrite(b, report.WriteHTML) }

func benchWrite(b *testing.B, write writer) {
	r := large(100)
	b.ReportAllocs()
	for b.Loop() {
		if err := write(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
