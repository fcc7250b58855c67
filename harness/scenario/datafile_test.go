package scenario_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

// dataSuite is a suite reading its scenarios from cases.<ext>.
func dataSuite(ext, from string) string {
	return `suite: cases
agent: odbchat
clock: 2025-11-06T10:00:00+08:00
baseline: legacy
variants:
  legacy: {config: {router: legacy}}
  single-pass: {config: {router: single-pass}}
scenarios:
  - {id: hand-written, expect: {llm_calls: 1},
     input: "GHRSST 是什麼？"}
scenarios_from:
` + from
}

const mapping = `  file: cases.DATA
  id: case_id
  input: question
  tags: tags
  variants: overrides
  expect:
    route: {mode: "{mode}", tool: "{tool}"}
    llm_calls: "{calls}"
    answer: {contains: "{must_say}"}
`

// loadData writes the suite and its data file and loads the suite.
func loadData(ext, from, data string) (*scenario.Suite, error) {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	Expect(os.WriteFile(filepath.Join(dir, "cases."+ext), []byte(data), 0o644)).To(Succeed())
	path := filepath.Join(dir, "cases.yaml")
	Expect(os.WriteFile(path, []byte(strings.ReplaceAll(dataSuite(ext, from), "DATA", ext)), 0o644)).To(Succeed())
	return scenario.Load(path, scenario.LoadOptions{})
}

var _ = Describe("scenarios_from", func() {
	DescribeTable("says a file without a case has no rows, and only that: it has no columns to miss",
		func(ext, data, want string) {
			_, err := loadData(ext, mapping, data)
			Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(MatchRegexp(`cases\.` + ext + `:1: ` + want))
			Expect(err.Error()).NotTo(ContainSubstring("no column"))
			Expect(err.Error()).NotTo(ContainSubstring("unknown placeholder"))
		},
		Entry("an empty JSONL file", "jsonl", "", "no rows; add at least one case"),
		Entry("a JSONL file of blank lines", "jsonl", "\n\n", "no rows; add at least one case"),
		Entry("an empty JSON array", "json", "[]", "no rows; add at least one case"),
		Entry("an empty YAML file", "yml", "", "no rows; add at least one case"),
		Entry("an empty CSV file", "csv", "", "the file is empty; write a header row of column names, then a row per case"),
	)

	DescribeTable("maps the columns of every format to scenarios, beside the hand-written ones",
		func(ext, data string) {
			s, err := loadData(ext, mapping, data)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Scenarios).To(HaveLen(3))
			Expect(s.Scenarios[0].ID).To(Equal("hand-written"))
			tool, code := s.Scenarios[1], s.Scenarios[2]
			Expect(tool.ID).To(Equal("sst-taiwan"))
			Expect(tool.Turns[0].Input).To(Equal("台灣海溫, 今天?"))
			Expect(tool.Tags).To(Equal([]string{"zh", "bbox"}))
			e := tool.Turns[0].Expect
			Expect(e.Route).NotTo(BeNil())
			Expect(e.Route.Mode).To(Equal("tool"))
			Expect(e.Route.Tool).To(Equal("ghrsst.bbox_mean"))
			Expect(e.LLMCalls).To(HaveValue(Equal(1)), "a number stays a number")
			Expect(tool.Turns[0].Overrides).To(HaveKey("legacy"))
			Expect(tool.Turns[0].Overrides["legacy"].Route.Mode).To(Equal("code"))
			Expect(code.Turns[0].Expect.Route.Tool).To(BeEmpty(), "an empty cell drops its key")
			Expect(code.Turns[0].Expect.LLMCalls).To(BeNil())
			Expect(s.ScenariosFrom).To(ConsistOf(HaveField("Rows", 2)))
		},
		Entry("CSV", "csv", "case_id,question,tags,mode,tool,calls,must_say,overrides\n"+
			`sst-taiwan,"台灣海溫, 今天?",zh;bbox,tool,ghrsst.bbox_mean,1,°C,"{legacy: {route: {mode: code}}}"`+"\n"+
			"to-csv,convert JSON to CSV,en,code,,,,\n"),
		Entry("TSV", "tsv", "case_id\tquestion\ttags\tmode\ttool\tcalls\tmust_say\toverrides\n"+
			"sst-taiwan\t台灣海溫, 今天?\tzh,bbox\ttool\tghrsst.bbox_mean\t1\t°C\t{legacy: {route: {mode: code}}}\n"+
			"to-csv\tconvert JSON to CSV\ten\tcode\t\t\t\t\n"),
		Entry("JSONL", "jsonl", `{"case_id": "sst-taiwan", "question": "台灣海溫, 今天?", "tags": ["zh", "bbox"], "mode": "tool", "tool": "ghrsst.bbox_mean", "calls": 1, "must_say": "°C", "overrides": {"legacy": {"route": {"mode": "code"}}}}`+"\n"+
			`{"case_id": "to-csv", "question": "convert JSON to CSV", "tags": "en", "mode": "code"}`+"\n"),
		Entry("JSONL with a byte-order mark, as editors on Windows save it", "jsonl", "\ufeff"+`{"case_id": "sst-taiwan", "question": "台灣海溫, 今天?", "tags": ["zh", "bbox"], "mode": "tool", "tool": "ghrsst.bbox_mean", "calls": 1, "must_say": "°C", "overrides": {"legacy": {"route": {"mode": "code"}}}}`+"\n"+
			`{"case_id": "to-csv", "question": "convert JSON to CSV", "tags": "en", "mode": "code"}`+"\n"),
		Entry("JSON with a byte-order mark", "json", "\ufeff"+`[{"case_id": "sst-taiwan", "question": "台灣海溫, 今天?", "tags": ["zh", "bbox"], "mode": "tool", "tool": "ghrsst.bbox_mean", "calls": 1, "must_say": "°C", "overrides": {"legacy": {"route": {"mode": "code"}}}},
  {"case_id": "to-csv", "question": "convert JSON to CSV", "tags": "en", "mode": "code"}]`),
		Entry("JSON, an array of objects", "json", `[
  {"case_id": "sst-taiwan", "question": "台灣海溫, 今天?", "tags": ["zh", "bbox"], "mode": "tool", "tool": "ghrsst.bbox_mean", "calls": 1, "must_say": "°C",
   "overrides": {"legacy": {"route": {"mode": "code"}}}},
  {"case_id": "to-csv", "question": "convert JSON to CSV", "tags": "en", "mode": "code"}
]
`),
		Entry("YAML, a list of mappings", "yml", `# cases of the odbchat router
- case_id: sst-taiwan
  question: 台灣海溫, 今天?
  tags: [zh, bbox]
  mode: tool
  tool: ghrsst.bbox_mean
  calls: 1
  must_say: °C
  overrides: {legacy: {route: {mode: code}}}
- {case_id: to-csv, question: convert JSON to CSV, tags: en, mode: code}
`),
	)

	It("keeps a YAML cell that reads as a date as it is written", func() {
		s, err := loadData("yml", mapping, "- {case_id: d, question: 2025-11-06, mode: code, must_say: 2025-11-06T10:00:00+08:00, tags: x, overrides: {}, tool: t, calls: 1}\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Scenarios[1].Turns[0].Input).To(Equal("2025-11-06"))
		Expect(s.Scenarios[1].Turns[0].Expect.Answer.Contains).To(Equal([]string{"2025-11-06T10:00:00+08:00"}))
	})

	DescribeTable("reports a row that is not an object at its line, with every other problem",
		func(ext, data string, want []string) {
			_, err := loadData(ext, mapping, data)
			Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
			for _, w := range want {
				Expect(err.Error()).To(MatchRegexp(w))
			}
		},
		Entry("JSON", "json", "[\n  {\"case_id\": \"a\", \"question\": \"q\", \"calls\": \"many\"},\n  \"not an object\",\n  {\"case_id\": \"a\", \"question\": \"q2\"}\n]\n",
			[]string{`cases\.json:2: .*llm_calls: want an integer`, `cases\.json:3: not an object`, `cases\.json:4: .*duplicate id "a" \(first at line 2\)`}),
		Entry("JSON that is not an array", "json", `{"case_id": "a"}`, []string{`cases\.json:1: want an array of objects, one per case`}),
		Entry("YAML", "yml", "- {case_id: a, question: q, calls: many}\n- just text\n- {case_id: a, question: q2}\n",
			[]string{`cases\.yml:1: .*llm_calls: want an integer`, `cases\.yml:2: not an object`, `cases\.yml:3: .*duplicate id "a" \(first at line 1\)`}),
		Entry("YAML that does not parse", "yml", "- {case_id: a\n", []string{`cases\.yml:\d+: .*`}),
	)

	It("reports every bad row, missing value and duplicate id as file:line, all at once", func() {
		_, err := loadData("jsonl", mapping, strings.Join([]string{
			`{"case_id": "a", "question": "q", "mode": "tool", "calls": "many"}`,
			`not json`,
			`{"case_id": "a", "question": "q2", "mode": "code"}`,
		}, "\n")+"\n")
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("cases.jsonl:2: not a JSON object"))

		_, err = loadData("jsonl", mapping, strings.Join([]string{
			`{"case_id": "a", "question": "q", "mode": "tool", "calls": "many", "tags": "x", "tool": "t", "must_say": "m", "overrides": {}}`,
			`{"case_id": "b", "mode": "code"}`,
			`{"case_id": "a", "question": "q2", "mode": "code"}`,
			`{"case_id": "hand-written", "question": "q3", "mode": "code"}`,
		}, "\n")+"\n")
		Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue())
		msg := err.Error()
		Expect(msg).To(MatchRegexp(`cases\.jsonl:1: .*llm_calls: want an integer`))
		Expect(msg).To(ContainSubstring(`cases.jsonl:2: no value in column "question" (the input): every row needs an id and an input`))
		Expect(msg).To(MatchRegexp(`cases\.jsonl:3: .*duplicate id "a" \(first at line 1\)`))
		Expect(msg).To(MatchRegexp(`cases\.yaml:\d+: scenarios: id "hand-written" is also a row`))
	})

	It("reports an id two data files share, or share but for case, at the later row, naming the first", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "cases.jsonl"), []byte(`{"case_id": "a", "question": "q"}`+"\n"+`{"case_id": "b", "question": "q"}`+"\n"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "more.csv"), []byte("case_id,question\nc,q\na,q\nB,q\n"), 0o644)).To(Succeed())
		path := filepath.Join(dir, "cases.yaml")
		from := "  - {file: cases.jsonl, id: case_id, input: question, expect: {answer: {contains: x}}}\n  - {file: more.csv, id: case_id, input: question, expect: {answer: {contains: x}}}\n"
		Expect(os.WriteFile(path, []byte(dataSuite("", from)), 0o644)).To(Succeed())
		_, err := scenario.Load(path, scenario.LoadOptions{})
		Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(MatchRegexp(`more\.csv:3: id "a" is also a row of \S*cases\.jsonl:1; rename one`))
		Expect(err.Error()).To(MatchRegexp(`more\.csv:4: id "B" differs from "b" \(\S*cases\.jsonl:2\) only in case`))
	})

	It("names a column the file lacks, at its header, with the key that names it and the rows' problems", func() {
		_, err := loadData("csv", mapping, "case_id,question,mode\nx,q,code\ny,q,code,extra\n")
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("cases.csv:3: 4 fields, the header has 3"))
		Expect(err.Error()).To(MatchRegexp(`cases\.csv:1: no column "tags" \(named by scenarios_from\.tags at \S*cases\.yaml:15; columns: case_id, question, mode\)`))
		Expect(err.Error()).To(MatchRegexp(`cases\.csv:1: no column "overrides" \(named by scenarios_from\.variants at \S*cases\.yaml:16;`))
		for line, col := range map[int]string{18: "tool", 19: "calls", 20: "must_say"} {
			Expect(err.Error()).To(ContainSubstring(fmt.Sprintf(`cases.yaml:%d: scenarios_from.expect.`, line)))
			Expect(err.Error()).To(ContainSubstring(fmt.Sprintf(`unknown placeholder {%s}: no column %q in the header at`, col, col)))
		}
	})

	It("refuses a file outside the suite's folder", func() {
		_, err := loadData("csv", "  file: ../cases.csv\n  id: a\n  input: b\n", "a,b\nc,d\n")
		Expect(err).To(MatchError(ContainSubstring("must be a path inside the suite's folder")))
	})
})
