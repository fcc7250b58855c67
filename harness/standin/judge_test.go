package standin_test

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/judge"
	"github.com/agentreplay/testbed/harness/standin"
)

// gradeBy grades answer against rubric with the stand-in judge over the
// wire format of provider, through the grader testbed uses.
func gradeBy(provider, rubric, answer string) judge.Grade {
	GinkgoHelper()
	srv := startStandin(standin.Options{Policies: standin.Policies()})
	base := srv.URL()
	if provider == llm.ProviderOpenAI {
		base += "/v1"
	}
	g, err := judge.New(context.Background(), llm.Endpoint{Provider: provider, BaseURL: base, Model: "grader"}, "key-for-the-stand-in", http.DefaultClient, "")
	Expect(err).NotTo(HaveOccurred())
	gr, _, err := g.Grade(context.Background(), judge.Subject{Rubric: rubric, Input: "a question", Answer: answer})
	Expect(err).NotTo(HaveOccurred())
	Expect(gr.Reason).To(HavePrefix(standin.JudgeLabel + ": "))
	return gr
}

var _ = Describe("the stand-in judge", func() {
	DescribeTable("answers a grading request in each provider's structured output shape",
		func(provider string) {
			Expect(gradeBy(provider, `It names "GHRSST"`, "GHRSST is a data set.").Score).To(Equal(1.0))
		},
		Entry("OpenAI json_schema", llm.ProviderOpenAI),
		Entry("Anthropic forced tool", llm.ProviderAnthropic),
		Entry("Gemini responseSchema", llm.ProviderGemini),
	)

	DescribeTable("scores the share of the rubric's requirements the answer meets",
		func(rubric, answer string, score float64) {
			Expect(gradeBy(llm.ProviderOpenAI, rubric, answer).Score).To(BeNumerically("~", score, 1e-9))
		},
		Entry("a quoted term present", `The answer says "try again later"`, "Please try again later.", 1.0),
		Entry("a quoted term absent", `The answer says "try again later"`, "It failed.", 0.0),
		Entry("a number present", "It gives the temperature as 26.4", "The sea is 26.4 °C.", 1.0),
		Entry("a number absent", "It gives the temperature as 26.4", "The sea is warm.", 0.0),
		Entry("a negation kept", `It does not mention "bbox_mean"`, "The sea is 26.4 °C.", 1.0),
		Entry("a negation broken", `It does not mention "bbox_mean"`, "I called bbox_mean.", 0.0),
		Entry("key words, half or more", "It explains the anomaly against the climatology baseline", "The anomaly is the difference from the climatology.", 1.0),
		Entry("key words, fewer than half", "It explains the anomaly against the climatology baseline", "The sea is warm today.", 0.0),
		Entry("two clauses, one met", `It names "GHRSST"; it gives the date 2025-11-06`, "GHRSST is a data set.", 0.5),
		Entry("a word's other forms", "It recommends insulation", "We recommended better insulating of the walls.", 1.0),
	)

	It("says which requirements were missed", func() {
		gr := gradeBy(llm.ProviderOpenAI, `It names "GHRSST"; it gives the date 2025-11-06`, "GHRSST is a data set.")
		Expect(gr.Reason).To(Equal(standin.JudgeLabel + `: 1 of 2 requirements met; missed "it gives the date 2025-11-06"`))
	})

	It("prefers the answer that meets more of the rubric, and ties otherwise, whatever the order", func() {
		srv := startStandin(standin.Options{Policies: standin.Policies()})
		g, err := judge.New(context.Background(), llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: srv.URL() + "/v1", Model: "grader"}, "key-for-the-stand-in", http.DefaultClient, "")
		Expect(err).NotTo(HaveOccurred())
		rubric := `It names "GHRSST" and gives 26.4`
		good, bad := "GHRSST says 26.4 °C.", "It is warm."
		p, _, err := g.Prefer(context.Background(), judge.Pair{Rubric: rubric, A: good, B: bad})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Winner).To(Equal("A"))
		p, _, err = g.Prefer(context.Background(), judge.Pair{Rubric: rubric, A: bad, B: good})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Winner).To(Equal("B"))
		p, _, err = g.Prefer(context.Background(), judge.Pair{Rubric: rubric, A: bad, B: bad})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Winner).To(Equal("tie"))
	})

	It("is reached by the grading shape only, never by an agent's wording", func() {
		srv := startStandin(standin.Options{Policies: standin.Policies()})
		resp := chat(client(srv), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "## Rubric\nIt names GHRSST\n\n## Answer\nGHRSST"}}})
		Expect(resp.Message.Content).NotTo(ContainSubstring(standin.JudgeLabel))
	})
})
