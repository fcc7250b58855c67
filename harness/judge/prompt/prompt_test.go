package prompt_test

import (
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/judge/prompt"
)

var _ = Describe("Parse", func() {
	It("gives a template that writes what the grader is shown", func() {
		t, err := prompt.Parse("Grade {{.Answer}} against {{.Rubric}}{{with .Tools}}, seeing {{.}}{{end}}")
		Expect(err).NotTo(HaveOccurred())
		var b strings.Builder
		Expect(t.Execute(&b, prompt.Subject{Rubric: "r", Answer: "a"})).To(Succeed())
		Expect(b.String()).To(Equal("Grade a against r"))
		Expect(prompt.Fields()).To(Equal([]string{"Rubric", "Input", "Answer", "Tools", "ToolResults"}))
	})

	DescribeTable("returns every problem, at its line of the template",
		func(text string, want prompt.Problems) {
			_, err := prompt.Parse(text)
			var got prompt.Problems
			Expect(errors.As(err, &got)).To(BeTrue(), "%v", err)
			Expect(got).To(HaveLen(len(want)))
			for i, w := range want {
				Expect(got[i].Line).To(Equal(w.Line), "problem %d: %s", i, got[i].Msg)
				Expect(got[i].Msg).To(ContainSubstring(w.Msg))
				Expect(got[i].Field).To(Equal(w.Field))
			}
		},
		Entry("misspelt fields, in branches too", "{{.Rubrik}}\n{{if .Tools}}{{$.Inputs}}{{end}}", prompt.Problems{
			{Line: 1, Field: "Rubrik", Msg: ".Rubrik is not something the grader's prompt sees (it sees .Rubric, .Input, .Answer, .Tools, .ToolResults)"},
			{Line: 2, Field: "Inputs", Msg: ".Inputs is not something"},
		}),
		Entry("a field of text", "x\n{{.Answer.Text}}", prompt.Problems{{Line: 2, Msg: ".Answer is text, with no field .Text"}}),
		Entry("a field of dot where dot is text, found by running it", "{{with .Answer}}\n{{.Rubric}}{{end}}", prompt.Problems{{Line: 2, Msg: `can't evaluate field Rubric in type string`}}),
		Entry("a function that does not exist", "a\nb\n{{lower .Answer}}", prompt.Problems{{Line: 3, Msg: `not a Go template: function "lower" not defined`}}),
		Entry("a prompt that shows the grader neither the answer nor the rubric, whose words are no field", "Grade the answer against the rubric: {{.Input}}", prompt.Problems{
			{Line: 1, Msg: "the prompt does not show the grader .Answer (the agent's answer) whatever the grading data, so a grade would rest on nothing; write {{.Answer}} in it, outside any branch"},
			{Line: 1, Msg: "the prompt does not show the grader .Rubric (the rubric)"},
		}),
		Entry("the answer only in a branch no grading data takes", "{{.Rubric}}{{if false}}{{.Answer}}{{end}}", prompt.Problems{
			{Line: 1, Msg: "the prompt does not show the grader .Answer"},
		}),
		Entry("the answer only when the grader is shown tools, which most rubrics do not ask for", "{{.Rubric}}\n{{with .Tools}}{{$.Answer}}{{end}}", prompt.Problems{
			{Line: 1, Msg: "the prompt does not show the grader .Answer"},
		}),
	)
})
