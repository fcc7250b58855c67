package external_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

var _ = Describe("the environment of an outside agent", func() {
	// The OpenAI Agents SDK (JavaScript and Python) exports its traces to
	// https://api.openai.com/v1/traces/ingest whatever OPENAI_BASE_URL
	// says, with the key the program holds: testbed's placeholder.
	It("turns the OpenAI Agents SDK's trace export off, which would post to api.openai.com past the proxy", func() {
		ans, _, _, err := runOnce(external.Spec{Command: []string{"sh", "-c", `read l; printf '{"text":"%s"}\n' "${OPENAI_AGENTS_DISABLE_TRACING-unset}"`}, TurnTimeout: time.Minute}, "", "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("1"))
	})

	It("leaves that to the suite's env: when it sets the variable", func() {
		spec := external.Spec{Command: []string{"sh", "-c", "true"}, Env: map[string]string{external.TracingOff: "0"}}
		env, err := external.Environment(spec, llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
			nil, nil, time.Unix(0, 0), "http://127.0.0.1:1/s/x", 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(env).To(HaveKeyWithValue(external.TracingOff, "0"))
	})
})
