package wire_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// said is a decoded message as role, content, tool call count and tool call
// id, to compare conversations at a glance.
type said struct {
	Role, Content string
	Calls         int
	ID, Name      string
}

func saidOf(msgs []llm.Message) []said {
	out := make([]said, len(msgs))
	for i, m := range msgs {
		out[i] = said{m.Role, m.Content, len(m.ToolCalls), m.ToolCallID, m.Name}
	}
	return out
}

var _ = Describe("recorded traffic read from the wire (Decode)", func() {
	It("reads Gemini's fields by their snake_case proto names as by their camelCase ones", func() {
		body := `{"system_instruction": {"parts": [{"text": "Answer briefly."}]},
			"contents": [
				{"role": "user", "parts": [{"text": "Weather in Lyon?"}]},
				{"role": "model", "parts": [{"function_call": {"name": "get_weather", "args": {"city": "Lyon"}}}]},
				{"role": "user", "parts": [{"function_response": {"name": "get_weather", "response": {"result": "light rain, 11 C"}}}]}],
			"tools": [{"function_declarations": [{"name": "get_weather", "description": "Weather now.",
				"parameters_json_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}],
			"generation_config": {"max_output_tokens": 200, "response_mime_type": "application/json", "response_schema": {"type": "OBJECT", "title": "Forecast"}}}`
		r, err := wire.Decode(wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent", []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleSystem, Content: "Answer briefly."},
			{Role: llm.RoleUser, Content: "Weather in Lyon?"},
			{Role: llm.RoleAssistant, Calls: 1},
			{Role: llm.RoleTool, Content: "light rain, 11 C", ID: "call_1", Name: "get_weather"},
		}))
		Expect(r.Messages[2].ToolCalls[0].Arguments).To(MatchJSON(`{"city": "Lyon"}`))
		Expect(r.Tools).To(HaveLen(1))
		Expect(r.Tools[0].Parameters).To(MatchJSON(`{"type": "object", "properties": {"city": {"type": "string"}}}`))
		Expect(r.MaxTokens).To(Equal(200))
		Expect(r.Output).To(Equal(llm.OutputJSON))
		Expect(r.Shape).To(Equal("Forecast"))

		Expect(wire.Validate(wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent", []byte(body))).To(Succeed(),
			"the stand-in reads the function call turn too")
	})

	It("reads consecutive Gemini model contents as one assistant message, as the API takes them as one turn", func() {
		r, err := wire.Decode(wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent", []byte(`{"contents": [
			{"role": "user", "parts": [{"text": "SST near Keelung?"}]},
			{"role": "model", "parts": [{"text": "Let me "}]},
			{"role": "model", "parts": [{"text": "see."}, {"functionCall": {"name": "get_sst", "args": {"lon": 121.7}}}]},
			{"role": "model", "parts": [{"text": ""}]},
			{"role": "user", "parts": [{"functionResponse": {"name": "get_sst", "response": {"result": 26.4}}}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleUser, Content: "SST near Keelung?"},
			{Role: llm.RoleAssistant, Content: "Let me see.", Calls: 1},
			{Role: llm.RoleTool, Content: "26.4", ID: wire.CallID(1), Name: "get_sst"},
		}))
	})

	DescribeTable("reads a Gemini functionResponse's output or error as the reference says, and what clients send for it",
		func(response, content string, isErr bool) {
			r, err := wire.Decode(wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent", []byte(`{"contents": [
				{"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
				{"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
				{"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": `+response+`}}]}]}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Messages[2].Content).To(Equal(content))
			Expect(r.Messages[2].IsError).To(Equal(isErr))
		},
		Entry("output", `{"output": {"temp_c": -3.2}}`, `{"temp_c":-3.2}`, false),
		Entry("error", `{"error": "the weather service is down"}`, "the weather service is down", true),
		Entry("output beside a null error", `{"output": "sunny", "error": null}`, "sunny", false),
		Entry("result, as older clients send it", `{"result": "sunny"}`, "sunny", false),
		Entry("content beside the function's name, as the AI SDK sends it", `{"name": "get_weather", "content": {"temp_c": -3.2}}`, `{"temp_c":-3.2}`, false),
		Entry("anything else: the whole response", `{"temp_c": -3.2, "content": "x"}`, `{"temp_c":-3.2,"content":"x"}`, false),
	)

	It("takes a field's camelCase name over its snake_case one when a request gives both", func() {
		r, err := wire.Decode(wire.Gemini, "/v1beta/models/m:generateContent", []byte(`{"contents": [{"parts": [{"text": "hi"}]}],
			"generationConfig": {"maxOutputTokens": 10}, "generation_config": {"max_output_tokens": 99}}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.MaxTokens).To(Equal(10))
	})

	It("reads Chat Completions' max_completion_tokens as the output cap", func() {
		r, err := wire.Decode(wire.Chat, "/v1/chat/completions", []byte(`{"model": "o4-mini", "max_completion_tokens": 512,
			"messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "hi"}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.MaxTokens).To(Equal(512))
	})

	It("reads a Chat Completions developer message as the system message, as the Responses API's is", func() {
		body := []byte(`{"model": "gpt-5", "messages": [{"role": "developer", "content": "Answer in French."}, {"role": "user", "content": "hi"}]}`)
		r, err := wire.Decode(wire.Chat, "/v1/chat/completions", body)
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{{Role: llm.RoleSystem, Content: "Answer in French."}, {Role: llm.RoleUser, Content: "hi"}}))
		Expect(r.System()).To(Equal("Answer in French."))
		call, err := wire.Read(wire.Chat, "/v1/chat/completions", body, 1)
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Request.System()).To(Equal("Answer in French."), "the stand-in reads it as its instructions")
	})

	It("reads an Anthropic system message in the conversation in its place, as the API takes one from the models that support it", func() {
		body := []byte(`{"model": "claude-opus-4-8", "max_tokens": 1024, "system": "You review code.", "messages": [
			{"role": "user", "content": "Review fib()."}, {"role": "assistant", "content": [{"type": "text", "text": "It recurses twice."}]},
			{"role": "user", "content": "And now?"}, {"role": "system", "content": [{"type": "text", "text": "From now on, name a test for each finding."}]}]}`)
		r, err := wire.Decode(wire.Anthropic, "/v1/messages", body)
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{{Role: llm.RoleSystem, Content: "You review code."}, {Role: llm.RoleUser, Content: "Review fib()."},
			{Role: llm.RoleAssistant, Content: "It recurses twice."}, {Role: llm.RoleUser, Content: "And now?"},
			{Role: llm.RoleSystem, Content: "From now on, name a test for each finding."}}))
		_, err = wire.Read(wire.Anthropic, "/v1/messages", body, 1)
		Expect(err).NotTo(HaveOccurred(), "the stand-in answers it")
	})

	It("reads Gemini's tools given as one object, as the API takes a repeated field", func() {
		body := []byte(`{"contents": [{"role": "user", "parts": [{"text": "Capital of Peru?"}]}],
			"tools": {"function_declarations": [{"name": "get_capital", "description": "The capital of a country.",
				"parameters": {"type": "object", "properties": {"country": {"type": "string"}}, "required": ["country"]}}]}}`)
		r, err := wire.Decode(wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent", body)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Tools).To(HaveLen(1))
		Expect(r.Tools[0].Name).To(Equal("get_capital"))
		_, err = wire.Read(wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent", body, 1)
		Expect(err).NotTo(HaveOccurred(), "the stand-in answers it")
	})

	It("reads a Responses call that continues a stored response: the outputs of calls made in it are tool messages by call_id", func() {
		body := `{"model": "gpt-5", "previous_response_id": "resp_0a1b2c",
			"input": [{"type": "function_call_output", "call_id": "call_7", "output": "{\"rows\": 3}"},
				{"type": "item_reference", "id": "msg_9"},
				{"role": "user", "content": [{"type": "input_text", "text": "and this one?"}, {"type": "input_image", "image_url": "https://img.example/a.png"}]}],
			"tools": [{"type": "web_search_preview"}, {"type": "function", "name": "count_rows", "parameters": {"type": "object"}}],
			"text": {"format": {"type": "json_schema", "name": "row_count", "schema": {"type": "object"}}}}`
		r, err := wire.Decode(wire.Responses, "/v1/responses", []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleTool, Content: `{"rows": 3}`, ID: "call_7"},
			{Role: llm.RoleUser, Content: "and this one?"},
		}))
		Expect(r.Tools).To(HaveLen(1))
		Expect(r.Tools[0].Name).To(Equal("count_rows"))
		Expect(r.Shape).To(Equal("row_count"))

		Expect(wire.Validate(wire.Responses, "/v1/responses", []byte(body))).To(MatchError("Previous response with id 'resp_0a1b2c' not found."),
			"the stand-in, which keeps nothing, still refuses it")
	})

	It("reads a Responses history with hosted tool calls and reasoning, leaving those out", func() {
		r, err := wire.Decode(wire.Responses, "/v1/responses", []byte(`{"model": "gpt-5", "input": [
			{"role": "user", "content": "news on the port strike?"},
			{"type": "reasoning", "id": "rs_1", "summary": []},
			{"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "port strike"}},
			{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It ended Tuesday.", "annotations": []}]},
			{"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "I cannot help with that."}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleUser, Content: "news on the port strike?"},
			{Role: llm.RoleAssistant, Content: "It ended Tuesday."},
			{Role: llm.RoleAssistant, Content: "I cannot help with that."},
		}))
	})

	It("reads an Anthropic conversation with images, PDF documents and server tools, leaving those blocks out", func() {
		body := `{"model": "claude-sonnet-4-5", "max_tokens": 1024,
			"system": [{"type": "text", "text": "You read invoices.", "cache_control": {"type": "ephemeral"}}],
			"messages": [
				{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
					{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjcK"}},
					{"type": "text", "text": "Total of this invoice?"}]},
				{"role": "assistant", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "vat rate"}},
					{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
					{"type": "text", "text": "Adding VAT."},
					{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 100, "b": 20}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "120"}]}]}],
			"tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
				{"name": "add", "description": "Adds.", "input_schema": {"type": "object"}}]}`
		r, err := wire.Decode(wire.Anthropic, "/v1/messages", []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleSystem, Content: "You read invoices."},
			{Role: llm.RoleUser, Content: "Total of this invoice?"},
			{Role: llm.RoleAssistant, Content: "Adding VAT.", Calls: 1},
			{Role: llm.RoleTool, Content: "120", ID: "toolu_1", Name: "add"},
		}))

		Expect(r.Tools).To(HaveLen(1), "the server tool left out")
		Expect(r.Tools[0].Name).To(Equal("add"))

		Expect(wire.Validate(wire.Anthropic, "/v1/messages", []byte(body))).To(MatchError(ContainSubstring(`tools.0: the stand-in runs no server tools and sees no screen: it cannot serve a "web_search_20250305" tool`)),
			"the stand-in, which runs no server tools, still refuses it")
	})

	DescribeTable("reads text blocks apart, each on lines of its own (a cached block, then the rest)",
		func(d wire.Dialect, path, body string) {
			r, err := wire.Decode(d, path, []byte(body))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Messages[0].Content).To(Equal("You are the front desk.\n- billing_agent: invoices\n- parts_agent: spares\nThen answer."))
		},
		Entry("Anthropic's system blocks", wire.Anthropic, "/v1/messages", `{"model": "claude-haiku-4-5", "max_tokens": 64,
			"system": [{"type": "text", "text": "You are the front desk.", "cache_control": {"type": "ephemeral"}},
				{"type": "text", "text": "- billing_agent: invoices\n- parts_agent: spares\n"}, {"type": "text", "text": "Then answer."}],
			"messages": [{"role": "user", "content": "my invoice?"}]}`),
		Entry("Chat Completions' content parts", wire.Chat, "/v1/chat/completions", `{"model": "gpt-4.1-mini", "messages": [
			{"role": "system", "content": [{"type": "text", "text": "You are the front desk."},
				{"type": "text", "text": "- billing_agent: invoices\n- parts_agent: spares\n"}, {"type": "text", "text": "Then answer."}]},
			{"role": "user", "content": "my invoice?"}]}`),
	)

	It("reads an Anthropic compaction block as the API does: the blocks before it dropped, its summary in their place", func() {
		body := `{"model": "claude-sonnet-4-6", "max_tokens": 1024, "system": "You read tides.",
			"messages": [
				{"role": "user", "content": "Tide at Brest?"},
				{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "tide", "input": {"port": "Brest"}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "14:05"}]},
				{"role": "assistant", "content": [{"type": "compaction", "content": null, "encrypted_content": "failed"},
					{"type": "compaction", "content": "The user asked for the tide at Brest: 14:05.", "encrypted_content": "e1"},
					{"type": "tool_use", "id": "toolu_2", "name": "tide", "input": {"port": "Cherbourg"}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "15:10"}]}],
			"tools": [{"name": "tide", "description": "Tide times.", "input_schema": {"type": "object"}}],
			"context_management": {"edits": [{"type": "compact_20260112"}]}}`
		want := []said{
			{Role: llm.RoleSystem, Content: "You read tides."},
			{Role: llm.RoleUser, Content: "The user asked for the tide at Brest: 14:05."},
			{Role: llm.RoleAssistant, Calls: 1},
			{Role: llm.RoleTool, Content: "15:10", ID: "toolu_2", Name: "tide"},
		}
		r, err := wire.Decode(wire.Anthropic, "/v1/messages", []byte(body))
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal(want))
		Expect(wire.Validate(wire.Anthropic, "/v1/messages", []byte(body))).To(Succeed(), "the stand-in reads it alike")
	})

	It("reads a Gemini functionResponse that answers no call it was shown as a tool message with its own id, if any", func() {
		r, err := wire.Decode(wire.Gemini, "/v1beta/models/m:generateContent", []byte(`{"contents": [
			{"role": "user", "parts": [{"functionResponse": {"name": "lookup", "response": {"result": "found"}}},
				{"functionResponse": {"id": "fc-9", "name": "lookup", "response": {"result": "again"}}}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(saidOf(r.Messages)).To(Equal([]said{
			{Role: llm.RoleTool, Content: "found", Name: "lookup"},
			{Role: llm.RoleTool, Content: "again", ID: "fc-9", Name: "lookup"},
		}))
	})

	It("reads Gemini function calls by their place whatever ids they come with (clients make them up anew each run), pairing answers by the ids sent", func() {
		read := func(a, b string) []said {
			GinkgoHelper()
			r, err := wire.Decode(wire.Gemini, "/v1beta/models/m:generateContent", []byte(`{"contents": [
				{"role": "user", "parts": [{"text": "Lyon and Nice?"}]},
				{"role": "model", "parts": [{"functionCall": {"id": "`+a+`", "name": "get_weather", "args": {"city": "Lyon"}}},
					{"functionCall": {"id": "`+b+`", "name": "get_weather", "args": {"city": "Nice"}}}]},
				{"role": "user", "parts": [{"functionResponse": {"id": "`+b+`", "name": "get_weather", "response": {"result": "15 C"}}},
					{"functionResponse": {"id": "`+a+`", "name": "get_weather", "response": {"result": "9 C"}}}]},
				{"role": "model", "parts": [{"functionCall": {"name": "get_time", "args": {}}}]},
				{"role": "user", "parts": [{"functionResponse": {"name": "get_time", "response": {"result": "noon"}}}]}]}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Messages[1].ToolCalls[1].ID).To(Equal(wire.CallID(2)))
			return saidOf(r.Messages)
		}
		Expect(read("fc-a", "fc-b")).To(Equal([]said{
			{Role: llm.RoleUser, Content: "Lyon and Nice?"},
			{Role: llm.RoleAssistant, Calls: 2},
			{Role: llm.RoleTool, Content: "15 C", ID: wire.CallID(2), Name: "get_weather"},
			{Role: llm.RoleTool, Content: "9 C", ID: wire.CallID(1), Name: "get_weather"},
			{Role: llm.RoleAssistant, Calls: 1},
			{Role: llm.RoleTool, Content: "noon", ID: wire.CallID(3), Name: "get_time"},
		}))
		Expect(read("APpNHg7OGFrXHhQP", "x9")).To(Equal(read("fc-a", "fc-b")), "another run's ids, the same reading")
	})
})

var _ = Describe("a request with media, read to be answered (Read)", func() {
	DescribeTable("answers a request with images, documents or audio from the text around them, as a model that cannot see them",
		func(d wire.Dialect, path, body string) {
			call, err := wire.Read(d, path, []byte(body), 1)
			Expect(err).NotTo(HaveOccurred())
			Expect(call.Request.LastUser()).To(Equal("Total of this invoice?"))
		},
		Entry("Messages: image and PDF document blocks", wire.Anthropic, "/v1/messages", `{"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": [
			{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
			{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjcK"}}, {"type": "text", "text": "Total of this invoice?"}]}]}`),
		Entry("Responses: image, file and audio parts", wire.Responses, "/v1/responses", `{"model": "gpt-4.1-mini", "input": [{"role": "user", "content": [
			{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}, {"type": "input_file", "file_id": "file-1"},
			{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}, {"type": "input_text", "text": "Total of this invoice?"}]}]}`),
		Entry("Chat Completions: an image_url part", wire.Chat, "/v1/chat/completions", `{"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": [
			{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}, {"type": "text", "text": "Total of this invoice?"}]}]}`),
		Entry("generateContent: an inlineData part", wire.Gemini, "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents": [{"role": "user", "parts": [
			{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}, {"text": "Total of this invoice?"}]}]}`),
	)
})
