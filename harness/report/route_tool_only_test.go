package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// An expected route that names a tool and no mode (":lookup_order", as
// check.FormatRoute writes `route: {tool: lookup_order}`) counts toward
// routing accuracy as the route check judges it: that tool, any mode.
var _ = Describe("routing accuracy of a route without a mode", func() {
	It("counts the expected tool in any mode as correct", func() {
		Expect(report.Scenario{ExpectedRoute: ":lookup_order", Route: "tool:lookup_order"}.RouteCorrect()).To(BeTrue())
	})
	It("counts another tool as wrong", func() {
		Expect(report.Scenario{ExpectedRoute: ":lookup_order", Route: "tool:refund_policy"}.RouteCorrect()).To(BeFalse())
		Expect(report.Scenario{ExpectedRoute: ":lookup_order", Route: "answer"}.RouteCorrect()).To(BeFalse())
	})
})
