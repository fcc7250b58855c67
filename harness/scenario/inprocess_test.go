package scenario_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/scenario"
)

// inProcess describes an agent by its name and endpoints only, as a suite
// for package replaytest does.
const inProcess = `suite: weather
agent:
  name: weather
  model: {provider: openai, base_url: "http://localhost:11434/v1", model: "gemma3:4b"}
  upstreams:
    forecast: {base_url: "https://api.example.com"}
clock: 2025-11-06T10:00:00Z
baseline: plain
variants:
  plain: {}
scenarios:
  - id: today
    input: "Weather in Oslo?"
    expect: {llm_calls: 1}
`

var _ = Describe("an agent: mapping without command", func() {
	It("is refused by default: a command is what runs the agent", func() {
		_, err := scenario.Parse("weather.yaml", []byte(inProcess), opts)
		Expect(err).To(MatchError(ContainSubstring(`weather.yaml:3: agent: missing required key "command"`)))
	})

	It("is read with InProcess, for a caller that runs the agent itself", func() {
		o := opts
		o.InProcess = true
		s, err := scenario.Parse("weather.yaml", []byte(inProcess), o)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Agent).To(Equal("weather"))
		Expect(s.External).NotTo(BeNil())
		Expect(s.External.Command).To(BeEmpty())
		Expect(s.External.Model).To(Equal(llm.Endpoint{Provider: "openai", BaseURL: "http://localhost:11434/v1", Model: "gemma3:4b"}))
		Expect(s.External.Upstreams).To(Equal(map[string]string{"forecast": "https://api.example.com"}))
	})

	It("still needs model with InProcess", func() {
		o := opts
		o.InProcess = true
		_, err := scenario.Parse("weather.yaml", []byte(strings.Replace(inProcess, "  model: {provider: openai, base_url: \"http://localhost:11434/v1\", model: \"gemma3:4b\"}\n", "", 1)), o)
		Expect(err).To(MatchError(ContainSubstring(`missing required key "model"`)))
	})
})
