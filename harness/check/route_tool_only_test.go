package check_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// A route block's mode is "not checked" when left out (suite-format.md), so
// `route: {tool: lookup_order}` holds an agent to its tool whatever mode it
// took, as a data file's `route: {tool: "{tool}"}` writes it.
var _ = Describe("a route that names a tool and no mode", func() {
	events := []trace.Event{
		{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "lookup_order", Args: json.RawMessage(`{"order_id":"BK-1001"}`)}},
	}
	routeCheck := func(exp scenario.Expect) (bool, string) {
		for _, c := range check.Turn(0, exp, agents.Reply{}, events, nil) {
			if c.Name == "route" {
				return c.Pass, c.Detail
			}
		}
		Fail("no route check")
		return false, ""
	}

	It("passes when that tool was routed to, in any mode", func() {
		ok, detail := routeCheck(scenario.Expect{Route: &scenario.Route{Tool: "lookup_order"}})
		Expect(ok).To(BeTrue(), detail)
	})

	It("still fails on another tool", func() {
		ok, detail := routeCheck(scenario.Expect{Route: &scenario.Route{Tool: "refund_policy"}})
		Expect(ok).To(BeFalse())
		Expect(detail).To(ContainSubstring("tool:lookup_order"))
	})
})
