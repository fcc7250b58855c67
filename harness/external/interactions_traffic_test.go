package external_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// interactionsAPI answers Gemini's Interactions API as the real one does,
// whole or streamed as the request asks: the first interaction with a
// tide_table call (requires_action), later ones with text.
func interactionsAPI() *tideAPI {
	return &tideAPI{suffix: "/interactions", answer: func(r *http.Request, sent string, first bool) *http.Response {
		id, status, steps := `v1_second`, `completed`, `[{"type": "model_output", "content": [{"type": "text", "text": "High water at 14:52."}]}]`
		if first {
			id, status, steps = `v1_first`, `requires_action`, `[{"type": "thought", "signature": "c2ln"}, {"type": "function_call", "id": "fc7", "name": "tide_table", "arguments": {"port": "Brest"}}]`
		}
		usage := `{"total_input_tokens": 52, "total_output_tokens": 11, "total_thought_tokens": 5, "total_tokens": 68}`
		if !strings.Contains(sent, `"stream": true`) {
			return answered(r, "application/json", `{"id": "`+id+`", "object": "interaction", "model": "gemini-3.5-flash", "status": "`+status+`", "steps": `+steps+`, "usage": `+usage+`}`)
		}
		events := []string{`{"event_type": "interaction.created", "interaction": {"id": "` + id + `", "model": "gemini-3.5-flash", "status": "in_progress"}}`}
		if first {
			events = append(events, `{"event_type": "step.start", "index": 0, "step": {"type": "function_call", "id": "fc7", "name": "tide_table", "arguments": {}}}`,
				`{"event_type": "step.delta", "index": 0, "delta": {"type": "arguments_delta", "arguments": "{\"port\": \"Brest\"}"}}`,
				`{"event_type": "step.stop", "index": 0}`)
		} else {
			events = append(events, `{"event_type": "step.start", "index": 0, "step": {"type": "model_output"}}`,
				`{"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "High water "}}`,
				`{"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "at 14:52."}}`,
				`{"event_type": "step.stop", "index": 0}`)
		}
		events = append(events, `{"event_type": "interaction.completed", "interaction": {"id": "`+id+`", "status": "`+status+`", "usage": `+usage+`}}`, `[DONE]`)
		return answered(r, "text/event-stream", "data: "+strings.Join(events, "\n\ndata: ")+"\n\n")
	}}
}

var _ = DescribeTable("an outside agent on Gemini's Interactions API is scored from its traffic, a follow-up read with the interaction it continues",
	func(stream string) {
		const tools = `"tools": [{"type": "function", "name": "tide_table", "parameters": {"type": "object", "properties": {"port": {"type": "string"}}}}]`
		post := func(rest string) string {
			return `curl -s -X POST "$GEMINI_BASE_URL/v1beta/interactions" -d '{"model": "gemini-3.5-flash", ` + stream + `"system_instruction": "You keep a harbour log.", ` + tools + `, ` + rest + `}' >/dev/null` + "\n"
		}
		tr := runOver(interactionsAPI(), llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-3.5-flash"},
			map[string]string{"tides": "https://tides.example"},
			post(`"input": "High tide at Brest?"`)+
				`curl -s "$TIDES_BASE_URL/table?port=Brest" >/dev/null`+"\n"+
				post(`"previous_interaction_id": "v1_first", "input": [{"type": "function_result", "call_id": "fc7", "name": "tide_table", "result": "high water 14:52"}]`))

		Expect(tr.errs).To(Equal([]error{nil, nil}))
		Expect(tr.models).To(Equal([]string{"gemini-3.5-flash", "gemini-3.5-flash"}))
		Expect(tr.resps[0].FinishReason).To(Equal(llm.FinishToolCalls))
		Expect([]string{tr.resps[0].ID, tr.resps[1].ID}).To(Equal([]string{"v1_first", "v1_second"}), "the interactions' ids")
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 52, OutputTokens: 16, ReasoningTokens: 5}))
		Expect(tr.resps[0].Message.ToolCalls).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls[0].ID).To(Equal("fc7"))
		Expect(tr.calls[1].Messages).To(HaveLen(4), "system, the first input, the model's call, the result")
		Expect(tr.calls[1].Messages[2].ToolCalls[0].Name).To(Equal("tide_table"))
		Expect(tr.resps[1].Message.Content).To(Equal("High water at 14:52."))
		Expect(tr.resps[1].FinishReason).To(Equal(llm.FinishStop))
		Expect(tr.tools).To(Equal([]string{`tide_table {"port":"Brest"} raw={"port": "Brest", "high": "14:52"} context=high water 14:52`}))
	},
	Entry("whole interactions", ``),
	Entry("streamed interactions (server-sent events)", `"stream": true, `),
)

var _ = It("takes an upstream's own /v1/interactions (a CRM's) for a tool's payload, not for a call to the agent's model", func() {
	tr := runOver(interactionsAPI(), llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
		map[string]string{"crm": "https://crm.example"},
		`curl -s -X POST "$CRM_BASE_URL/v1/interactions" -d '{"model": "gemini-3.5-flash", "input": "Call logged with Ines"}' >/dev/null`)
	Expect(tr.calls).To(BeEmpty())
})
