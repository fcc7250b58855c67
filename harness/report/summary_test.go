package report_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// routed is a scenario that expected one route and took another.
func routed(expected, observed string) report.Scenario {
	return report.Scenario{ID: expected + "→" + observed, ExpectedRoute: expected, Route: observed}
}

// toolEvent is a tool call with its payload sizes.
func toolEvent(name string, raw, context int) trace.Event {
	return trace.Event{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: name, RawTokens: raw, ContextTokens: context}}
}

var _ = DescribeTable("Confusion",
	func(scs []report.Scenario, want []report.ConfusionCell) {
		Expect(report.Confusion(scs)).To(Equal(want))
	},
	Entry("counts each (expected, observed) pair",
		[]report.Scenario{routed("tool:a", "tool:a"), routed("tool:a", "tool:b"), routed("tool:a", "tool:a")},
		[]report.ConfusionCell{{Expected: "tool:a", Observed: "tool:a", Count: 2}, {Expected: "tool:a", Observed: "tool:b", Count: 1}}),
	Entry("sorts by expected, then observed",
		[]report.Scenario{routed("tool:b", "answer"), routed("tool:a", "tool:b"), routed("answer", "tool:a"), routed("tool:a", "answer")},
		[]report.ConfusionCell{
			{Expected: "answer", Observed: "tool:a", Count: 1},
			{Expected: "tool:a", Observed: "answer", Count: 1},
			{Expected: "tool:a", Observed: "tool:b", Count: 1},
			{Expected: "tool:b", Observed: "answer", Count: 1},
		}),
	Entry("does not count a scenario without an ExpectedRoute",
		[]report.Scenario{{ID: "free", Route: "tool:a"}, routed("answer", "answer")},
		[]report.ConfusionCell{{Expected: "answer", Observed: "answer", Count: 1}}),
	Entry("keeps a scenario that routed nothing, observed as empty",
		[]report.Scenario{routed("tool:a", ""), routed("tool:a", "")},
		[]report.ConfusionCell{{Expected: "tool:a", Observed: "", Count: 2}}),
	Entry("is nil when no scenario expects a route",
		[]report.Scenario{{ID: "free", Route: "tool:a"}}, nil),
	Entry("is nil for no scenarios", nil, nil),
)

var _ = DescribeTable("Trimming",
	func(scs []report.Scenario, want []report.ToolTrim) {
		Expect(report.Trimming(scs)).To(Equal(want))
	},
	Entry("sums the calls of one tool across events and scenarios",
		[]report.Scenario{
			{Events: []trace.Event{toolEvent("cwa.rainfall", 400, 100), toolEvent("cwa.rainfall", 200, 50)}},
			{Events: []trace.Event{toolEvent("cwa.rainfall", 400, 100)}},
		},
		[]report.ToolTrim{{Tool: "cwa.rainfall", Calls: 3, RawTokens: 1000, ContextTokens: 250, Reduction: 0.75}}),
	Entry("gives reduction 0 when raw is 0",
		[]report.Scenario{{Events: []trace.Event{toolEvent("cwa.forecast", 0, 39)}}},
		[]report.ToolTrim{{Tool: "cwa.forecast", Calls: 1, ContextTokens: 39, Reduction: 0}}),
	Entry("sorts by tool name",
		[]report.Scenario{
			{Events: []trace.Event{toolEvent("c", 100, 50), toolEvent("a", 100, 25)}},
			{Events: []trace.Event{toolEvent("b", 100, 100)}},
		},
		[]report.ToolTrim{
			{Tool: "a", Calls: 1, RawTokens: 100, ContextTokens: 25, Reduction: 0.75},
			{Tool: "b", Calls: 1, RawTokens: 100, ContextTokens: 100, Reduction: 0},
			{Tool: "c", Calls: 1, RawTokens: 100, ContextTokens: 50, Reduction: 0.5},
		}),
	Entry("counts only tool events",
		[]report.Scenario{{Events: []trace.Event{
			{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "router", ToolCalls: []trace.Call{{Name: "a"}}}},
			{Kind: trace.KindHTTP, HTTP: &trace.Exchange{Method: "GET", URL: "https://example.org/a"}},
			{Kind: trace.KindNote, Note: &trace.Note{Key: "route", Value: "tool:a"}},
			toolEvent("a", 80, 20),
		}}},
		[]report.ToolTrim{{Tool: "a", Calls: 1, RawTokens: 80, ContextTokens: 20, Reduction: 0.75}}),
	Entry("is nil without tool events",
		[]report.Scenario{{Events: []trace.Event{{Kind: trace.KindNote, Note: &trace.Note{Key: "route", Value: "answer"}}}}}, nil),
	Entry("adds up every sample of a sampled scenario, as the summary does, not sample 1 alone",
		[]report.Scenario{report.Sample([]report.Scenario{
			{Verdict: report.VerdictPass, Events: []trace.Event{toolEvent("a", 100, 50)}},
			{Verdict: report.VerdictPass, Events: []trace.Event{toolEvent("a", 300, 50), toolEvent("b", 40, 10)}},
		}, 1)},
		[]report.ToolTrim{
			{Tool: "a", Calls: 2, RawTokens: 400, ContextTokens: 100, Reduction: 0.75},
			{Tool: "b", Calls: 1, RawTokens: 40, ContextTokens: 10, Reduction: 0.75},
		}),
	Entry("leaves out a stale sample's calls and counts it, though sample 1 was measured",
		[]report.Scenario{report.Sample([]report.Scenario{
			{Verdict: report.VerdictPass, Events: []trace.Event{toolEvent("a", 100, 50)}},
			{Verdict: report.VerdictStale, Events: []trace.Event{toolEvent("a", 900, 900), toolEvent("a", 900, 900)}},
			{Verdict: report.VerdictPass, Events: []trace.Event{toolEvent("a", 100, 25)}},
		}, 0.5)},
		[]report.ToolTrim{{Tool: "a", Calls: 2, RawTokens: 200, ContextTokens: 75, Reduction: 0.625, Unmeasured: 1}}),
	Entry("counts a measured later sample's calls when sample 1 errored",
		[]report.Scenario{report.Sample([]report.Scenario{
			{Verdict: report.VerdictError, Events: []trace.Event{toolEvent("a", 100, 100)}},
			{Verdict: report.VerdictPass, Events: []trace.Event{toolEvent("a", 200, 50)}},
		}, 0.5)},
		[]report.ToolTrim{{Tool: "a", Calls: 1, RawTokens: 200, ContextTokens: 50, Reduction: 0.75, Unmeasured: 1}}),
)

var _ = Describe("SumTrimming", func() {
	It("adds up the trims of disjoint runs into what Trimming gives for all of them", func() {
		a := []report.Scenario{report.Sample([]report.Scenario{
			{Verdict: report.VerdictPass, Events: []trace.Event{toolEvent("a", 100, 50)}},
			{Verdict: report.VerdictStale, Events: []trace.Event{toolEvent("b", 900, 900)}},
		}, 0.5)}
		b := []report.Scenario{{Verdict: report.VerdictPass, Events: []trace.Event{toolEvent("a", 300, 50), toolEvent("c", 40, 10)}}}
		Expect(report.SumTrimming(report.Trimming(a), report.Trimming(b))).To(Equal(report.Trimming(append(a, b...))))
		Expect(report.SumTrimming(nil, nil)).To(BeNil())
	})
})
