package scenario_test

import (
	"errors"
	"fmt"
	"strings"

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

	It("reports an unknown placeholder once, not again as every row that expects nothing without it", func() {
		const from = `  file: cases.DATA
  id: case_id
  input: question
  expect: {answer: {contains: "{colour}"}}
`
		_, err := loadData("csv", from, "case_id,question\na,q\nb,q\n")
		Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(MatchRegexp(`^\S*cases\.yaml:15: scenarios_from\.expect\.answer\.contains: unknown placeholder \{colour\}: [^\n]*$`))
	})
})

var _ = Describe("scenarios_from cells", func() {
	const from = `  file: cases.DATA
  id: case_id
  input: question
  tags: tags
  expect:
    route: {mode: "{mode}"}
    answer: {language: "{language}", contains: "see {hint}"}
    args: "{args}"
`
	DescribeTable("refuse an object or a list where a scenario takes text, at the row's line, naming the column, all at once",
		func(ext, data string, want []string) {
			_, err := loadData(ext, from, data)
			Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
			for _, w := range want {
				Expect(err.Error()).To(MatchRegexp(w))
			}
		},
		Entry("JSONL", "jsonl", `{"case_id": "a", "question": "q", "mode": {"x": 1}}
{"case_id": "b", "question": "q", "mode": "tool", "language": ["en"]}
{"case_id": "c", "question": {"text": "q"}, "mode": "tool"}
{"case_id": "d", "question": "q", "mode": "tool", "hint": [1, 2]}
{"case_id": "e", "question": "q", "mode": "tool", "tags": {"a": 1}}
{"case_id": "f", "question": "q", "mode": "tool", "tags": ["zh", ["en"]]}
`, []string{
			`cases\.jsonl:1: scenarios\[0\]\.expect\.route\.mode: want a string, got a mapping \(column "mode"\)`,
			`cases\.jsonl:2: scenarios\[1\]\.expect\.answer\.language: want a string, got a list \(column "language"\)`,
			`cases\.jsonl:3: column "question" holds an object, but a scenario's input is text; write it as a string`,
			`cases\.jsonl:4: expect\.answer\.contains: column "hint" holds a list, which cannot stand inside other text \("see \{hint\}"\)`,
			`cases\.jsonl:5: column "tags" holds an object; tags are a list of strings`,
			`cases\.jsonl:6: column "tags": tag 2 is a list`,
		}),
		Entry("YAML", "yml", `- {case_id: a, question: q, mode: {x: 1}}
- {case_id: b, question: [q], mode: tool}
`, []string{
			`cases\.yml:1: scenarios\[0\]\.expect\.route\.mode: want a string, got a mapping \(column "mode"\)`,
			`cases\.yml:2: column "question" holds a list, but a scenario's input is text`,
		}),
	)

	It("take a number or a boolean as its text where a scenario takes text, and an object where an expectation takes a mapping", func() {
		s, err := loadData("jsonl", from, `{"case_id": 7, "question": 12.0, "mode": true, "hint": 1.5, "args": {"bbox": [118, 20.5]}, "tags": ["zh", 3], "language": "en"}`+"\n")
		Expect(err).NotTo(HaveOccurred())
		sc := s.Scenarios[1]
		Expect(sc.ID).To(Equal("7"))
		Expect(sc.Tags).To(Equal([]string{"zh", "3"}))
		Expect(sc.Turns[0].Input).To(Equal("12"), "a number is its shortest text")
		e := sc.Turns[0].Expect
		Expect(e.Route.Mode).To(Equal("true"))
		Expect(e.Answer.Contains).To(Equal([]string{"see 1.5"}))
		Expect(e.Args).To(Equal(map[string]any{"bbox": []any{118, 20.5}}))
	})
})

var _ = Describe("an empty cell inside other text", func() {
	const from = `  file: cases.DATA
  id: case_id
  input: question
  expect:
    rubric: ["It mentions {city}", "It answers in {language}"]
    answer: {language: "{language}"}
judge: {provider: openai, model: gpt-4.1-mini}
`
	DescribeTable("is refused at the row's line, naming the column and the rubric that writes it, all at once",
		func(ext, data string, fine int, want []string) {
			_, err := loadData(ext, from, data)
			Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
			for _, w := range want {
				Expect(err.Error()).To(ContainSubstring(w))
			}
			Expect(err.Error()).NotTo(ContainSubstring(fmt.Sprintf("cases.%s:%d:", ext, fine)), "the row with every value loads")
		},
		Entry("CSV: an empty cell and one of spaces", "csv", "case_id,question,city,language\na,q,Taipei,en\nb,q,,en\nc,q,  ,\n", 2, []string{
			`cases.csv:3: expect.rubric[0]: column "city" is empty in this row, and expect.rubric[0] writes it inside other text ("It mentions {city}"), which would check that text without it, not what the row means; give the row a value, or write the string as {city} alone, which an empty cell drops`,
			`cases.csv:4: expect.rubric[0]: column "city" is empty in this row`,
			`cases.csv:4: expect.rubric[1]: column "language" is empty in this row, and expect.rubric[1] writes it inside other text ("It answers in {language}")`,
		}),
		Entry("JSONL: a cell left out, and one empty", "jsonl", `{"case_id": "a", "question": "q", "city": "Taipei", "language": "en"}`+"\n"+
			`{"case_id": "b", "question": "q", "language": "en"}`+"\n"+
			`{"case_id": "c", "question": "q", "city": "", "language": "en"}`+"\n", 1, []string{
			`cases.jsonl:2: expect.rubric[0]: column "city" is empty in this row`,
			`cases.jsonl:3: expect.rubric[0]: column "city" is empty in this row`,
		}),
	)

	It("is no problem where the string is the placeholder alone: the empty cell drops its key", func() {
		alone := strings.Replace(from, `, "It answers in {language}"`, "", 1)
		s, err := loadData("csv", alone, "case_id,question,city,language\na,q,Taipei,\n")
		Expect(err).NotTo(HaveOccurred())
		e := s.Scenarios[1].Turns[0].Expect
		Expect(e.Rubrics).To(HaveLen(1))
		Expect(e.Answer).To(BeNil(), "answer: held only the language, now dropped")
	})
})
