package standin_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
)

// serveFault sends body to h asking for fault in the fault header.
func serveFault(h http.Handler, body []byte, fault string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set(cassette.FaultHeader, fault)
	h.ServeHTTP(rec, req)
	return rec
}

// toolCalls is the part of a completion that holds tool calls.
type toolCalls struct {
	Choices []struct {
		Message struct {
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
}

var _ = Describe("faults asked for in the fault header", func() {
	srv := newStandin(standin.Options{})
	router := wireBody(routerRequest("現在台灣周遭海溫多少？", true))
	advisor := wireBody(advisorRequest(llm.Message{Role: llm.RoleUser, Content: "What were New York's emissions in 2022?"}))

	DescribeTable("answers with the fault and marks it",
		func(kind string, status int, retryAfter string) {
			rec := serveFault(srv, router, kind)
			Expect(rec.Code).To(Equal(status))
			Expect(rec.Header().Get(cassette.FaultHeader)).To(Equal(kind))
			Expect(rec.Header().Get("Retry-After")).To(Equal(retryAfter))
		},
		Entry("429", standin.FaultRateLimit, http.StatusTooManyRequests, "2"),
		Entry("500", standin.FaultServer, http.StatusInternalServerError, ""),
		Entry("503", standin.FaultUnavailable, http.StatusServiceUnavailable, "1"),
		Entry("timeout, after TimeoutAfter", standin.FaultTimeout, http.StatusGatewayTimeout, ""),
		Entry("malformed", standin.FaultMalformed, http.StatusOK, ""),
		Entry("truncated", standin.FaultTruncated, http.StatusOK, ""),
	)

	It("models a timeout as TimeoutAfter of latency", func() {
		rec := serveFault(srv, router, standin.FaultTimeout)
		Expect(rec.Header().Get(cassette.LatencyHeader)).To(Equal(standin.TimeoutAfter.String()))
	})

	It("renames the first tool call for unknown_tool", func() {
		rec := serveFault(srv, advisor, standin.FaultUnknownTool)
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Header().Get(cassette.FaultHeader)).To(Equal(standin.FaultUnknownTool))
		var c toolCalls
		Expect(json.Unmarshal(rec.Body.Bytes(), &c)).To(Succeed())
		Expect(c.Choices[0].Message.ToolCalls[0].Function.Name).To(Equal(standin.UnknownTool))
	})

	It("replaces the first tool call's arguments for bad_args", func() {
		plain := serveFault(srv, advisor, "")
		var want toolCalls
		Expect(json.Unmarshal(plain.Body.Bytes(), &want)).To(Succeed())
		rec := serveFault(srv, advisor, standin.FaultBadArgs)
		var c toolCalls
		Expect(json.Unmarshal(rec.Body.Bytes(), &c)).To(Succeed())
		Expect(c.Choices[0].Message.ToolCalls[0].Function.Name).To(Equal(want.Choices[0].Message.ToolCalls[0].Function.Name))
		Expect(c.Choices[0].Message.ToolCalls[0].Function.Arguments).To(MatchJSON(`{"unexpected_field":[1,2,3]}`))
	})

	It("changes the tool a JSON plan names, keeping it JSON", func() {
		rec := serveFault(srv, router, standin.FaultUnknownTool)
		Expect(rec.Header().Get(cassette.FaultHeader)).To(Equal(standin.FaultUnknownTool))
		var p plan
		Expect(json.Unmarshal([]byte(decode(rec).Choices[0].Message.Content), &p)).To(Succeed())
		Expect(p.Tool.Name).To(Equal(standin.UnknownTool))

		rec = serveFault(srv, router, standin.FaultBadArgs)
		var bad plan
		Expect(json.Unmarshal([]byte(decode(rec).Choices[0].Message.Content), &bad)).To(Succeed())
		Expect(bad.Tool.Arguments).To(Equal(map[string]any{"unexpected_field": []any{1.0, 2.0, 3.0}}))
	})

	It("adds a field no contract declares to the first object inside a JSON answer for extra_field", func() {
		rec := serveFault(srv, router, standin.FaultExtraField)
		Expect(rec.Header().Get(cassette.FaultHeader)).To(Equal(standin.FaultExtraField))
		var doc map[string]any
		Expect(json.Unmarshal([]byte(decode(rec).Choices[0].Message.Content), &doc)).To(Succeed())
		var found bool
		for _, v := range doc {
			if inner, ok := v.(map[string]any); ok && inner[standin.ExtraField] != nil {
				found = true
			}
		}
		Expect(found).To(BeTrue(), "no object of %v carries %s", doc, standin.ExtraField)

		explain := wireBody(onepassRequest("explain", "en", "What is SST?", passage{"SST", "kb/sst.md", "Sea surface temperature."}))
		plain := serveFault(srv, explain, standin.FaultExtraField)
		Expect(plain.Header().Get(cassette.FaultHeader)).To(BeEmpty(), "a prose answer has no object to change")
	})

	It("answers normally, unmarked, when there is no tool to misuse", func() {
		explain := wireBody(onepassRequest("explain", "en", "What is SST?", passage{"SST", "kb/sst.md", "Sea surface temperature."}))
		rec := serveFault(srv, explain, standin.FaultUnknownTool)
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Header().Get(cassette.FaultHeader)).To(BeEmpty())
	})

	It("ignores a header naming no fault it knows", func() {
		rec := serveFault(srv, router, "418")
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Header().Get(cassette.FaultHeader)).To(BeEmpty())
	})
})
