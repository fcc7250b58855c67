package lint_test

import (
	"errors"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = DescribeTable("Prompt",
	func(text string, active []string, want []string) {
		var got []string
		for _, p := range lint.Prompt(agents.PromptSet{Name: "p", Text: text, Active: active,
			Known: []string{"search_indicators", "get_usecase_details", "list_tools", "ghrsst.bbox_mean", "weather"}}) {
			got = append(got, p.Tool)
		}
		Expect(got).To(Equal(want))
	},
	Entry("active tools named", "Use `search_indicators` for topics.", []string{"search_indicators"}, nil),
	Entry("a known tool the set lacks", "Then call get_usecase_details for the details.", []string{"search_indicators"}, []string{"get_usecase_details"}),
	Entry("an unknown tool written as a call", "Start with search_usecases() first.", []string{"search_indicators"}, []string{"search_usecases"}),
	Entry("a dotted tool name", "Prefer ghrsst.bbox_mean over code.", nil, []string{"ghrsst.bbox_mean"}),
	Entry("a longer identifier is not the tool", "see list_tools_by_category and my_search_indicators", nil, nil),
	Entry("each tool reported once, in order", "list_tools, then get_usecase_details(), then list_tools again", nil,
		[]string{"get_usecase_details", "list_tools"}),
	Entry("a snake_case word that is not a call is not a tool", "the `tool_catalog` and `geo_registry` keys", nil, nil),
	Entry("a plain-word tool name in prose is the word", "Weather: give the weather now", nil, nil),
	Entry("a plain-word tool name as code is the tool", "call `weather` with the coordinates", nil, []string{"weather"}),
)

var _ = Describe("Prompt", func() {
	It("gives the line of the first mention", func() {
		ps := lint.Prompt(agents.PromptSet{Name: "minimal.md", Text: "one\ntwo get_usecase_details()\nthree", Active: nil})
		Expect(ps).To(HaveLen(1))
		Expect(ps[0].Line).To(Equal(2))
	})
})

var _ = Describe("Suites", func() {
	It("passes the committed suites", func() {
		suites, err := scenario.LoadDir("../../scenarios", scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		problems, err := lint.Suites("../..", suites, all.Registry())
		Expect(err).NotTo(HaveOccurred())
		Expect(problems).To(BeEmpty())
	})

	It("fails a variant whose prompt names a tool its set lacks", func() {
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "scenarios", "prompts"), 0o755)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(root, "fixtures"), 0o755)).To(Succeed())
		abs, err := filepath.Abs("../../fixtures/climate")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.Symlink(abs, filepath.Join(root, "fixtures", "climate"))).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "prompts", "planted.md"), []byte(
			"You are Climate Advisor.\nList inventories with `get_user_inventories`.\nFor a city's projects call get_city_projects().\n"), 0o644)).To(Succeed())
		s, err := scenario.Parse("climate.yaml", []byte(`suite: climate
agent: climate
clock: 2026-03-02T09:00:00Z
baseline: planted
variants:
  planted: {config: {prompt: prompts/planted.md}}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())

		problems, err := lint.Suites(root, []*scenario.Suite{s}, all.Registry())
		Expect(err).NotTo(HaveOccurred())
		Expect(problems).To(HaveLen(1))
		Expect(problems[0].String()).To(Equal(`climate/planted (agent climate): prompt prompts/planted.md line 3 names tool "get_city_projects", ` +
			`which is not in the active tool set; remove it from the prompt or add the tool to the set`))
	})
})

var _ = Describe("FileProblems", func() {
	It("reads each line of an error as a problem at its place, and a line that names none as a message alone", func() {
		err := errors.Join(
			errors.New("scenarios/a.yaml:12: prices: prices/t.json:3: not a LiteLLM price table\nprices/t.json:7: no input price"),
			errors.New("open fixtures/x/routes.yaml: permission denied"))
		Expect(lint.FileProblems(err)).To(Equal([]lint.Problem{
			{Path: "scenarios/a.yaml", Line: 12, Message: "prices: prices/t.json:3: not a LiteLLM price table"},
			{Path: "prices/t.json", Line: 7, Message: "no input price"},
			{Message: "open fixtures/x/routes.yaml: permission denied"},
		}))
		Expect(lint.FileProblems(err)[0].String()).To(Equal("scenarios/a.yaml:12: prices: prices/t.json:3: not a LiteLLM price table"))
		Expect(lint.FileProblems(nil)).To(BeEmpty())
	})
})
