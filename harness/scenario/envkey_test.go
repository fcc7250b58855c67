package scenario_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/scenario"
)

// A model key written into a suite's agent.env: is never the key used
// (testbed sets the provider's key variable to a placeholder, and its proxy
// puts the real key on each call) and sits in a file that is committed: the
// loader refuses it at its line, as testbed init refuses a key on its
// command line.
var _ = Describe("a model key in an outside agent's env:", func() {
	src := func(env string) string {
		return "suite: outside\nagent:\n  name: outside\n  command: [node, agent.js]\n" +
			"  model: {provider: anthropic, model: claude-haiku-4-5}\n" +
			"  env: " + env + "\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
	}

	It("is refused at its line, with what to do, whatever the provider", func() {
		_, err := scenario.Parse("s.yaml", []byte(src("{LOG_LEVEL: warn,\n    OPENAI_API_KEY: sk-proj-0123456789abcdefghij}")), opts)
		Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("s.yaml:7: agent.env.OPENAI_API_KEY: a model key does not belong in a suite: testbed gives the program a placeholder OPENAI_API_KEY"))
		Expect(err.Error()).To(ContainSubstring("remove it from env:"))
		Expect(err.Error()).NotTo(ContainSubstring("sk-proj-0123456789abcdefghij"), "the message does not repeat the key")
	})

	It("leaves other variables alone, an upstream's token among them", func() {
		s, err := scenario.Parse("s.yaml", []byte(src("{ORDERS_TOKEN: ord-0123456789abcdef}")), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.External.Env).To(HaveKeyWithValue("ORDERS_TOKEN", "ord-0123456789abcdef"))
	})
})
