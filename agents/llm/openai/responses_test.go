package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
)

// response is a Responses API answer with the given output items, status,
// incomplete reason (JSON: null or an object) and usage.
func response(output, status, incomplete string, in, cached, out, reasoning int) string {
	return fmt.Sprintf(`{
  "id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b", "object": "response", "created_at": 1741476542,
  "status": %q, "error": null, "incomplete_details": %s, "instructions": null, "max_output_tokens": null,
  "model": "gpt-4.1-mini-2025-04-14", "output": %s, "parallel_tool_calls": true, "previous_response_id": null,
  "reasoning": {"effort": null, "summary": null}, "store": false, "temperature": 1.0,
  "text": {"format": {"type": "text"}}, "tool_choice": "auto", "tools": [], "top_p": 1.0, "truncation": "disabled",
  "usage": {"input_tokens": %d, "input_tokens_details": {"cached_tokens": %d},
    "output_tokens": %d, "output_tokens_details": {"reasoning_tokens": %d}, "total_tokens": %d},
  "user": null, "metadata": {}
}`, status, incomplete, output, in, cached, out, reasoning, in+out)
}

const textOutput = `[
  {"type": "reasoning", "id": "rs_1", "summary": []},
  {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant", "content": [
    {"type": "output_text", "text": "It is ", "annotations": []},
    {"type": "output_text", "text": "26.4 °C.", "annotations": []}]}
]`

const callsOutput = `[
  {"type": "function_call", "id": "fc_1", "call_id": "call_a1", "name": "get_sst", "arguments": "{\"lon\":118,\"lat\":20}", "status": "completed"},
  {"type": "function_call", "id": "fc_2", "call_id": "call_b2", "name": "get_date", "arguments": "{}", "status": "completed"}
]`

var textResponse = response(textOutput, "completed", "null", 57, 0, 12, 0)

// textAnswer is textResponse as llm.Response.
var textAnswer = llm.Response{
	Message:         llm.Message{Role: llm.RoleAssistant, Content: "It is 26.4 °C."},
	Usage:           llm.Usage{InputTokens: 57, OutputTokens: 12},
	FinishReason:    llm.FinishStop,
	RawFinishReason: "completed",
	Model:           "gpt-4.1-mini-2025-04-14",
	ID:              "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
}

// respond sends req to a server answering status and reply through the
// Responses client for model, and returns the server and the answer.
func respond(model string, status int, reply string, req llm.Request) (map[string]any, llm.Response, error) {
	GinkgoHelper()
	srv := newServer(status, reply)
	resp, err := openai.NewResponses(srv.URL+"/v1", model, "sk-test-0123456789", srv.Client()).Chat(context.Background(), req)
	if len(srv.Requests()) == 0 {
		return nil, resp, err
	}
	method, path, header := only(srv)
	Expect(method).To(Equal(http.MethodPost))
	Expect(path).To(Equal("/v1/responses"))
	Expect(header.Get("Authorization")).To(Equal("Bearer sk-test-0123456789"))
	Expect(srv.Requests()).To(HaveLen(1), "retries are off")
	return body(srv), resp, err
}

var _ = Describe("Responses", func() {
	It("posts every message as an input item, tools as function tools, JSON mode as text.format and store false", func() {
		sent, _, err := respond("gpt-4.1-mini", http.StatusOK, textResponse, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(sent).To(HaveKeyWithValue("model", "gpt-4.1-mini"))
		Expect(sent).To(HaveKeyWithValue("temperature", BeNumerically("==", 0.2)))
		Expect(sent).To(HaveKeyWithValue("max_output_tokens", BeNumerically("==", 256)))
		Expect(sent).To(HaveKeyWithValue("store", false))
		Expect(asJSON(sent["text"])).To(MatchJSON(`{"format": {"type": "json_object"}}`))
		Expect(asJSON(sent["input"])).To(MatchJSON(`[
			{"role": "system", "content": "You route questions about the ocean."},
			{"role": "user", "content": "Sea temperature off Taiwan?"},
			{"type": "function_call", "call_id": "call_1", "name": "get_sst", "arguments": "{\"lon\":121,\"lat\":23}"},
			{"type": "function_call_output", "call_id": "call_1", "output": "{\"sst\":26.4}"},
			{"role": "assistant", "content": "It is 26.4 °C."},
			{"role": "user", "content": "Answer as JSON."}
		]`))
		Expect(asJSON(sent["tools"])).To(MatchJSON(`[{
			"type": "function", "name": "get_sst", "description": "Sea surface temperature at a point.", "strict": false,
			"parameters": {"type": "object", "properties": {"lon": {"type": "number"}, "lat": {"type": "number"}}, "required": ["lon", "lat"]}
		}]`))
		for _, k := range []string{"messages", "max_tokens", "response_format", "stream", "role", "instructions"} {
			Expect(sent).NotTo(HaveKey(k))
		}
	})

	It("sends an assistant's text and parallel calls as a message and function_call items, and leaves out what the request does not set", func() {
		sent, _, err := respond("gpt-4.1-mini", http.StatusOK, textResponse, llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "hi"},
			{Role: llm.RoleAssistant, Content: "Checking both.", ToolCalls: []llm.ToolCall{
				{ID: "call_a", Name: "get_sst", Arguments: json.RawMessage(`{"lon":1}`)},
				{ID: "call_b", Name: "get_date"}}},
			{Role: llm.RoleTool, ToolCallID: "call_a", Content: "26.4"},
			{Role: llm.RoleTool, ToolCallID: "call_b", Content: "clock unavailable", IsError: true},
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(sent).To(HaveLen(3), "model, input and store only: %v", sent)
		Expect(asJSON(sent["input"])).To(MatchJSON(`[
			{"role": "user", "content": "hi"},
			{"role": "assistant", "content": "Checking both."},
			{"type": "function_call", "call_id": "call_a", "name": "get_sst", "arguments": "{\"lon\":1}"},
			{"type": "function_call", "call_id": "call_b", "name": "get_date", "arguments": "{}"},
			{"type": "function_call_output", "call_id": "call_a", "output": "26.4"},
			{"type": "function_call_output", "call_id": "call_b", "output": "clock unavailable"}
		]`))
	})

	It("maps message items to the text, joining output_text parts and leaving out reasoning", func() {
		_, resp, err := respond("gpt-4.1-mini", http.StatusOK, textResponse, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(Equal(textAnswer))
	})

	It("maps parallel function_call items to tool calls by call_id", func() {
		_, resp, err := respond("gpt-4.1-mini", http.StatusOK, response(callsOutput, "completed", "null", 120, 0, 31, 0), conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(resp.Message.Content).To(BeEmpty())
		Expect(resp.Message.ToolCalls).To(HaveLen(2))
		a, b := resp.Message.ToolCalls[0], resp.Message.ToolCalls[1]
		Expect([]string{a.ID, a.Name, b.ID, b.Name}).To(Equal([]string{"call_a1", "get_sst", "call_b2", "get_date"}))
		Expect(a.Arguments).To(MatchJSON(`{"lon":118,"lat":20}`))
		Expect(b.Arguments).To(MatchJSON(`{}`))
	})

	It("reports cached input tokens and reasoning output tokens as parts of the totals", func() {
		_, resp, err := respond("o4-mini", http.StatusOK, response(textOutput, "completed", "null", 2006, 1920, 300, 256), conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 2006, OutputTokens: 300, CacheReadTokens: 1920, ReasoningTokens: 256}))
	})

	DescribeTable("maps status and incomplete_details to finish reasons",
		func(status, incomplete, want string) {
			_, resp, err := respond("gpt-4.1-mini", http.StatusOK, response(textOutput, status, incomplete, 5, 0, 4, 0), conversation)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.FinishReason).To(Equal(want))
		},
		Entry("completed", "completed", "null", llm.FinishStop),
		Entry("cut at max_output_tokens", "incomplete", `{"reason": "max_output_tokens"}`, llm.FinishLength),
		Entry("cut by a content filter", "incomplete", `{"reason": "content_filter"}`, llm.FinishContentFilter),
		Entry("failed", "failed", "null", llm.FinishError),
		Entry("another status is other", "cancelled", "null", llm.FinishOther),
	)

	It("reports an answer with neither a message nor a function call as ErrNoContent", func() {
		_, _, err := respond("gpt-4.1-mini", http.StatusOK, response(`[{"type": "reasoning", "id": "rs_1", "summary": []}]`, "incomplete", `{"reason": "max_output_tokens"}`, 5, 0, 4, 4), conversation)
		Expect(err).To(MatchError(llm.ErrNoContent))
	})

	DescribeTable("returns a non-2xx answer as *llm.StatusError after exactly one attempt",
		func(code int, reply, message string) {
			_, _, err := respond("gpt-4.1-mini", code, reply, conversation)
			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Code).To(Equal(code))
			Expect(se.Body).To(ContainSubstring(message))
		},
		Entry("429", http.StatusTooManyRequests, `{"error": {"message": "Rate limit reached", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`, "Rate limit"),
		Entry("400", http.StatusBadRequest, `{"error": {"message": "No tool output found for function call call_x.", "type": "invalid_request_error", "param": "input", "code": null}}`, "call_x"),
	)

	DescribeTable("refuses a request it cannot send without calling the server",
		func(req llm.Request, want string) {
			sent, _, err := respond("gpt-4.1-mini", http.StatusOK, textResponse, req)
			Expect(err).To(MatchError(ContainSubstring(want)))
			Expect(sent).To(BeNil())
		},
		Entry("a tool whose parameters are not an object", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
			Tools: []llm.Tool{{Name: "broken", Parameters: json.RawMessage(`[1]`)}}}, "tool broken"),
		Entry("an unknown role", llm.Request{Messages: []llm.Message{{Role: "narrator", Content: "hi"}}}, `unknown message role "narrator"`),
	)
})
