package external_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// backgroundAPI answers a Responses API create with the response queued,
// its first poll with it in progress and later ones with it completed (a
// call of get_weather), and a cancel with it cancelled.
type backgroundAPI struct {
	mu    sync.Mutex
	polls int
}

func (a *backgroundAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	const head = `{"id": "resp_bg1", "object": "response", "background": true, "model": "gpt-4.1-mini", `
	body := head + `"status": "queued", "output": [], "usage": null}`
	switch {
	case strings.HasSuffix(r.URL.Path, "/cancel"):
		body = head + `"status": "cancelled", "output": [], "usage": null}`
	case r.Method == http.MethodGet:
		a.mu.Lock()
		a.polls++
		first := a.polls == 1
		a.mu.Unlock()
		body = head + `"status": "in_progress", "output": [], "usage": null}`
		if !first {
			body = head + `"status": "completed", "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
				"arguments": "{\"city\": \"Taipei\"}", "status": "completed"}], "usage": {"input_tokens": 30, "output_tokens": 5, "total_tokens": 35}}`
		}
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// createBackground is a curl line creating a background response.
const createBackground = `curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "background": true, "input": "Weather in Taipei?", ` + tools + `}' >/dev/null`

// pollBackground is a curl line getting the background response again.
const pollBackground = `curl -s "$OPENAI_BASE_URL/responses/resp_bg1" >/dev/null`

var _ = Describe("an outside agent's background responses", func() {
	It("are read as one model call, answered by the poll that found it done", func() {
		tr := runResponses(&backgroundAPI{}, createBackground+"\n"+pollBackground+"\n"+pollBackground)
		Expect(tr.calls).To(HaveLen(1), "the polls are no model calls")
		Expect(tr.errs[0]).NotTo(HaveOccurred())
		Expect(tr.calls[0].Messages).To(Equal([]llm.Message{{Role: llm.RoleUser, Content: "Weather in Taipei?"}}))
		Expect(tr.resps[0].Message.ToolCalls).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls[0].Name).To(Equal("get_weather"))
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 30, OutputTokens: 5}))
		Expect(tr.tools).To(ConsistOf(ContainSubstring("get_weather")), "its tool call, asked for")
	})

	DescribeTable("are a model call with an error when they never gave an answer",
		func(script, want string) {
			tr := runResponses(&backgroundAPI{}, createBackground+"\n"+script)
			Expect(tr.calls).To(HaveLen(1))
			Expect(tr.errs[0]).To(MatchError(ContainSubstring(want)))
		},
		Entry("never polled once done", pollBackground, "never got again once done"),
		Entry("cancelled", `curl -s -X POST "$OPENAI_BASE_URL/responses/resp_bg1/cancel" >/dev/null`, "cancelled"),
	)

	It("are read as one model call when streamed, cut short and resumed, answered by the resumed stream's end", func() {
		tr := runResponses(backgroundStreamAPI{}, createBackgroundStream+"\n"+`curl -s "$OPENAI_BASE_URL/responses/resp_bg2?stream=true&starting_after=1" >/dev/null`)
		Expect(tr.calls).To(HaveLen(1))
		Expect(tr.errs[0]).NotTo(HaveOccurred())
		Expect(tr.resps[0].Message.Content).To(Equal("Sunny, 21 °C."))
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 30, OutputTokens: 6}))
	})

	It("are a model call with an error when streamed, cut short and never resumed", func() {
		tr := runResponses(backgroundStreamAPI{}, createBackgroundStream)
		Expect(tr.calls).To(HaveLen(1))
		Expect(tr.errs[0]).To(MatchError(ContainSubstring("its stream resumed")))
	})
})

// backgroundStreamAPI streams a background response cut short after its
// first text delta, and streams the rest of it again when asked.
type backgroundStreamAPI struct{}

func (backgroundStreamAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	const snapshot = `{"id":"resp_bg2","object":"response","background":true,"model":"gpt-4.1-mini","status":"%s","output":%s,"usage":%s}`
	body := "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":" + fmt.Sprintf(snapshot, "in_progress", "[]", "null") + "}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Sunny\"}\n\n"
	if r.Method == http.MethodGet {
		body = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\", 21 °C.\"}\n\n" +
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":3,\"response\":" + fmt.Sprintf(snapshot, "completed",
			`[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Sunny, 21 °C.","annotations":[]}]}]`,
			`{"input_tokens":30,"output_tokens":6,"total_tokens":36}`) + "}\n\n"
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// createBackgroundStream is a curl line creating a background response
// that streams.
const createBackgroundStream = `curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "background": true, "stream": true, "input": "Weather in Taipei?"}' >/dev/null`
