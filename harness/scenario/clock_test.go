package scenario_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

var _ = Describe("agent.clock", func() {
	external := func(clock string) string {
		return `suite: ext
agent:
  name: ext
  command: [python3, agent.py]
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: m}
  clock: ` + clock + `
clock: 2025-11-06T10:00:00+08:00
baseline: default
variants:
  default:
scenarios:
  - id: a
    input: hi
    expect: {answer: {contains: hi}}
`
	}

	DescribeTable("says whether the program's wall clock is faked",
		func(clock string, fake bool) {
			s, err := scenario.Parse("suite.yaml", []byte(external(clock)), scenario.LoadOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(s.External.FakeClock).To(Equal(fake))
		},
		Entry(nil, "fake", true),
		Entry(nil, "system", false),
	)

	It("is refused for an agent run in-process (replaytest), which has its clock from agents.Config", func() {
		_, err := scenario.Parse("suite.yaml", []byte(external("fake")), scenario.LoadOptions{InProcess: true})
		Expect(err).To(MatchError(ContainSubstring("suite.yaml:6: agent.clock: an agent run in-process reads the scenario's clock from agents.Config.Clock")))
	})

	It("takes nothing else", func() {
		_, err := scenario.Parse("suite.yaml", []byte(external("frozen")), scenario.LoadOptions{})
		Expect(err).To(MatchError(`suite.yaml:6: agent.clock: want one of system, fake, got "frozen"`))
	})
})
