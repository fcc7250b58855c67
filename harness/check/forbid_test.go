package check_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = DescribeTable("forbid",
	func(terms []string, text string, pass bool, detail string) {
		cs := check.Turn(0, scenario.Expect{Forbid: terms}, agents.Reply{Text: text}, nil, nil)
		Expect(cs).To(HaveLen(1))
		Expect(cs[0].Name).To(Equal("forbid"))
		Expect(cs[0].Pass).To(Equal(pass))
		Expect(cs[0].Detail).To(Equal(detail))
	},
	Entry("absent", []string{"list_tools", "describe_tool"}, "I consulted internal tool docs.", true, ""),
	Entry("present, in another case", []string{"describe_tool"}, "I used Describe_Tool to check.", false,
		`answer names forbidden "describe_tool": "I used Describe_Tool to check."`),
	Entry("a longer word is not the term", []string{"list_tools"}, "see my_list_tools_helper", true, ""),
	Entry("at the very start and end", []string{"list_tools"}, "list_tools", false, `answer names forbidden "list_tools": "list_tools"`),
	Entry("every term found is named", []string{"list_tools", "describe_tool"}, "list_tools then describe_tool", false,
		`answer names forbidden "list_tools", "describe_tool": "list_tools then describe_tool"`),
	Entry("punctuation around the term counts as a boundary", []string{"list_tools"}, "(list_tools)", false,
		`answer names forbidden "list_tools": "(list_tools)"`),
)

var _ = Describe("a run's Regexps", func() {
	It("judges as compiling every time does, the first time and again", func() {
		exp := scenario.Expect{Forbid: []string{"list_tools"}, Answer: &scenario.AnswerExpect{Matches: `^I used`}}
		reply := agents.Reply{Text: "I used list_tools."}
		want := check.Turn(0, exp, reply, nil, nil)
		Expect(want).To(HaveLen(2))
		res := &check.Regexps{}
		Expect(check.Turn(0, exp, reply, nil, res)).To(Equal(want))
		Expect(check.Turn(0, exp, reply, nil, res)).To(Equal(want))
	})
})
