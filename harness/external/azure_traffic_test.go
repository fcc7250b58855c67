package external_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("an outside agent on Azure OpenAI", func() {
	It("is given the resource, key and api-version the Azure clients read, and is scored from its traffic, the deployment its model", func() {
		api := &chatAPI{answers: []string{callAnswer("call_1", "fetch_rates", `{"base": "EUR"}`), textAnswer}, upstreams: map[string]struct {
			status int
			body   string
		}{"/latest": {200, `{"EUR": 1, "USD": 1.08}`}}}
		// The deployment path the Azure clients of OpenAI's SDKs call, with
		// no model in the body (the deployment is the model there).
		post := func(messages string) string {
			return `curl -sf -X POST "$AZURE_OPENAI_ENDPOINT/openai/deployments/rates-gpt/chat/completions?api-version=$OPENAI_API_VERSION" ` +
				`-H "api-key: $AZURE_OPENAI_API_KEY" -H 'Content-Type: application/json' -d '{"messages": ` + messages +
				`, "tools": [{"type": "function", "function": {"name": "fetch_rates", "parameters": {"type": "object"}}}]}' >/dev/null || echo "model call failed" >&2`
		}
		user := `{"role": "user", "content": "EUR in USD?"}`
		script := post(`[`+user+`]`) + "\ncurl -sf \"$RATES_BASE_URL/latest\" >/dev/null\n" +
			post(`[`+user+`, `+callAnswer("call_1", "fetch_rates", `{"base": "EUR"}`)+`, {"role": "tool", "tool_call_id": "call_1", "content": "1.08"}]`)
		tr := runOver(api, llm.Endpoint{Provider: llm.ProviderAzure, BaseURL: "https://contoso-ai.openai.azure.com", Model: "rates-gpt"},
			map[string]string{"rates": "https://rates.example"}, script)
		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.models).To(Equal([]string{"rates-gpt", "rates-gpt"}))
		Expect(tr.calls[0].Tools).To(HaveLen(1))
		Expect(tr.tools).To(Equal([]string{`fetch_rates {"base": "EUR"} raw={"EUR": 1, "USD": 1.08} context=1.08`}))
	})
})
