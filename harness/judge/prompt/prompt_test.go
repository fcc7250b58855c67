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
	)
})
