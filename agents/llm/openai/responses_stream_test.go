package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
)

// events is an event stream of the given events, each a JSON object whose
// type names the event, numbered in order as the API numbers them.
func events(objects ...string) string {
	var b strings.Builder
	for i, o := range objects {
		var e map[string]any
		Expect(json.Unmarshal([]byte(o), &e)).To(Succeed(), o)
		e["sequence_number"] = i
		data, err := json.Marshal(e)
		Expect(err).NotTo(HaveOccurred())
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", e["type"], data)
	}
	return b.String()
}

// streamed sends req through a streaming Responses client to a server
// that answers status with body as an event stream, and returns the body
// the server got and the answer.
func streamed(status int, body string, req llm.Request) (map[string]any, llm.Response, error) {
	GinkgoHelper()
	var sent map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer GinkgoRecover()
		Expect(r.URL.Path).To(Equal("/v1/responses"))
		b, _ := io.ReadAll(r.Body)
		Expect(json.Unmarshal(b, &sent)).To(Succeed())
		w.Header().Set("Content-Type", "text/event-stream")
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	DeferCleanup(srv.Close)
	resp, err := openai.NewResponses(srv.URL+"/v1", "gpt-4.1-mini", "k", srv.Client()).Streaming(true).Chat(context.Background(), req)
	return sent, resp, err
}

const created = `{"type": "response.created", "response": {"id": "resp_1", "object": "response", "created_at": 0, "status": "in_progress", "model": "gpt-4.1-mini", "output": []}}`

var textEvents = []string{
	created,
	`{"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}}`,
	`{"type": "response.content_part.added", "item_id": "msg_1", "output_index": 0, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}`,
	`{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "It is "}`,
	`{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "26.4 °C."}`,
	`{"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": "It is 26.4 °C."}`,
	`{"type": "response.output_item.done", "output_index": 0, "item": {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "It is 26.4 °C.", "annotations": []}]}}`,
}

// completed is the terminal event carrying the whole response.
func completed(output string) string {
	return `{"type": "response.completed", "response": ` + response(output, "completed", "null", 57, 0, 12, 0) + `}`
}

const textOnly = `[{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "It is 26.4 °C.", "annotations": []}]}]`

var _ = Describe("Responses, streaming", func() {
	It("sends stream: true and answers with the terminal event's response, as unstreamed", func() {
		sent, resp, err := streamed(http.StatusOK, events(slices.Concat(textEvents, []string{completed(textOnly)})...), conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(sent).To(HaveKeyWithValue("stream", true))
		Expect(sent).To(HaveKeyWithValue("store", false))
		Expect(resp).To(Equal(textAnswer))
	})

	It("reads parallel function calls streamed as argument deltas", func() {
		_, resp, err := streamed(http.StatusOK, events(created,
			`{"type": "response.output_item.added", "output_index": 0, "item": {"id": "fc_1", "type": "function_call", "status": "in_progress", "call_id": "call_a1", "name": "get_sst", "arguments": ""}}`,
			`{"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{\"lon\":118,"}`,
			`{"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "\"lat\":20}"}`,
			`{"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": "{\"lon\":118,\"lat\":20}"}`,
			`{"type": "response.output_item.added", "output_index": 1, "item": {"id": "fc_2", "type": "function_call", "status": "in_progress", "call_id": "call_b2", "name": "get_date", "arguments": ""}}`,
			`{"type": "response.function_call_arguments.done", "item_id": "fc_2", "output_index": 1, "arguments": "{}"}`,
			completed(callsOutput)), conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(resp.Message.ToolCalls).To(HaveLen(2))
		Expect(resp.Message.ToolCalls[0].ID).To(Equal("call_a1"))
		Expect(resp.Message.ToolCalls[1].Name).To(Equal("get_date"))
	})

	It("answers a stream cut off at the token limit as FinishLength", func() {
		_, resp, err := streamed(http.StatusOK, events(slices.Concat(textEvents,
			[]string{`{"type": "response.incomplete", "response": ` + response(textOnly, "incomplete", `{"reason": "max_output_tokens"}`, 57, 0, 12, 0) + `}`})...), conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FinishReason).To(Equal(llm.FinishLength))
	})

	DescribeTable("never takes a partial answer for a whole one",
		func(body, want string) {
			_, _, err := streamed(http.StatusOK, body, conversation)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a stream that ends before response.completed", events(textEvents...), "ended after 7 events without response.completed"),
		Entry("a stream cut in the middle of an event", events(textEvents[:4]...)+`event: response.output_text.delta`+"\n"+`data: {"type": "response.output_text.delta", "del`, "ended after 4 events without response.completed"),
		Entry("an event that is not JSON", events(textEvents[:2]...)+"event: response.output_text.delta\ndata: {\"type\": \"response.output_text.delta\", \"delta\": \"It\n\n", "responses stream event 3"),
		Entry("a failed response", events(created, `{"type": "response.failed", "response": {"id": "resp_1", "object": "response", "created_at": 0, "status": "failed", "model": "m", "output": [],
			"error": {"code": "server_error", "message": "The model failed to answer."}}}`), "server_error: The model failed to answer."),
		Entry("an error event", events(created, `{"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": null}`), "rate_limit_exceeded: Slow down."),
		Entry("text deltas that do not add up to the response's text", events(slices.Concat(textEvents[:4], []string{completed(textOnly)})...), "do not add up"),
	)

	It("reads a recorded stream's body as the streamed call does", func() {
		body := events(slices.Concat(textEvents, []string{completed(textOnly)})...)
		_, live, err := streamed(http.StatusOK, body, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(openai.ResponsesStreamResponse([]byte(body))).To(Equal(live))
		_, err = openai.ResponsesStreamResponse([]byte(events(textEvents...)))
		Expect(err).To(MatchError(ContainSubstring("without response.completed")))
	})

	It("returns a non-2xx answer as *llm.StatusError", func() {
		_, _, err := streamed(http.StatusTooManyRequests, `{"error": {"message": "Rate limit reached", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`, conversation)
		var se *llm.StatusError
		Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
		Expect(se.Code).To(Equal(http.StatusTooManyRequests))
	})
})
