package scenario_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("scenarios_from expect templates", func() {
	It("puts a column's value only where {name} names a column, leaves every other brace as written, and reads {{ as {", func() {
		const from = `  file: cases.DATA
  id: case_id
  input: question
  expect:
    answer:
      matches: '^{mode}: \d{2}(\.\d{1,3})? \p{Han}+$'
      contains: ["{{mode}}", "{{{tool}}}", "{mode}{tool}"]
    jq:
      - '{a, b} | .a == 1'
      - '{"k": .x} | .k == "{mode}"'
      - '{"o": {"p": 1}} | .o.p == 1'
      - '$text | test("{{tool}}")'
`
		s, err := loadData("jsonl", from, `{"case_id": "a", "question": "q", "mode": "tool", "tool": "x"}`+"\n")
		Expect(err).NotTo(HaveOccurred())
		e := s.Scenarios[1].Turns[0].Expect
		Expect(e.Answer.Matches).To(Equal(`^tool: \d{2}(\.\d{1,3})? \p{Han}+$`), "a regular expression's counts and classes")
		Expect(e.Answer.Contains).To(Equal([]string{"{mode}", "{x}", "toolx"}))
		Expect(e.JQ).To(Equal([]string{
			`{a, b} | .a == 1`,
			`{"k": .x} | .k == "tool"`,
			`{"o": {"p": 1}} | .o.p == 1`,
			`$text | test("{tool}")`,
		}), "jq objects, and a }} that closes no {{")
	})

	DescribeTable("reports a placeholder that names no column at its line in the suite file, with the data file's line, all at once",
		func(ext, data string, want []string) {
			const from = `  file: cases.DATA
  id: case_id
  input: question
  expect:
    answer: {language: "{langauge}"}
    jq: |
      .mode == "{mode}"
      and .colour == "{colour}"
`
			_, err := loadData(ext, from, data)
			Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
			for _, w := range want {
				Expect(err.Error()).To(MatchRegexp(w))
			}
			Expect(err.Error()).NotTo(ContainSubstring(`{mode}`), "a column's placeholder is no problem")
		},
		Entry("JSONL: the first row's line", "jsonl", "\n"+`{"case_id": "a", "question": "q", "mode": "tool", "language": "en"}`+"\n", []string{
			`cases\.yaml:16: scenarios_from\.expect\.answer\.language: unknown placeholder \{langauge\}: no row of \S*cases\.jsonl has a column "langauge" \(its rows, from \S*cases\.jsonl:2, have case_id, language, mode, question\); did you mean \{language\}\?; for the text \{langauge\}, double its braces: \{\{langauge\}\}`,
			`cases\.yaml:19: scenarios_from\.expect\.jq: unknown placeholder \{colour\}: no row of \S*cases\.jsonl has a column "colour"`,
		}),
		Entry("CSV: its header's", "csv", "case_id,question,mode,language\na,q,tool,en\n", []string{
			`cases\.yaml:16: scenarios_from\.expect\.answer\.language: unknown placeholder \{langauge\}: no column "langauge" in the header at \S*cases\.csv:1 \(case_id, question, mode, language\); did you mean \{language\}\?`,
			`cases\.yaml:19: scenarios_from\.expect\.jq: unknown placeholder \{colour\}: no column "colour" in the header at \S*cases\.csv:1`,
		}),
	)
})
