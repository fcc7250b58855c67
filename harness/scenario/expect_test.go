package scenario_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("Turn.ExpectFor", func() {
	base := scenario.Expect{
		Route:     &scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"},
		Tools:     &scenario.ToolSequence{Match: "exact", Names: []string{"ghrsst.bbox_mean"}},
		Args:      map[string]any{"bbox": []any{118.0, 20.0}},
		Tolerance: 0.01,
		Answer:    &scenario.AnswerExpect{Contains: []string{"°C"}},
		JQ:        []string{".ok"},
		LLMCalls:  ptr(1),
		ToolCalls: ptr(1),
		Budget:    &scenario.Budget{Latency: 2 * time.Second},
	}
	with := func(change func(*scenario.Expect)) scenario.Expect {
		e := base
		change(&e)
		return e
	}

	DescribeTable("replaces only the fields the variant's override sets",
		func(variant string, want scenario.Expect) {
			t := scenario.Turn{
				Input:  "hi",
				Expect: base,
				Overrides: map[string]scenario.Expect{
					"code":    {Route: &scenario.Route{Mode: "code"}, LLMCalls: ptr(2)},
					"none":    {Tools: &scenario.ToolSequence{Match: "exact", Names: []string{}}, ToolCalls: ptr(0)},
					"loose":   {Tolerance: 0.5, Args: map[string]any{"bbox": []any{118.0}}},
					"english": {Answer: &scenario.AnswerExpect{Language: "en"}, JQ: []string{".en"}},
					"slow":    {Budget: &scenario.Budget{InputTokens: 100}},
					"empty":   {Args: map[string]any{}, JQ: []string{}},
				},
			}
			Expect(t.ExpectFor(variant)).To(Equal(want))
		},
		Entry("no override", "legacy", base),
		Entry("route and a count; Route is replaced whole", "code", with(func(e *scenario.Expect) {
			e.Route = &scenario.Route{Mode: "code"}
			e.LLMCalls = ptr(2)
		})),
		Entry("zero counts and an empty tool list still override", "none", with(func(e *scenario.Expect) {
			e.Tools = &scenario.ToolSequence{Match: "exact", Names: []string{}}
			e.ToolCalls = ptr(0)
		})),
		Entry("args and tolerance", "loose", with(func(e *scenario.Expect) {
			e.Tolerance = 0.5
			e.Args = map[string]any{"bbox": []any{118.0}}
		})),
		Entry("answer and jq", "english", with(func(e *scenario.Expect) {
			e.Answer = &scenario.AnswerExpect{Language: "en"}
			e.JQ = []string{".en"}
		})),
		Entry("budget, replaced whole", "slow", with(func(e *scenario.Expect) {
			e.Budget = &scenario.Budget{InputTokens: 100}
		})),
		Entry("empty args and jq do not override", "empty", base),
	)

	It("returns Expect when the turn has no overrides", func() {
		Expect(scenario.Turn{Expect: base}.ExpectFor("code")).To(Equal(base))
	})
})
