package kura_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/kura"
)

var _ = Describe("CheckDelta", func() {
	It("keeps a delta that fits the world state contract as it is", func() {
		delta := map[string]any{
			"context": map[string]any{"places": map[string]any{"Paris": map[string]any{"lat": 48.85}}, "lastWeather": map[string]any{"temp": 54.3}},
			"errors":  []any{map[string]any{"step": "S1"}},
			"slots":   map[string]any{"modePrefs": []any{"transit"}},
		}
		clean, violations := kura.CheckDelta(delta)
		Expect(violations).To(BeEmpty())
		Expect(clean).To(Equal(delta))
	})

	DescribeTable("leaves out what breaks the contract, and says where",
		func(delta map[string]any, want map[string]any, problems ...string) {
			clean, violations := kura.CheckDelta(delta)
			Expect(clean).To(Equal(want))
			var got []string
			for _, v := range violations {
				got = append(got, v.String())
			}
			Expect(got).To(Equal(problems))
		},
		Entry("an unknown top-level field",
			map[string]any{"unexpected_field": []any{1.0}, "query": map[string]any{"raw": "hi"}},
			map[string]any{"query": map[string]any{"raw": "hi"}},
			"unexpected_field: unknown field"),
		Entry("an unknown field inside context",
			map[string]any{"context": map[string]any{"wether": map[string]any{}, "units": "metric"}},
			map[string]any{"context": map[string]any{"units": "metric"}},
			"context.wether: unknown field"),
		Entry("an object where a string belongs",
			map[string]any{"context": map[string]any{"units": map[string]any{"system": "metric"}}},
			map[string]any{"context": map[string]any{}},
			"context.units: is an object, want a string"),
		Entry("a string where a list belongs",
			map[string]any{"errors": "geocoding failed"},
			map[string]any{},
			"errors: is a string, want a list"),
		Entry("a number in a list of strings",
			map[string]any{"slots": map[string]any{"modePrefs": []any{"bus", 3.0}}},
			map[string]any{"slots": map[string]any{}},
			"slots.modePrefs: is a list, want a list of strings"),
	)
})
