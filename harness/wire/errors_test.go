package wire_test

import (
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/wire"
)

// body is v as the JSON a client reads.
func body(v any) map[string]any {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	var out map[string]any
	Expect(json.Unmarshal(b, &out)).To(Succeed())
	return out
}

var _ = Describe("error bodies", func() {
	DescribeTable("are in each provider's shape, with the name its reference gives the status",
		func(d wire.Dialect, status int, want map[string]any) {
			Expect(body(wire.ErrorBody(d, status, "why"))).To(Equal(want))
		},
		Entry("OpenAI, a rate limit", wire.Chat, http.StatusTooManyRequests,
			map[string]any{"error": map[string]any{"message": "why", "type": "requests", "param": nil, "code": "rate_limit_exceeded"}}),
		Entry("OpenAI Responses, a server error", wire.Responses, http.StatusInternalServerError,
			map[string]any{"error": map[string]any{"message": "why", "type": "server_error", "param": nil, "code": nil}}),
		Entry("Gemini, a timeout", wire.Gemini, http.StatusGatewayTimeout,
			map[string]any{"error": map[string]any{"code": 504.0, "message": "why", "status": "DEADLINE_EXCEEDED"}}),
		Entry("Gemini, a status it has no name for", wire.Gemini, http.StatusTeapot,
			map[string]any{"error": map[string]any{"code": 418.0, "message": "why", "status": "INTERNAL"}}),
		Entry("Anthropic, overloaded", wire.Anthropic, http.StatusServiceUnavailable,
			map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "why"}, "request_id": nil}),
		Entry("Anthropic, too large", wire.Anthropic, http.StatusRequestEntityTooLarge,
			map[string]any{"type": "error", "error": map[string]any{"type": "request_too_large", "message": "why"}, "request_id": nil}),
	)

	It("refuse a Chat Completions request with the param and code the API gives, and a request id", func() {
		req := []byte(`{"model": "m", "messages": [{"role": "bot", "content": "hi"}]}`)
		err := wire.Validate(wire.Chat, "/v1/chat/completions", req)
		Expect(err).To(HaveOccurred())
		_, header, refused := wire.Refusal(wire.Chat, req, 0, err)
		Expect(body(refused)).To(Equal(map[string]any{"error": map[string]any{
			"message": "Invalid value: 'bot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
			"type":    "invalid_request_error", "param": "messages[0].role", "code": "invalid_value"}}))
		Expect(header.Get("X-Request-Id")).To(MatchRegexp(`^req_[0-9a-f]{32}$`))
	})

	It("refuse a request of another dialect in its own shape; Anthropic's with the request id its header gives", func() {
		req := []byte(`{"model": "m", "messages": [{"role": "user", "content": "hi"}]}`)
		err := wire.Validate(wire.Anthropic, "/v1/messages", req)
		Expect(err).To(MatchError("max_tokens: Field required"))
		_, header, refused := wire.Refusal(wire.Anthropic, req, 0, err)
		Expect(body(refused)).To(HaveKeyWithValue("type", "error"))
		Expect(header.Get("Request-Id")).To(HavePrefix("req_011"))
		Expect(body(refused)).To(HaveKeyWithValue("request_id", header.Get("Request-Id")))
		_, other, _ := wire.Refusal(wire.Anthropic, append(req, ' '), 0, err)
		Expect(other.Get("Request-Id")).NotTo(Equal(header.Get("Request-Id")), "each request its own")
	})
})
