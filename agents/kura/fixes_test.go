package kura_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("a greeting followed by a request", func() {
	DescribeTable("is planned, not small talk",
		func(q, want string) {
			w := newWorld()
			r := ask(w.agent(nil), q)
			Expect(w.model.roles()[0]).To(Equal("planner"))
			Expect(r.Text).To(ContainSubstring(want))
		},
		Entry("a location question", "Hey, where am I?", "Times Square"),
		Entry("a weather question", "Hi, weather in Paris?", "54.3°F"),
	)
})

var _ = Describe("the weather tool's units", func() {
	It("fall back to the variant's units when the executor gives none", func() {
		w := newWorld()
		w.scripts.scripts["executor"] = executor(map[string]stepScript{
			"S1": {calls: []llm.ToolCall{call("geocode", `{"address":"Paris"}`)},
				output: `{"deltaState":{"context":{"places":{"Paris":{"lat":48.8566,"lng":2.3522}}}},"snippet":"found"}`},
			"S2": {calls: []llm.ToolCall{call("weather", `{"lat":48.8566,"lng":2.3522}`)},
				output: `{"deltaState":{},"snippet":"weather"}`},
		})
		ask(w.agent(map[string]any{"units": "metric"}), "What's the weather in Paris?")
		var weather []agenttest.Request
		for _, s := range upstreamRequests(w.transport) {
			if strings.Contains(s.URL, "currentConditions") {
				weather = append(weather, s)
			}
		}
		Expect(weather).To(HaveLen(1))
		Expect(weather[0].URL).To(ContainSubstring("unitsSystem=METRIC"))
	})
})
