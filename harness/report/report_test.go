package report_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	)

	DescribeTable("end with the overall verdict",
		func(write writer, r *report.Report, last string) {
			lines := strings.Split(strings.TrimRight(string(render(write, r)), "\n"), "\n")
			Expect(lines[len(lines)-1]).To(Equal(last))
		},
		Entry("text, failing", writer(report.WriteText), fixture(),
			"FAIL: 2 of 7 scenarios, 1 of 5 thresholds failed"),
		Entry("text, passing", writer(report.WriteText), passing(),
			"PASS: all 1 scenario and 1 threshold passed"),
		Entry("markdown, failing", writer(report.WriteMarkdown), fixture(),
			"**FAIL: 2 of 7 scenarios, 1 of 5 thresholds failed**"),
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
		text := string(render(report.WriteText, fixture()))
		Expect(strings.Index(text, "variant legacy")).To(BeNumerically("<", strings.Index(text, "variant single-pass")))
		Expect(text).To(ContainSubstring("1.00 (−1.00)"))
		Expect(text).To(ContainSubstring("1366 (−26.2%)"))
	})

	It("escapes markdown in report text", func() {
		r := passing()
		r.Suites[0].Variants[0].Scenarios[0].Route = "a|b *c* <d>"
		Expect(string(render(report.WriteMarkdown, r))).To(ContainSubstring(`a\|b \*c\* \<d>`))
	})
})

var _ = Describe("JSON", func() {
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

func BenchmarkWriteText(b *testing.B) {
	r := large(100)
	for b.Loop() {
		if err := report.WriteText(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJSON(b *testing.B) {
	r := large(100)
	for b.Loop() {
		if err := report.WriteJSON(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
