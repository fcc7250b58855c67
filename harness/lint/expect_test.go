package lint_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/scenario"
)

// suiteWith is a suite of agent odbchat, variants a and b, whose one
// scenario expects expect (and, for variant b, override).
func suiteWith(expect, override string) *scenario.Suite {
	GinkgoHelper()
	src := `suite: s
agent: odbchat
clock: 2025-11-06T10:00:00+08:00
baseline: a
variants: {a: {}, b: {}}
scenarios:
  - id: one
    input: hi
    expect: ` + expect + `
    variants:
      b: ` + override + `
`
	s, err := scenario.Parse("s.yaml", []byte(src), scenario.LoadOptions{})
	Expect(err).NotTo(HaveOccurred())
	return s
}

var tools = []string{"ghrsst.bbox_mean", "ghrsst.point_value", "rag.search"}

var _ = DescribeTable("Expectations",
	func(expect, override, variant string, want []string) {
		var got []string
		for _, p := range lint.Expectations(suiteWith(expect, override), variant, tools) {
			got = append(got, p.String())
		}
		Expect(got).To(Equal(want))
	},
	Entry("tools the variant has", "{route: {mode: tool, tool: ghrsst.bbox_mean}, tools: [ghrsst.bbox_mean], must_call: [rag.search]}", "{llm_calls: 1}", "a", nil),
	Entry("a misspelt route tool", "{route: {mode: tool, tool: ghrsst.bbox_meen}}", "{llm_calls: 1}", "a",
		[]string{`s.yaml:9: scenario one: expect.route.tool names tool "ghrsst.bbox_meen", which variant a of agent odbchat does not have; did you mean "ghrsst.bbox_mean"? (its tools: ghrsst.bbox_mean, ghrsst.point_value, rag.search)`}),
	Entry("tools names, not_call and must_call", "{tools: {match: subset, names: [ghrsst.bbox_meen], not_call: [nope]}, must_call: [rag.serch]}", "{llm_calls: 1}", "a",
		[]string{
			`s.yaml:9: scenario one: expect.tools names tool "ghrsst.bbox_meen", which variant a of agent odbchat does not have; did you mean "ghrsst.bbox_mean"? (its tools: ghrsst.bbox_mean, ghrsst.point_value, rag.search)`,
			`s.yaml:9: scenario one: expect.tools.not_call names tool "nope", which variant a of agent odbchat does not have (its tools: ghrsst.bbox_mean, ghrsst.point_value, rag.search)`,
			`s.yaml:9: scenario one: expect.must_call names tool "rag.serch", which variant a of agent odbchat does not have; did you mean "rag.search"? (its tools: ghrsst.bbox_mean, ghrsst.point_value, rag.search)`,
		}),
	Entry("a variant's override, at its line", "{tools: [rag.search]}", "{tools: [rag.serch]}", "b",
		[]string{`s.yaml:11: scenario one: expect.tools names tool "rag.serch", which variant b of agent odbchat does not have; did you mean "rag.search"? (its tools: ghrsst.bbox_mean, ghrsst.point_value, rag.search)`}),
	Entry("an override replaces what it overrides", "{tools: [rag.serch]}", "{tools: [rag.search]}", "b", nil),
)
