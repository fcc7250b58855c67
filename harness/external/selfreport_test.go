package external_test

import (
	"context"
	"net/http"
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

var _ = Describe("tool calls an outside agent reports itself", func() {
	const user = `{"role": "user", "content": "go"}`

	// runReporting runs script as an outside agent over api for one turn,
	// answering with reply, and returns the tool calls traced.
	runReporting := func(api http.RoundTripper, script, reply string) []string {
		GinkgoHelper()
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		tr := &traced{}
		cfg := agents.Config{
			HTTP: &http.Client{Transport: api}, Tracer: tr, Clock: func() time.Time { return time.Unix(0, 0) },
			Endpoint:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
			Upstreams: map[string]string{"rates": "https://rates.example"},
		}
		a, err := external.New(external.Spec{Command: []string{"sh", "-c", "read l\n" + script + "\necho '" + reply + "'"}, TurnTimeout: time.Minute}, GinkgoT().TempDir())(cfg)
		Expect(err).NotTo(HaveOccurred())
		_, err = a.Run(context.Background(), agents.Input{Turns: []string{"go"}})
		Expect(err).NotTo(HaveOccurred())
		return tr.tools
	}

	// A program on the OpenAI Agents SDK reports each call's output, which
	// is what it fetched; the context it sent back is in its traffic.
	It("reads a raw payload or a context the report leaves out from the traffic of the model's call of that tool, so an omitted context is no 100% trimming", func() {
		api := &chatAPI{
			answers: []string{callAnswer("c1", "fetch_rates", `{}`), callAnswer("c2", "add_up", `{}`), textAnswer},
			upstreams: map[string]struct {
				status int
				body   string
			}{"/latest": {200, `{"n": 1}`}},
		}
		call1 := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`
		call2 := `{"role": "assistant", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "add_up", "arguments": "{}"}}]}`
		res1 := `{"role": "tool", "tool_call_id": "c1", "content": "one rate: 1"}`
		res2 := `{"role": "tool", "tool_call_id": "c2", "content": "42"}`
		script := post(`[`+user+`]`) + "\n" +
			`curl -s "$RATES_BASE_URL/latest" >/dev/null` + "\n" +
			post(`[`+user+`, `+call1+`, `+res1+`]`) + "\n" +
			post(`[`+user+`, `+call1+`, `+res1+`, `+call2+`, `+res2+`]`)
		reply := `{"text": "ok", "tools": [{"name": "fetch_rates", "args": {}, "raw": "{\"n\": 1}"}, {"name": "add_up", "args": {}},` +
			` {"name": "cache_lookup", "args": {}, "raw": "hit", "context": ""}]}`
		Expect(runReporting(api, script, reply)).To(Equal([]string{
			`fetch_rates {} raw={"n": 1} context=one rate: 1`,
			`add_up {} raw=42 context=42`,
			`cache_lookup {} raw=hit context=`,
		}), "what a report gives, an empty context included, is kept; a tool the model did not ask for has nothing to read")
	})

	It("pairs the reports of one tool with the model's calls of it in order", func() {
		api := &chatAPI{answers: []string{
			`{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add_up", "arguments": "{\"a\": 1}"}}, {"id": "c2", "type": "function", "function": {"name": "add_up", "arguments": "{\"a\": 2}"}}]}`,
			textAnswer,
		}}
		calls := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add_up", "arguments": "{\"a\": 1}"}}, {"id": "c2", "type": "function", "function": {"name": "add_up", "arguments": "{\"a\": 2}"}}]}`
		script := post(`[`+user+`]`) + "\n" +
			post(`[`+user+`, `+calls+`, {"role": "tool", "tool_call_id": "c1", "content": "one"}, {"role": "tool", "tool_call_id": "c2", "content": "two"}]`)
		reply := `{"text": "ok", "tools": [{"name": "add_up", "args": {"a": 1}}, {"name": "add_up", "args": {"a": 2}}]}`
		Expect(runReporting(api, script, reply)).To(Equal([]string{
			`add_up {"a": 1} raw=one context=one`,
			`add_up {"a": 2} raw=two context=two`,
		}))
	})
})
