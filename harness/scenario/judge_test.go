package scenario_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/scenario"
)

const judged = `suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: legacy
judge:
  provider: anthropic
  model: claude-haiku-4-5
  compare: "The better answer is the one a forecaster can act on"
variants:
  legacy: {}
scenarios:
  - id: one
    input: "What is GHRSST?"
    expect:
      rubric: "The answer explains what GHRSST is"
  - id: many
    input: "What is GHRSST?"
    expect:
      rubric:
        - "It names the data set"
        - rubric: "It does not mention internal tool names"
          min_score: 90%
          weight: 2
          with: [tools, tool_results]
          pass: ["GHRSST is a sea surface temperature data set."]
          fail: ["I called ghrsst.bbox_mean."]
`

var _ = Describe("rubric checks and the judge: block", func() {
	It("reads a judge and rubrics as a string, a list and mappings, with their defaults", func() {
		s, err := scenario.Parse("odbchat.yaml", []byte(judged), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Judge).To(Equal(&scenario.Judge{
			Endpoint: llm.Endpoint{Provider: "anthropic", Model: "claude-haiku-4-5", BaseURL: llm.AnthropicBaseURL},
			Compare:  "The better answer is the one a forecaster can act on",
			Line:     6,
		}))
		Expect(s.Scenarios[0].Turns[0].Expect.Rubrics).To(Equal([]scenario.Rubric{
			{Text: "The answer explains what GHRSST is", MinScore: scenario.DefaultMinScore, Weight: 1, Line: 15},
		}))
		Expect(s.Scenarios[1].Turns[0].Expect.Rubrics).To(Equal([]scenario.Rubric{
			{Text: "It names the data set", MinScore: scenario.DefaultMinScore, Weight: 1, Line: 20},
			{Text: "It does not mention internal tool names", MinScore: 0.9, Weight: 2, With: []string{"tools", "tool_results"},
				Pass: []string{"GHRSST is a sea surface temperature data set."}, Fail: []string{"I called ghrsst.bbox_mean."}, Line: 21},
		}))
		Expect(s.Scenarios[1].Graded("legacy")).To(BeTrue())
		Expect(s.Judges("rubric[1]")).To(BeTrue())
	})

	It("gives an openai judge OpenAI's own API when it names no base_url", func() {
		s, err := scenario.Parse("odbchat.yaml", []byte(`suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: legacy
judge: {provider: openai, model: gpt-4.1-mini}
variants:
  legacy: {}
scenarios:
  - id: one
    input: "What is GHRSST?"
    expect: {rubric: "It explains GHRSST"}
`), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Judge.Endpoint.BaseURL).To(Equal(llm.OpenAIBaseURL))
	})

	It("refuses a gate on rubric_score_mean in a suite without a rubric check, at the gate's key, and takes one a variant's rubric gives", func() {
		suite := func(expect string) string {
			return `suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: legacy
judge: {provider: openai, model: gpt-4.1-mini}
gate:
  pass_rate: 0
  rubric_score_mean: 5%
variants:
  legacy: {}
  single-pass: {}
scenarios:
  - id: one
    input: "What is GHRSST?"
    expect: {llm_calls: 1}
` + expect
		}
		_, err := scenario.Parse("odbchat.yaml", []byte(suite("")), opts)
		Expect(err).To(MatchError(ContainSubstring("odbchat.yaml:8: gate.rubric_score_mean: no scenario of the suite has a rubric check, so the gate would hold rubric_score_mean over nothing and fail every run")))

		_, err = scenario.Parse("odbchat.yaml", []byte(suite(`    variants: {single-pass: {rubric: "It explains GHRSST"}}
`)), opts)
		Expect(err).NotTo(HaveOccurred())
	})

	It("reports every problem of rubrics and the judge at its line, all at once", func() {
		_, err := scenario.Parse("odbchat.yaml", []byte(`suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: legacy
judge: {provider: mistral, prompt: "{{.Rubric", compare: "  "}
variants:
  legacy: {}
scenarios:
  - id: one
    input: "What is GHRSST?"
    expect:
      rubric:
        - ""
        - {rubric: "x", min_score: 2, weight: 0, with: [logs], grade: 1}
        - {rubric: "y", min_score: 0%}
  - id: two.judge
    input: "What is GHRSST?"
    expect: {llm_calls: 1}
`), opts)
		Expect(err).To(HaveOccurred())
		for _, want := range []string{
			`odbchat.yaml:5: judge: missing required key "model"`,
			`odbchat.yaml:5: judge.provider: `,
			`odbchat.yaml:5: judge.prompt: not a Go template`,
			`odbchat.yaml:5: judge.compare: empty comparison rubric; say what makes one answer better than the other, or remove it`,
			`odbchat.yaml:13: scenarios[0].expect.rubric[0]: empty value; fill it in or remove it`,
			`odbchat.yaml:14: scenarios[0].expect.rubric[1]: unknown key "grade"`,
			`odbchat.yaml:14: scenarios[0].expect.rubric[1].min_score: want a fraction from 0 to 1`,
			`odbchat.yaml:14: scenarios[0].expect.rubric[1].weight: want a weight above 0, got 0`,
			`odbchat.yaml:14: scenarios[0].expect.rubric[1].with: "logs" is not something the grader can see`,
			`odbchat.yaml:15: scenarios[0].expect.rubric[2].min_score: a minimum of 0 passes whatever the grader says, so the rubric could only pass; give a minimum above 0 (the default is 0.7)`,
			`ends like the grader cassette of a scenario (<id>.judge.yaml)`,
		} {
			Expect(err.Error()).To(ContainSubstring(want))
		}
	})

	DescribeTable("checks judge.prompt as grading reads it, each problem at its line of the suite file",
		func(prompt string, want []string) {
			_, err := scenario.Parse("odbchat.yaml", judgedSuite("  provider: openai\n  model: gpt-4.1-mini\n  prompt: "+prompt+"\n"), opts)
			Expect(err).To(HaveOccurred())
			for _, w := range want {
				Expect(err.Error()).To(ContainSubstring(w))
			}
		},
		Entry("a misspelt field", `"Grade {{.Answer}} against {{.Rubrik}}"`, []string{
			`odbchat.yaml:8: judge.prompt: .Rubrik is not something the grader's prompt sees (it sees .Rubric, .Input, .Answer, .Tools, .ToolResults); did you mean .Rubric?`,
		}),
		Entry("every misspelt field of a block, at its own line, in branches that the grading data would skip too", `|
    Rubric: {{.Rubric}}
    {{if .Tools}}Tools: {{.Tool}}{{end}}
    {{with .Answer}}Answer: {{.}}{{else}}{{$.answer}}{{end}}`, []string{
			`odbchat.yaml:10: judge.prompt: .Tool is not something the grader's prompt sees`,
			`odbchat.yaml:11: judge.prompt: .answer is not something the grader's prompt sees (it sees .Rubric, .Input, .Answer, .Tools, .ToolResults); did you mean .Answer?`,
		}),
		Entry("a field of a field, which is text", `"{{.Rubric.Text}}"`, []string{
			`odbchat.yaml:8: judge.prompt: .Rubric is text, with no field .Text`,
		}),
		Entry("what fails only when it runs", `|
    {{.Rubric}}
    {{template "missing"}}`, []string{
			`odbchat.yaml:10: judge.prompt: template "missing" not defined`,
		}),
		Entry("a template that does not parse, at its line", `|
    {{.Rubric}}
    {{.Answer
    `, []string{
			`odbchat.yaml:10: judge.prompt: not a Go template: unclosed action started at the prompt's line 2`,
		}),
	)

	It("takes a judge.prompt that uses what grading shows, in any branch", func() {
		s, err := scenario.Parse("odbchat.yaml", judgedSuite(`  provider: openai
  model: gpt-4.1-mini
  prompt: |
    {{.Rubric}} {{.Input}} {{.Answer}}
    {{with .Tools}}{{.}} {{$.ToolResults}}{{end}}
    {{range $i := len .Answer}}{{$i}}{{end}} {{printf "%q" .Answer}}
    {{if .ToolResults}}{{.ToolResults}}{{else}}{{.Input}}{{end}}
`), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Judge.Prompt).To(HavePrefix("{{.Rubric}}"))
	})

	It("refuses rubric checks in a suite without a judge, naming the fix", func() {
		_, err := scenario.Parse("odbchat.yaml", []byte(`suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: legacy
variants:
  legacy: {}
scenarios:
  - id: one
    input: "What is GHRSST?"
    expect: {rubric: "It explains GHRSST"}
`), opts)
		Expect(err).To(MatchError(ContainSubstring(`odbchat.yaml:10: judge: a rubric check needs the suite's judge: block; add judge: {provider: openai, model: gpt-4o-mini} (docs/judges.md)`)))
	})
})

var _ = DescribeTable("judge.reasoning says whether the grader's model reasons, over its name",
	func(value string, want *bool, problem string) {
		s, err := scenario.Parse("odbchat.yaml", judgedSuite("  provider: azure\n  base_url: https://acme.openai.azure.com\n  model: house-grader\n"+value), opts)
		if problem != "" {
			Expect(err).To(MatchError(ContainSubstring(problem)))
			return
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Judge.Reasoning).To(Equal(want))
	},
	Entry("unset: by its name", "", nil, ""),
	Entry("true", "  reasoning: true\n", new(true), ""),
	Entry("false", "  reasoning: false\n", new(false), ""),
	Entry("not a boolean, at its line", "  reasoning: sometimes\n", nil, "odbchat.yaml:9: judge.reasoning"),
)

// judgedSuite is a suite of one scenario with a rubric check, whose judge:
// block (at line 5) holds judge, its lines indented.
func judgedSuite(judge string) []byte {
	return []byte(`suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: legacy
judge:
` + judge + `variants:
  legacy: {}
scenarios:
  - id: one
    input: "What is GHRSST?"
    expect: {rubric: "It explains GHRSST"}
`)
}
