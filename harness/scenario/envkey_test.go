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
	src := func(provider, env string) string {
		return "suite: outside\nagent:\n  name: outside\n  command: [node, agent.js]\n" +
			"  model: {provider: " + provider + ", model: m-1}\n" +
			"  env: " + env + "\n" +
			"clock: 2025-11-06T10:00:00+08:00\nbaseline: v1\nvariants:\n  v1: {}\nscenarios:\n  - id: a\n    input: hi\n    expect: {llm_calls: 1}\n"
	}

	DescribeTable("is refused at its line, with what to do, when it is the variable testbed sets for the model's provider",
		func(provider, key string) {
			_, err := scenario.Parse("s.yaml", []byte(src(provider, "{LOG_LEVEL: warn,\n    "+key+": sk-proj-0123456789abcdefghij}")), opts)
			Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring("s.yaml:7: agent.env." + key + ": a model key does not belong in a suite: testbed gives the program a placeholder " + key))
			Expect(err.Error()).To(ContainSubstring("remove it from env:"))
			Expect(err.Error()).NotTo(ContainSubstring("sk-proj-0123456789abcdefghij"), "the message does not repeat the key")
		},
		Entry("OpenAI", "openai", "OPENAI_API_KEY"),
		Entry("Anthropic", "anthropic", "ANTHROPIC_API_KEY"),
		Entry("Gemini", "gemini", "GEMINI_API_KEY"),
	)

	DescribeTable("leaves other variables alone",
		func(provider, env, key string) {
			s, err := scenario.Parse("s.yaml", []byte(src(provider, env)), opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.External.Env).To(HaveKey(key))
		},
		Entry("an upstream's token", "anthropic", "{ORDERS_TOKEN: ord-0123456789abcdef}", "ORDERS_TOKEN"),
		Entry("a key variable testbed does not set, which an SDK may need set (LangChain's Google models read GOOGLE_API_KEY)", "gemini", "{GOOGLE_API_KEY: not-a-key}", "GOOGLE_API_KEY"),
		Entry("another provider's key variable", "anthropic", "{OPENAI_API_KEY: not-a-key}", "OPENAI_API_KEY"),
	)
})
