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

var _ = Describe("args with a routed tool", func() {
	events := []trace.Event{
		{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "list_tools", Args: json.RawMessage(`{}`)}},
		{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "find_feasible_methods", Args: json.RawMessage(`{"indicator":"7"}`)}},
	}
	argsCheck := func(exp scenario.Expect) (bool, string) {
		for _, c := range check.Turn(0, exp, agents.Reply{}, events, nil) {
			if c.Name == "args" {
				return c.Pass, c.Detail
			}
		}
		Fail("no args check")
		return false, ""
	}

	It("matches the arguments of the route's tool, not of a help tool called first", func() {
		ok, detail := argsCheck(scenario.Expect{Route: &scenario.Route{Mode: "tool", Tool: "find_feasible_methods"}, Args: map[string]any{"indicator": "7"}})
		Expect(ok).To(BeTrue(), detail)
	})

	It("uses the first tool when the route names none", func() {
		ok, detail := argsCheck(scenario.Expect{Args: map[string]any{"indicator": "7"}})
		Expect(ok).To(BeFalse())
		Expect(detail).To(ContainSubstring("list_tools"))
	})

	It("says so when the route's tool was never called", func() {
		ok, detail := argsCheck(scenario.Expect{Route: &scenario.Route{Mode: "tool", Tool: "compare_indicators"}, Args: map[string]any{"x": 1}})
		Expect(ok).To(BeFalse())
		Expect(detail).To(Equal("want a call of compare_indicators with arguments, got none"))
	})
})
