package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/anthropic"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
)

const apiKey = "sk-ant-test-0123456789"

// chatWith sends req to a server that answers status and reply, and returns
// the server (for what it got) and the adapter's answer.
func chatWith(status int, reply string, req llm.Request) (*llmtest.Server, llm.Response, error) {
	GinkgoHelper()
	srv := llmtest.NewServer(status, reply)
	DeferCleanup(srv.Close)
	c, err := anthropic.New(srv.URL, "claude-sonnet-4-5", apiKey, srv.Client())
	Expect(err).NotTo(HaveOccurred())
	resp, err := c.Chat(context.Background(), req)
	return srv, resp, err
}

// sent is the only request body srv got, as JSON text by top-level key.
func sent(srv *llmtest.Server) map[string]string {
	GinkgoHelper()
	_, body, err := srv.Only()
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for k, v := range body {
		b, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred())
		out[k] = string(b)
	}
	return out
}

// reply is a Messages response with the given content blocks, stop reason
// and usage.
func reply(content, stop string, in, out, read, write int) string {
	return fmt.Sprintf(`{
  "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
  "content": %s, "stop_reason": %q, "stop_sequence": null,
  "usage": {"input_tokens": %d, "output_tokens": %d, "cache_read_input_tokens": %d, "cache_creation_input_tokens": %d}
}`, content, stop, in, out, read, write)
}

var textReply = reply(`[{"type": "thinking", "thinking": "Weighing it…", "signature": "s"}, {"type": "text", "text": "It is "}, {"type": "text", "text": "26.4 °C."}]`, "end_turn", 57, 12, 0, 0)

const sstSchema = `{"type":"object","properties":{"lon":{"type":"number"},"lat":{"type":"number"}},"required":["lon","lat"],"additionalProperties":false}`

// conversation has every kind of message: a system prompt, parallel tool
// use, a failed tool and user text after the results.
var conversation = llm.Request{
	Role: "assistant",
	Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You answer questions about the ocean."},
		{Role: llm.RoleUser, Content: "Sea temperature off Taiwan, and today's date?"},
		{Role: llm.RoleAssistant, Content: "Let me look.", ToolCalls: []llm.ToolCall{
			{ID: "toolu_1", Name: "get_sst", Arguments: json.RawMessage(`{"lon":121,"lat":23}`)},
			{ID: "toolu_2", Name: "get_date", Arguments: json.RawMessage(`{}`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "toolu_1", Name: "get_sst", Content: `{"sst":26.4}`},
		{Role: llm.RoleTool, ToolCallID: "toolu_2", Name: "get_date", Content: "clock unavailable", IsError: true},
		{Role: llm.RoleUser, Content: "Answer in one line."},
	},
	Tools: []llm.Tool{{
		Name:        "get_sst",
		Description: "Sea surface temperature at a point.",
		Parameters:  json.RawMessage(sstSchema),
	}},
	Temperature: llm.Float(0.5),
	MaxTokens:   256,
}

var _ = Describe("New", func() {
	It("requires an API key", func() {
		c, err := anthropic.New("http://127.0.0.1:1", "claude-sonnet-4-5", "", http.DefaultClient)
		Expect(err).To(MatchError(ContainSubstring("API key is required")))
		Expect(c).To(BeNil())
	})
})

var _ = Describe("Client", func() {
	It("posts to /v1/messages with the key in x-api-key and the API version", func() {
		srv, _, err := chatWith(http.StatusOK, textReply, conversation)
		Expect(err).NotTo(HaveOccurred())
		r, _, err := srv.Only()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Method).To(Equal(http.MethodPost))
		Expect(r.Path).To(Equal("/v1/messages"))
		Expect(r.Header.Get("X-Api-Key")).To(Equal(apiKey))
		Expect(r.Header.Get("Anthropic-Version")).To(Equal("2023-06-01"))
		Expect(r.Header.Get("Authorization")).To(BeEmpty())
		Expect(r.Header.Get("X-Stainless-Retry-Count")).To(Equal("0"))
	})

	It("takes nothing from the environment", func() {
		GinkgoT().Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
		GinkgoT().Setenv("ANTHROPIC_AUTH_TOKEN", "from-the-environment")
		GinkgoT().Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-From-Env: yes")
		srv, _, err := chatWith(http.StatusOK, textReply, conversation)
		Expect(err).NotTo(HaveOccurred())
		r, _, err := srv.Only()
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Header.Get("Authorization")).To(BeEmpty())
		Expect(r.Header.Get("X-From-Env")).To(BeEmpty())
	})

	It("sends the system prompt, the parallel tool results in one user message, is_error and the tools' input_schema", func() {
		srv, _, err := chatWith(http.StatusOK, textReply, conversation)
		Expect(err).NotTo(HaveOccurred())
		body := sent(srv)
		Expect(body["model"]).To(Equal(`"claude-sonnet-4-5"`))
		Expect(body["max_tokens"]).To(Equal("256"))
		Expect(body["temperature"]).To(Equal("0.5"))
		Expect(body["system"]).To(MatchJSON(`[{"type": "text", "text": "You answer questions about the ocean."}]`))
		Expect(body["messages"]).To(MatchJSON(`[
			{"role": "user", "content": [{"type": "text", "text": "Sea temperature off Taiwan, and today's date?"}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "Let me look."},
				{"type": "tool_use", "id": "toolu_1", "name": "get_sst", "input": {"lon": 121, "lat": 23}},
				{"type": "tool_use", "id": "toolu_2", "name": "get_date", "input": {}}]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "{\"sst\":26.4}"}], "is_error": false},
				{"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "clock unavailable"}], "is_error": true},
				{"type": "text", "text": "Answer in one line."}]}
		]`))
		Expect(body["tools"]).To(MatchJSON(`[{"name": "get_sst", "description": "Sea surface temperature at a point.",
			"input_schema": ` + sstSchema + `}]`))
		Expect(body).NotTo(HaveKey("stream"))
	})

	It("sends an empty tool result without content, as the API refuses empty text blocks", func() {
		srv, _, err := chatWith(http.StatusOK, textReply, llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "hi"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "ping", Arguments: json.RawMessage(`{}`)}}},
			{Role: llm.RoleTool, ToolCallID: "toolu_1", Name: "ping"},
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(sent(srv)["messages"]).To(MatchJSON(`[
			{"role": "user", "content": [{"type": "text", "text": "hi"}]},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ping", "input": {}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false}]}
		]`))
	})

	It("sends the default max_tokens, which the API requires, and leaves out what the request does not set", func() {
		srv, _, err := chatWith(http.StatusOK, textReply, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Output: llm.OutputJSON})
		Expect(err).NotTo(HaveOccurred())
		body := sent(srv)
		Expect(body["max_tokens"]).To(Equal(fmt.Sprint(anthropic.DefaultMaxTokens)))
		Expect(body["messages"]).To(MatchJSON(`[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]`))
		Expect(body).To(HaveLen(3), "model, max_tokens and messages only: %v", body)
	})

	It("maps a text answer to llm.Response, joining text blocks and leaving out thinking, with the message's id", func() {
		_, resp, err := chatWith(http.StatusOK, textReply, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(Equal(llm.Response{
			Message:         llm.Message{Role: llm.RoleAssistant, Content: "It is 26.4 °C."},
			Usage:           llm.Usage{InputTokens: 57, OutputTokens: 12},
			FinishReason:    llm.FinishStop,
			RawFinishReason: "end_turn",
			Model:           "claude-sonnet-4-5-20250929",
			ID:              "msg_01",
		}))
	})

	It("maps parallel tool_use blocks to tool calls with their ids, names and inputs", func() {
		toolReply := reply(`[{"type": "text", "text": "Checking."},
			{"type": "tool_use", "id": "toolu_a", "name": "get_sst", "input": {"lon": 118, "lat": 20}},
			{"type": "tool_use", "id": "toolu_b", "name": "get_date", "input": {}}]`, "tool_use", 120, 31, 0, 0)
		_, resp, err := chatWith(http.StatusOK, toolReply, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(resp.Message.Content).To(Equal("Checking."))
		Expect(resp.Message.ToolCalls).To(HaveLen(2))
		a, b := resp.Message.ToolCalls[0], resp.Message.ToolCalls[1]
		Expect([]string{a.ID, a.Name, b.ID, b.Name}).To(Equal([]string{"toolu_a", "get_sst", "toolu_b", "get_date"}))
		Expect(a.Arguments).To(MatchJSON(`{"lon": 118, "lat": 20}`))
		Expect(b.Arguments).To(MatchJSON(`{}`))
	})

	DescribeTable("maps stop reasons to llm's finish reasons",
		func(stop, want string) {
			Expect(anthropic.FinishReason(stop)).To(Equal(want))
		},
		Entry(nil, "end_turn", llm.FinishStop),
		Entry(nil, "stop_sequence", llm.FinishStop),
		Entry(nil, "max_tokens", llm.FinishLength),
		Entry(nil, "tool_use", llm.FinishToolCalls),
		Entry(nil, "model_context_window_exceeded", llm.FinishLength),
		Entry(nil, "refusal", llm.FinishContentFilter),
		Entry("one without a counterpart is other", "pause_turn", llm.FinishOther),
	)

	It("reports a max_tokens stop as FinishLength", func() {
		_, resp, err := chatWith(http.StatusOK, reply(`[{"type": "text", "text": "{\"decision\": \"mc"}]`, "max_tokens", 40, 4, 0, 0), conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FinishReason).To(Equal(llm.FinishLength))
		Expect(resp.Message.Content).To(Equal(`{"decision": "mc`))
	})

	// Anthropic's input_tokens leaves out the tokens read from and written
	// to the prompt cache; the total input is their sum.
	DescribeTable("reports total input = input_tokens + cache read + cache creation, each part shown",
		func(in, read, write int) {
			_, resp, err := chatWith(http.StatusOK, reply(`[{"type": "text", "text": "ok"}]`, "end_turn", in, 7, read, write), conversation)
			Expect(err).NotTo(HaveOccurred())
			u := resp.Usage
			Expect(u.InputTokens).To(Equal(in+read+write), "total input")
			Expect(u.CacheReadTokens).To(Equal(read))
			Expect(u.CacheWriteTokens).To(Equal(write))
			Expect(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens).To(Equal(in), "the uncached part is input_tokens")
			Expect(u.OutputTokens).To(Equal(7))
		},
		Entry("no cache", 57, 0, 0),
		Entry("a cache write", 21, 0, 1800),
		Entry("a cache read", 21, 1800, 0),
		Entry("both", 9, 1200, 600),
	)

	It("reports the part of the cache write that went to the 1-hour cache, billed at its own rate", func() {
		body := `{"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
  "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 3000,
    "cache_creation": {"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 1000}}}`
		_, resp, err := chatWith(http.StatusOK, body, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage.CacheWriteTokens).To(Equal(3000))
		Expect(resp.Usage.CacheWrite1hTokens).To(Equal(1000))
	})

	It("reports the thinking part of the output tokens, which recent models' answers give, as the reasoning tokens", func() {
		body := `{"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-4-8",
  "content": [{"type": "thinking", "thinking": "The tide table first.", "signature": "s"}, {"type": "text", "text": "High tide is at 14:05."}],
  "stop_reason": "end_turn", "stop_sequence": null, "stop_details": null,
  "usage": {"input_tokens": 40, "output_tokens": 44, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0,
    "output_tokens_details": {"thinking_tokens": 33}, "service_tier": "standard", "inference_geo": "global"}}`
		_, resp, err := chatWith(http.StatusOK, body, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage.OutputTokens).To(Equal(44), "thinking is billed as output")
		Expect(resp.Usage.ReasoningTokens).To(Equal(33))
		Expect(resp.Usage.InferenceGeo).To(BeEmpty(), "global is the default geography")
	})

	It("reports US-only inference (usage.inference_geo us), which is billed apart", func() {
		body := `{"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
  "content": [{"type": "text", "text": "High tide is at 14:05."}], "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 40, "output_tokens": 9, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "service_tier": "standard", "inference_geo": "us"}}`
		_, resp, err := chatWith(http.StatusOK, body, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 40, OutputTokens: 9, InferenceGeo: "us"}))
	})

	It("adds a server-side compaction's tokens, which the top-level usage leaves out, whole and streamed", func() {
		body := `{"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
  "content": [{"type": "compaction", "content": "Summary: the user asked for the tide.", "encrypted_content": "e1"}, {"type": "text", "text": "High tide is at 14:05."}],
  "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 900, "output_tokens": 12, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0,
    "iterations": [{"type": "compaction", "input_tokens": 61000, "output_tokens": 700, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
      {"type": "message", "input_tokens": 900, "output_tokens": 12, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}]}}`
		_, resp, err := chatWith(http.StatusOK, body, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.Content).To(Equal("High tide is at 14:05."))
		Expect(resp.Usage.InputTokens).To(Equal(61900))
		Expect(resp.Usage.OutputTokens).To(Equal(712))

		stream := "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_01\", \"type\": \"message\", \"role\": \"assistant\", \"model\": \"claude-sonnet-4-6\", \"content\": [], \"stop_reason\": null, \"stop_sequence\": null, \"usage\": {\"input_tokens\": 900, \"output_tokens\": 1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"compaction\", \"content\": \"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"compaction_delta\", \"content\": \"Summary.\", \"encrypted_content\": \"e1\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\": \"content_block_stop\", \"index\": 0}\n\n" +
			"event: content_block_start\ndata: {\"type\": \"content_block_start\", \"index\": 1, \"content_block\": {\"type\": \"text\", \"text\": \"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 1, \"delta\": {\"type\": \"text_delta\", \"text\": \"High tide.\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\": \"content_block_stop\", \"index\": 1}\n\n" +
			"event: message_delta\ndata: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\", \"stop_sequence\": null}, \"usage\": {\"input_tokens\": 900, \"output_tokens\": 12, \"iterations\": [{\"type\": \"compaction\", \"input_tokens\": 61000, \"output_tokens\": 700}, {\"type\": \"message\", \"input_tokens\": 900, \"output_tokens\": 12}]}, \"context_management\": {\"applied_edits\": []}}\n\n" +
			"event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n"
		streamed, err := anthropic.StreamResponse([]byte(stream))
		Expect(err).NotTo(HaveOccurred())
		Expect(streamed.Message.Content).To(Equal("High tide."))
		Expect(streamed.Usage.InputTokens).To(Equal(61900))
		Expect(streamed.Usage.OutputTokens).To(Equal(712))
	})

	It("counts a server-side compaction's cache reads and writes as the cache's, whole and streamed, so they are billed at the cache's rates", func() {
		iterations := `"iterations": [{"type": "compaction", "input_tokens": 3000, "output_tokens": 700, "cache_read_input_tokens": 52000, "cache_creation_input_tokens": 6000}, {"type": "message", "input_tokens": 900, "output_tokens": 12, "cache_read_input_tokens": 1500, "cache_creation_input_tokens": 0}]`
		body := `{"id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
  "content": [{"type": "compaction", "content": "Summary: the user asked for the tide.", "encrypted_content": "e1"}, {"type": "text", "text": "High tide is at 14:05."}],
  "stop_reason": "end_turn", "stop_sequence": null,
  "usage": {"input_tokens": 900, "output_tokens": 12, "cache_read_input_tokens": 1500, "cache_creation_input_tokens": 0, ` + iterations + `}}`
		// 900 + 1,500 the answer's, 3,000 + 52,000 + 6,000 the compaction's
		want := llm.Usage{InputTokens: 63400, OutputTokens: 712, CacheReadTokens: 53500, CacheWriteTokens: 6000}
		_, resp, err := chatWith(http.StatusOK, body, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(want))

		stream := "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_02\", \"type\": \"message\", \"role\": \"assistant\", \"model\": \"claude-sonnet-4-6\", \"content\": [], \"stop_reason\": null, \"stop_sequence\": null, \"usage\": {\"input_tokens\": 900, \"cache_read_input_tokens\": 1500, \"cache_creation_input_tokens\": 0, \"output_tokens\": 1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"text\", \"text\": \"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\", \"text\": \"High tide.\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\": \"content_block_stop\", \"index\": 0}\n\n" +
			"event: message_delta\ndata: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\", \"stop_sequence\": null}, \"usage\": {\"input_tokens\": 900, \"cache_read_input_tokens\": 1500, \"cache_creation_input_tokens\": 0, \"output_tokens\": 12, " + iterations + "}}\n\n" +
			"event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n"
		streamed, err := anthropic.StreamResponse([]byte(stream))
		Expect(err).NotTo(HaveOccurred())
		Expect(streamed.Usage).To(Equal(want))
	})

	It("reports an answer without content blocks as ErrNoContent", func() {
		_, _, err := chatWith(http.StatusOK, reply(`[]`, "end_turn", 5, 1, 0, 0), conversation)
		Expect(err).To(MatchError(llm.ErrNoContent))
	})

	DescribeTable("returns a non-2xx answer as *llm.StatusError after exactly one attempt",
		func(code int, body, message string) {
			srv, _, err := chatWith(code, body, conversation)
			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Code).To(Equal(code))
			Expect(se.Body).To(ContainSubstring(message))
			Expect(srv.Requests()).To(HaveLen(1), "retries are off")
		},
		Entry("429 rate limit", http.StatusTooManyRequests,
			`{"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}}`, "rate_limit_error"),
		Entry("500 api error", http.StatusInternalServerError,
			`{"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}`, "api_error"),
		Entry("529 overloaded", 529,
			`{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`, "overloaded_error"),
		Entry("400 invalid request", http.StatusBadRequest,
			`{"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"}}`, "max_tokens"),
	)

	DescribeTable("refuses a request it cannot send without calling the server",
		func(req llm.Request, want string) {
			srv, _, err := chatWith(http.StatusOK, textReply, req)
			Expect(err).To(MatchError(ContainSubstring(want)))
			Expect(srv.Requests()).To(BeEmpty())
		},
		Entry("tool call arguments that are not an object", llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "hi"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "get_sst", Arguments: json.RawMessage(`[1]`)}}},
		}}, "tool call get_sst"),
		Entry("a tool whose parameters are not an object", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
			Tools: []llm.Tool{{Name: "get_sst", Parameters: json.RawMessage(`"number"`)}}}, "tool get_sst"),
		Entry("an unknown role", llm.Request{Messages: []llm.Message{{Role: "narrator", Content: "hi"}}}, `unknown message role "narrator"`),
	)
})
