package external_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/codings/codingstest"
)

// encoded is body encoded with coding, as a server sends it.
func encoded(coding, body string) string {
	GinkgoHelper()
	b, err := codingstest.Encode(coding, []byte(body))
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = DescribeTable("compressed traffic is read as the program's HTTP client reads it: the model's answer and the upstream's payload decoded",
	func(coding string) {
		api := &chatAPI{
			answers: []string{callAnswer("c1", "fetch_rates", `{"base": "EUR"}`), textAnswer},
			upstreams: map[string]struct {
				status int
				body   string
			}{"/latest": {200, `{"base": "EUR", "rates": {"USD": 1.08}}`}},
			coding: coding,
		}
		user := `{"role": "user", "content": "go"}`
		call := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`
		result := `{"role": "tool", "tool_call_id": "c1", "content": "1 EUR is 1.08 USD"}`
		tools := runChat(api, post(`[`+user+`]`)+"\n"+
			`curl -s -H 'Accept-Encoding: `+coding+`' "$RATES_BASE_URL/latest" >/dev/null`+"\n"+
			post(`[`+user+`, `+call+`, `+result+`]`))
		Expect(tools).To(Equal([]string{`fetch_rates {"base": "EUR"} raw={"base": "EUR", "rates": {"USD": 1.08}} context=1 EUR is 1.08 USD`}))
	},
	Entry("gzip", "gzip"),
	Entry("deflate", "deflate"),
	Entry("br", "br"),
	Entry("zstd", "zstd"),
)
