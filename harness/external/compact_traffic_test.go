package external_test

import (
	"io"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// compactAPI answers a compaction with an opaque compaction item, and a
// Responses API call with text.
type compactAPI struct{}

func (compactAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"id": "resp_2", "object": "response", "status": "completed", "model": "gpt-4.1-mini",
		"output": [{"type": "message", "id": "msg_2", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "Rain tomorrow.", "annotations": []}]}],
		"usage": {"input_tokens": 50, "output_tokens": 4, "total_tokens": 54}}`
	if strings.HasSuffix(r.URL.Path, "/responses/compact") {
		body = `{"id": "resp_c1", "object": "response.compaction", "created_at": 1,
			"output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "user", "content": [{"type": "input_text", "text": "Weather in Taipei?"}]},
				{"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque-1"}],
			"usage": {"input_tokens": 200, "output_tokens": 40, "total_tokens": 240}}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent's compactions", func() {
	It("are model calls, and a call sending the compaction item is read with what it stands for", func() {
		tr := runResponses(compactAPI{}, `curl -s -X POST "$OPENAI_BASE_URL/responses/compact" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "input": [
  {"role": "user", "content": "Weather in Taipei?"},
  {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\": \"Taipei\"}"},
  {"type": "function_call_output", "call_id": "call_1", "output": "{\"temp\": 21, \"unit\": \"C\"}"},
  {"role": "assistant", "content": "It is 21 °C in Taipei."}]}' >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "input": [
  {"role": "user", "content": "Weather in Taipei?"},
  {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque-1"},
  {"role": "user", "content": "And tomorrow?"}]}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.errs).To(HaveEach(Not(HaveOccurred())))
		Expect(tr.calls[0].Messages).To(HaveLen(4), "the compaction read the conversation")
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 200, OutputTokens: 40}))
		msgs := tr.calls[1].Messages
		Expect(msgs).To(HaveLen(3))
		Expect(msgs[1].Role).To(Equal(llm.RoleAssistant))
		Expect(msgs[1].Content).To(ContainSubstring(`get_weather returned: {"temp": 21, "unit": "C"}`))
		Expect(msgs[1].Content).To(ContainSubstring("the assistant answered: It is 21 °C in Taipei."))
		Expect(tr.resps[1].Message.Content).To(Equal("Rain tomorrow."))
	})

	It("read a compaction of the response it names alone (previous_response_id) with that response's conversation", func() {
		tr := runResponses(compactAPI{}, `curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "input": "Weather tomorrow?"}' >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses/compact" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "previous_response_id": "resp_2"}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.calls[1].Messages).To(Equal([]llm.Message{{Role: llm.RoleUser, Content: "Weather tomorrow?"}, {Role: llm.RoleAssistant, Content: "Rain tomorrow."}}))
		Expect(tr.resps[1].Usage).To(Equal(llm.Usage{InputTokens: 200, OutputTokens: 40}))
	})
})

// serverCompactAPI answers a Responses API call with a compaction item
// first (server-side compaction), then text.
type serverCompactAPI struct{}

func (serverCompactAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"id": "resp_3", "object": "response", "status": "completed", "model": "gpt-4.1-mini",
		"output": [{"type": "compaction", "id": "cmp_9", "encrypted_content": "srv-1"},
			{"type": "message", "id": "msg_3", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}],
		"usage": {"input_tokens": 80, "output_tokens": 2, "total_tokens": 82}}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent's server-side compactions", func() {
	It("read a later call sending the compaction item an answer gave with the summary of what that call compacted", func() {
		tr := runResponses(serverCompactAPI{}, `curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "store": false,
  "context_management": [{"type": "compaction", "compact_threshold": 1000}], "input": [
  {"role": "user", "content": "Weather in Taipei?"},
  {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\": \"Taipei\"}"},
  {"type": "function_call_output", "call_id": "call_1", "output": "{\"temp\": 21}"},
  {"role": "assistant", "content": "21 °C."},
  {"role": "user", "content": "And now?"}]}' >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "store": false, "input": [
  {"type": "compaction", "id": "cmp_9", "encrypted_content": "srv-1"},
  {"role": "user", "content": "And tomorrow?"}]}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(2))
		msgs := tr.calls[1].Messages
		Expect(msgs).To(HaveLen(2))
		Expect(msgs[0].Role).To(Equal(llm.RoleAssistant))
		Expect(msgs[0].Content).To(ContainSubstring(`get_weather returned: {"temp": 21}`))
		Expect(msgs[0].Content).To(ContainSubstring("the assistant answered: 21 °C."))
		Expect(msgs[0].Content).To(ContainSubstring("the user asked: And now?"), "the item stands for the whole conversation")
	})
})
