package standin_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// The Climate Advisor's ordering step ("only after an inventory is
// identified, call the data-source tool") is obeyed when stated; deleted,
// the tools go in the request's order. The seed lists the inventory tool
// before the data-source tool, so deleting the step changes nothing on the
// committed scenario (docs/standin.md, prompt sensitivity); listed the
// other way round, it does.
var _ = Describe("the Climate Advisor's order of opening an inventory and listing its data sources", func() {
	var c llm.Client

	BeforeEach(func() { c = client(startStandin(standin.Options{})) })

	DescribeTable("the prompt's order when it states one, else the request's",
		func(reversed, dropped bool, want string) {
			req := advisorRequest(ccAfter("What data sources could Oslo's inventory use?", "city_inventory_search", `{"city_name":"Oslo"}`, cityListing("Oslo", 0))...)
			if reversed {
				req.Tools[2], req.Tools[3] = req.Tools[3], req.Tools[2]
			}
			if dropped {
				req = mutated(req, dropLines("Only after an inventory is identified"))
			}
			m := chat(c, req).Message
			Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
			Expect(m.ToolCalls[0].Name).To(Equal(want))
		},
		Entry("stated, tools as the agent lists them", false, false, "get_inventory"),
		Entry("deleted, tools as the agent lists them: the request's order is the same", false, true, "get_inventory"),
		Entry("stated, the data-source tool listed first", true, false, "get_inventory"),
		Entry("deleted, the data-source tool listed first: the request's order", true, true, "get_all_datasources"),
	)
})
