package wire_test

import (
	"bytes"
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/wire"
)

var _ = Describe("Gemini's Interactions API", func() {
	// harbour is a stateless request sending its whole history of steps:
	// the model called two tools at once (after a thought) and got both
	// results back, one as contents and one as a JSON value.
	const harbour = `{"model": "gemini-3.5-flash", "store": false,
		"system_instruction": "You keep a harbour log.",
		"input": [
			{"type": "user_input", "content": [{"type": "text", "text": "High tide "}, {"type": "text", "text": "and wind at Brest?"}]},
			{"type": "thought", "signature": "c2ln", "summary": [{"type": "text", "text": "Two look-ups."}]},
			{"type": "function_call", "id": "t1", "name": "tide_table", "arguments": {"port": "Brest"}},
			{"type": "function_call", "id": "w2", "name": "wind_now", "arguments": {"port": "Brest", "unit": "kn"}},
			{"type": "function_result", "call_id": "w2", "result": [{"type": "text", "text": "NW 14 kn"}]},
			{"type": "function_result", "call_id": "t1", "name": "tide_table", "result": {"high": "14:52"}, "is_error": false}],
		"tools": [{"type": "function", "name": "tide_table", "description": "Tides of a port.",
			"parameters": {"type": "object", "properties": {"port": {"type": "string"}}}},
			{"type": "function", "name": "wind_now", "description": "Wind at a port."},
			{"type": "google_search"}],
		"generation_config": {"temperature": 0.2, "max_output_tokens": 300, "stop_sequences": ["<end>"], "thinking_level": "low"}}`

	It("names its path (…/v1beta/interactions, and /v1/ as @google/genai 3 calls it) as its own dialect", func() {
		for _, p := range []string{"/v1beta/interactions", "/v1/interactions", "/s/abc/v1beta/interactions"} {
			d, model := wire.Of(p)
			Expect(model).To(BeTrue(), p)
			Expect(d).To(Equal(wire.Interactions), p)
		}
		for _, p := range []string{"/v1beta/interactions/v1_abc", "/api/interactions", "/interactions"} {
			_, model := wire.Of(p)
			Expect(model).To(BeFalse(), p)
		}
	})

	It("reads steps as messages: the model's in a row one message, results paired by call_id, thoughts and hosted tools left out", func() {
		r, err := wire.Decode(wire.Interactions, "/v1beta/interactions", []byte(harbour))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Model).To(Equal("gemini-3.5-flash"))
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleSystem, Content: "You keep a harbour log."},
			{Role: llm.RoleUser, Content: "High tide and wind at Brest?"},
			{Role: llm.RoleAssistant, Calls: 2},
			{Role: llm.RoleTool, Content: "NW 14 kn", ID: "w2", Name: "wind_now"},
			{Role: llm.RoleTool, Content: `{"high":"14:52"}`, ID: "t1", Name: "tide_table"},
		}))
		Expect(r.Messages[2].ToolCalls[1]).To(Equal(llm.ToolCall{ID: "w2", Name: "wind_now", Arguments: json.RawMessage(`{"port":"Brest","unit":"kn"}`)}))
		Expect(r.Tools).To(HaveLen(2), "google_search is a hosted tool")
		Expect(r.Tools[1].Parameters).To(MatchJSON(`{"type": "object", "properties": {}}`))
		Expect(r.MaxTokens).To(Equal(300))
		Expect(r.Stop).To(Equal([]string{"<end>"}))
	})

	DescribeTable("reads its input in each of its forms",
		func(input string, want []said) {
			r, err := wire.Decode(wire.Interactions, "/v1beta/interactions", []byte(`{"model": "m", "input": `+input+`}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(saidOf(r.Messages)).To(Equal(want))
		},
		Entry("text", `"Tide at Brest?"`, []said{{Role: llm.RoleUser, Content: "Tide at Brest?"}}),
		Entry("a content", `{"type": "text", "text": "Tide at Brest?"}`, []said{{Role: llm.RoleUser, Content: "Tide at Brest?"}}),
		Entry("contents: one user message", `[{"type": "text", "text": "Tide "}, {"type": "image", "mime_type": "image/png", "data": "aGk="}, {"type": "text", "text": "at Brest?"}]`,
			[]said{{Role: llm.RoleUser, Content: "Tide at Brest?"}}),
		Entry("steps with the model's text", `[{"type": "user_input", "content": [{"type": "text", "text": "Hi"}]}, {"type": "model_output", "content": [{"type": "text", "text": "Hello."}]}, {"type": "user_input", "content": [{"type": "text", "text": "Tide?"}]}]`,
			[]said{{Role: llm.RoleUser, Content: "Hi"}, {Role: llm.RoleAssistant, Content: "Hello."}, {Role: llm.RoleUser, Content: "Tide?"}}),
	)

	DescribeTable("reads what output it asks for",
		func(fields string, want llm.Output, schema string) {
			r, err := wire.Decode(wire.Interactions, "/v1beta/interactions", []byte(`{"model": "m", "input": "x"`+fields+`}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Output).To(Equal(want))
			if schema == "" {
				Expect(r.Schema).To(BeEmpty())
			} else {
				Expect(r.Schema).To(MatchJSON(schema))
			}
		},
		Entry("nothing", ``, llm.Output(""), ``),
		Entry("a text format of JSON with its schema", `, "response_format": {"type": "text", "mime_type": "application/json", "schema": {"type": "object", "title": "Tide"}}`, llm.OutputJSON, `{"type": "object", "title": "Tide"}`),
		Entry("formats, the text one of JSON: JSON, the one output that changes how the answer is read", `, "response_format": [{"type": "audio"}, {"type": "text", "mime_type": "application/json"}]`, llm.OutputJSON, ``),
		Entry("a bare schema, as the older requests send it", `, "response_format": {"type": "object", "properties": {"high": {"type": "string"}}}`, llm.OutputJSON, `{"type": "object", "properties": {"high": {"type": "string"}}}`),
		Entry("the older response_mime_type", `, "response_mime_type": "application/json"`, llm.OutputJSON, ``),
	)

	DescribeTable("reads generation_config.tool_choice",
		func(choice string, want wire.Choice) {
			r, err := wire.Decode(wire.Interactions, "/v1beta/interactions", []byte(`{"model": "m", "input": "x", "generation_config": {"tool_choice": `+choice+`}}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Choice).To(Equal(want))
		},
		Entry("auto", `"auto"`, wire.Choice{}),
		Entry("any", `"any"`, wire.Choice{Required: true}),
		Entry("none", `"none"`, wire.Choice{None: true}),
		Entry("validated", `"validated"`, wire.Choice{}),
		Entry("allowed tools", `{"allowed_tools": {"mode": "any", "tools": ["tide_table"]}}`, wire.Choice{Required: true, Only: []string{"tide_table"}}),
	)

	DescribeTable("refuses what the stand-in cannot answer, in Gemini's error shape",
		func(body, want string) {
			err := wire.Validate(wire.Interactions, "/v1beta/interactions", []byte(body))
			Expect(err).To(MatchError(ContainSubstring(want)))
			status, _, refused := wire.Refusal(wire.Interactions, []byte(body), 1, err)
			Expect(status).To(Equal(400))
			Expect(refused).To(HaveKeyWithValue("error", HaveKeyWithValue("status", "INVALID_ARGUMENT")))
		},
		Entry("no model", `{"input": "x"}`, "model is required"),
		Entry("no input", `{"model": "m"}`, "input is required"),
		Entry("a hosted tool", `{"model": "m", "input": "x", "tools": [{"type": "code_execution"}]}`, `tools.0: the stand-in calls function tools, not the hosted tool "code_execution"; record this agent against the real model instead (testbed record --provider gemini)`),
		Entry("an agent", `{"agent": "deep-research-pro", "input": "x"}`, "not agent ones"),
		Entry("a step it does not know", `{"model": "m", "input": [{"type": "google_search_call", "id": "s1"}]}`, "google_search_call"),
	)

	// answer reads body with t and answers it with msg, whole and streamed.
	answer := func(t *wire.Threads, body string, msg llm.Message, end wire.End) (whole map[string]any, events []wire.Event) {
		GinkgoHelper()
		call, err := t.Read(wire.Interactions, "/v1beta/interactions", []byte(body), 1)
		Expect(err).NotTo(HaveOccurred())
		w, err := call.Encoder.Completion("gemini-3.5-flash", msg, end, 40, 12)
		Expect(err).NotTo(HaveOccurred())
		streamed := strings.Replace(body, `{`, `{"stream": true, `, 1)
		call, err = t.Read(wire.Interactions, "/v1beta/interactions", []byte(streamed), 1)
		Expect(err).NotTo(HaveOccurred())
		events, err = call.Encoder.Events("gemini-3.5-flash", msg, end, 40, 12)
		Expect(err).NotTo(HaveOccurred())
		return w.(map[string]any), events
	}
	sse := func(events []wire.Event) []byte {
		var b bytes.Buffer
		for _, e := range events {
			wire.WriteEvent(&b, e)
		}
		return b.Bytes()
	}
	calling := llm.Message{Role: llm.RoleAssistant, Content: "Looking it up.", ToolCalls: []llm.ToolCall{
		{Name: "tide_table", Arguments: json.RawMessage(`{"port": "Brest"}`)}, {Name: "wind_now", Arguments: json.RawMessage(`{"port": "Brest"}`)}}}

	It("answers with the model's steps, its status and usage, and streams the same answer as events", func() {
		whole, events := answer(nil, `{"model": "gemini-3.5-flash", "input": "Tide and wind at Brest?"}`, calling, wire.End{})
		Expect(whole).To(HaveKeyWithValue("status", "requires_action"))
		Expect(whole).To(HaveKeyWithValue("object", "interaction"))
		Expect(whole["id"]).To(HavePrefix("v1_"))
		b, err := json.Marshal(whole)
		Expect(err).NotTo(HaveOccurred())
		read, err := wire.ReadInteractions(b)
		Expect(err).NotTo(HaveOccurred())
		Expect(read.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(read.Usage).To(Equal(llm.Usage{InputTokens: 40, OutputTokens: 12}))
		Expect(read.Message.Content).To(Equal("Looking it up."))
		Expect(read.Message.ToolCalls).To(HaveLen(2))
		Expect(read.Message.ToolCalls[0].ID).NotTo(Equal(read.Message.ToolCalls[1].ID))
		Expect(read.Message.ToolCalls[1].Arguments).To(MatchJSON(`{"port": "Brest"}`))

		var types []string
		for _, e := range events {
			if d, ok := e.Data.(map[string]any); ok {
				types = append(types, d["event_type"].(string))
			}
		}
		Expect(types[0]).To(Equal("interaction.created"))
		Expect(types[len(types)-1]).To(Equal("interaction.completed"))
		Expect(strings.Count(strings.Join(types, " "), "step.start")).To(Equal(3), "the text, then a step a call")
		Expect(events[len(events)-1].Data).To(Equal("[DONE]"))
		fromStream, err := wire.ReadInteractions(sse(events))
		Expect(err).NotTo(HaveOccurred())
		Expect(fromStream.Message.Content).To(Equal(read.Message.Content))
		Expect(fromStream.Message.ToolCalls).To(HaveLen(2))
		for i, tc := range fromStream.Message.ToolCalls {
			Expect(tc.Name).To(Equal(read.Message.ToolCalls[i].Name))
			Expect(tc.Arguments).To(MatchJSON(read.Message.ToolCalls[i].Arguments))
		}
		Expect(fromStream.Usage).To(Equal(read.Usage))
		Expect(fromStream.FinishReason).To(Equal(llm.FinishToolCalls))

		tokens := 0
		for _, e := range stream.Parse(string(sse(events))) {
			if stream.Token(e) {
				tokens++
			}
		}
		Expect(tokens).To(BeNumerically(">", 2), "text deltas, each call's start and its arguments")
	})

	It("shows a thinking model's thought first when the request asks for summaries, its tokens apart from the output", func() {
		const asks = `{"model": "gemini-3.5-flash", "input": "Tide at Brest?", "generation_config": {"thinking_summaries": "auto"}}`
		whole, events := answer(nil, asks, calling, wire.End{})
		steps := whole["steps"].([]any)
		Expect(steps[0]).To(HaveKeyWithValue("type", "thought"))
		Expect(steps[0]).To(HaveKeyWithValue("signature", Not(BeEmpty())))
		Expect(steps[0]).To(HaveKeyWithValue("summary", ConsistOf(HaveKeyWithValue("text", "Deciding from the request alone: call tide_table, wind_now."))))
		usage := whole["usage"].(map[string]any)
		Expect(usage["total_thought_tokens"]).To(BeNumerically(">", 0))
		Expect(usage["total_output_tokens"]).To(Equal(12))
		b, _ := json.Marshal(whole)
		read, err := wire.ReadInteractions(b)
		Expect(err).NotTo(HaveOccurred())
		thought := usage["total_thought_tokens"].(int)
		Expect(read.Usage).To(Equal(llm.Usage{InputTokens: 40, OutputTokens: 12 + thought, ReasoningTokens: thought}))
		Expect(read.Message.Content).To(Equal("Looking it up."), "the thought is not the answer")

		streamed, err := wire.ReadInteractions(sse(events))
		Expect(err).NotTo(HaveOccurred())
		Expect(streamed.Usage).To(Equal(read.Usage))
		Expect(streamed.Message.Content).To(Equal(read.Message.Content))
		first := events[1].Data.(map[string]any)
		Expect(first["step"]).To(HaveKeyWithValue("type", "thought"))
		for _, e := range stream.Parse(string(sse(events)))[:4] {
			Expect(stream.Token(e)).To(BeFalse(), "the thought is no token of the answer: %s", e.Data)
		}

		By("nothing thought without summaries asked, nor by a model that does not think")
		for _, body := range []string{`{"model": "gemini-3.5-flash", "input": "x"}`, `{"model": "gemini-2.0-flash", "input": "x", "generation_config": {"thinking_summaries": "auto"}}`} {
			whole, _ := answer(nil, body, calling, wire.End{})
			Expect(whole["steps"].([]any)[0]).NotTo(HaveKeyWithValue("type", "thought"), body)
		}
	})

	It("says incomplete when the answer was cut at max_output_tokens", func() {
		whole, events := answer(nil, `{"model": "m", "input": "x"}`, llm.Message{Role: llm.RoleAssistant, Content: "High"}, wire.End{Truncated: true})
		Expect(whole).To(HaveKeyWithValue("status", "incomplete"))
		read, err := wire.ReadInteractions(sse(events))
		Expect(err).NotTo(HaveOccurred())
		Expect(read.FinishReason).To(Equal(llm.FinishLength))
	})

	It("continues a stored interaction (previous_interaction_id), and refuses one it does not keep with Gemini's 404", func() {
		var t wire.Threads
		whole, _ := answer(&t, `{"model": "m", "system_instruction": "You keep a harbour log.", "input": "Tide at Brest?"}`,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "tide_table", Arguments: json.RawMessage(`{"port": "Brest"}`)}}}, wire.End{})
		id := whole["id"].(string)
		callID := whole["steps"].([]any)[0].(map[string]any)["id"].(string)
		next := `{"model": "m", "system_instruction": "You keep a harbour log.", "previous_interaction_id": "` + id + `",
			"input": [{"type": "function_result", "call_id": "` + callID + `", "name": "tide_table", "result": "high water 14:52"}]}`
		call, err := t.Read(wire.Interactions, "/v1beta/interactions", []byte(next), 1)
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(call.Request.Messages)).To(Equal([]said{
			{Role: llm.RoleSystem, Content: "You keep a harbour log."},
			{Role: llm.RoleUser, Content: "Tide at Brest?"},
			{Role: llm.RoleAssistant, Calls: 1},
			{Role: llm.RoleTool, Content: "high water 14:52", ID: callID, Name: "tide_table"},
		}))

		By("the scorer following the same thread from the traffic")
		var seen wire.Threads
		first := `{"model": "m", "input": "Tide at Brest?"}`
		_, kept, err := seen.Decode(wire.Interactions, "/v1beta/interactions", []byte(first))
		Expect(err).NotTo(HaveOccurred())
		b, _ := json.Marshal(whole)
		read, _ := wire.ReadInteractions(b)
		kept(read.Message, b)
		r, _, err := seen.Decode(wire.Interactions, "/v1beta/interactions", []byte(next))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Messages).To(HaveLen(4))

		By("refusing an id it never stored")
		missing := `{"model": "m", "previous_interaction_id": "v1_gone", "input": "and?"}`
		_, err = t.Read(wire.Interactions, "/v1beta/interactions", []byte(missing), 1)
		Expect(err).To(MatchError(ContainSubstring(`"v1_gone" was not found`)))
		status, _, refused := wire.Refusal(wire.Interactions, []byte(missing), 1, err)
		Expect(status).To(Equal(404))
		Expect(refused).To(HaveKeyWithValue("error", HaveKeyWithValue("status", "NOT_FOUND")))

		By("keeping nothing of a request that says store: false")
		whole, _ = answer(&t, `{"model": "m", "store": false, "input": "Tide at Brest?"}`, llm.Message{Role: llm.RoleAssistant, Content: "ok"}, wire.End{})
		_, err = t.Read(wire.Interactions, "/v1beta/interactions", []byte(`{"model": "m", "previous_interaction_id": "`+whole["id"].(string)+`", "input": "and?"}`), 1)
		Expect(err).To(MatchError(ContainSubstring("was not found")))
	})

	It("reads a recorded stream as the SDK puts it together: thoughts apart, thought tokens as output, an error event as the error", func() {
		const recorded = `data: {"event_type": "interaction.created", "interaction": {"id": "v1_x", "model": "gemini-3.5-flash", "status": "in_progress"}}

data: {"event_type": "step.start", "index": 0, "step": {"type": "thought", "signature": "c2ln"}}

data: {"event_type": "step.delta", "index": 0, "delta": {"type": "thought_summary", "content": {"type": "text", "text": "Checking tides."}}}

data: {"event_type": "step.stop", "index": 0}

data: {"event_type": "step.start", "index": 1, "step": {"type": "function_call", "id": "fc1", "name": "tide_table", "arguments": {}}}

data: {"event_type": "step.delta", "index": 1, "delta": {"type": "arguments_delta", "arguments": "{\"port\": "}}

data: {"event_type": "step.delta", "index": 1, "delta": {"type": "arguments_delta", "arguments": "\"Brest\"}"}}

data: {"event_type": "step.stop", "index": 1}

data: {"event_type": "interaction.completed", "interaction": {"id": "v1_x", "status": "requires_action", "usage": {"total_input_tokens": 90, "total_output_tokens": 9, "total_thought_tokens": 31, "total_cached_tokens": 64}}}

data: [DONE]

`
		read, err := wire.ReadInteractions([]byte(recorded))
		Expect(err).NotTo(HaveOccurred())
		Expect(read.Model).To(Equal("gemini-3.5-flash"))
		Expect(read.Message.Content).To(BeEmpty())
		Expect(read.Message.ToolCalls).To(Equal([]llm.ToolCall{{ID: "fc1", Name: "tide_table", Arguments: json.RawMessage(`{"port":"Brest"}`)}}))
		Expect(read.Usage).To(Equal(llm.Usage{InputTokens: 90, OutputTokens: 40, ReasoningTokens: 31, CacheReadTokens: 64}))
		Expect(read.FinishReason).To(Equal(llm.FinishToolCalls))
		tokens := 0
		for _, e := range stream.Parse(recorded) {
			if stream.Token(e) {
				tokens++
			}
		}
		Expect(tokens).To(Equal(3), "the call's start and its two argument pieces; the thought is no token of the answer")

		_, err = wire.ReadInteractions([]byte(strings.Split(recorded, "data: {\"event_type\": \"interaction.completed\"")[0]))
		Expect(err).To(MatchError(ContainSubstring("before interaction.completed")))
		_, err = wire.ReadInteractions([]byte(`data: {"event_type": "error", "error": {"code": "resource_exhausted", "message": "Quota exceeded"}}` + "\n\n"))
		Expect(err).To(MatchError(ContainSubstring("Quota exceeded")))
		_, err = wire.ReadInteractions([]byte(`{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}`))
		Expect(err).To(MatchError(ContainSubstring("Quota exceeded")))
	})
})
