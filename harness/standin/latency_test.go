package standin_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("the latency of the stand-in's answers beside its model calls", func() {
	// An answer without a modelled latency is recorded with the time it
	// took on the machine, so a recording made twice differs.
	DescribeTable("is modelled (the fixed latency of a call), so that recording them twice writes the same cassette",
		func(method, path, body string) {
			srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
			resp, b := wirePost(srv, method, path, body)
			Expect(resp.StatusCode).To(BeNumerically("<", 500), "body %s", b)
			Expect(resp.Header.Get(cassette.LatencyHeader)).To(Equal(standin.DefaultLatency().Fixed.String()), "body %s", b)
		},
		Entry("OpenAI's model list", http.MethodGet, "/v1/models", ``),
		Entry("a model", http.MethodGet, "/v1/models/gpt-5-nano", ``),
		Entry("a conversation made", http.MethodPost, "/v1/conversations", `{}`),
		Entry("a response it does not keep", http.MethodGet, "/v1/responses/resp_1", ``),
		Entry("a token count", http.MethodPost, "/v1/responses/input_tokens", `{"model": "m", "input": "hello"}`),
		Entry("Gemini's cached contents", http.MethodGet, "/v1beta/cachedContents", ``),
		Entry("an interaction it does not keep", http.MethodGet, "/v1beta/interactions/v1_abc", ``),
		Entry("Ollama's model list", http.MethodGet, "/api/tags", ``),
		Entry("Ollama's version", http.MethodGet, "/api/version", ``),
	)
})
