package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
	"github.com/agentreplay/testbed/agents/llm/openai"
)

func newServer(status int, reply string) *llmtest.Server {
	srv := llmtest.NewServer(status, reply)
	DeferCleanup(srv.Close)
	return srv
}

// only returns the only request the server got.
func only(srv *llmtest.Server) (method, path string, header http.Header) {
	GinkgoHelper()
	r, _, err := srv.Only()
	Expect(err).NotTo(HaveOccurred())
	return r.Method, r.Path, r.Header
}

// body returns the only request body the server got, decoded.
func body(srv *llmtest.Server) map[string]any {
	GinkgoHelper()
	_, m, err := srv.Only()
	Expect(err).NotTo(HaveOccurred())
	return m
}

func asJSON(v any) string {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

const textReply = `{
  "id": "chatcmpl-9",
  "object": "chat.completion",
  "created": 1730000000,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "{\"sst\": 26.4}", "refusal": null},
    "logprobs": null,
    "finish_reason": "stop"
  }],
  "usage": {"prompt_tokens": 57, "completion_tokens": 12, "total_tokens": 69}
}`

const toolReply = `{
  "id": "chatcmpl-10",
  "object": "chat.completion",
  "created": 1730000001,
  "model": "gpt-4o-mini-2024-07-18",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "tool_calls": [
        {"id": "call_a1", "type": "function", "function": {"name": "get_sst", "arguments": "{\"lon\":118,\"lat\":20}"}},
        {"id": "call_b2", "type": "function", "function": {"name": "get_date", "arguments": "{}"}}
      ]
    },
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {"prompt_tokens": 120, "completion_tokens": 31, "total_tokens": 151}
}`

// conversation has every kind of message and a tool.
var conversation = llm.Request{
	Role: "router",
	Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You route questions about the ocean."},
		{Role: llm.RoleUser, Content: "Sea temperature off Taiwan?"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_sst", Arguments: json.RawMessage(`{"lon":121,"lat":23}`)}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Name: "get_sst", Content: `{"sst":26.4}`},
		{Role: llm.RoleAssistant, Content: "It is 26.4 °C."},
		{Role: llm.RoleUser, Content: "Answer as JSON."},
	},
	Tools: []llm.Tool{{
		Name:        "get_sst",
		Description: "Sea surface temperature at a point.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"lon":{"type":"number"},"lat":{"type":"number"}},"required":["lon","lat"]}`),
	}},
	Temperature: llm.Float(0.2),
	MaxTokens:   256,
	Output:      llm.OutputJSON,
}

var _ = Describe("Client", func() {
	var ctx context.Context

	BeforeEach(func() {
		ctx = context.Background()
	})

	It("posts the model, messages, sampling, JSON mode and tools in the Chat Completions shape", func() {
		srv := newServer(http.StatusOK, textReply)
		c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "sk-test-0123456789", srv.Client())
		_, err := c.Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())

		method, path, _ := only(srv)
		Expect(method).To(Equal(http.MethodPost))
		Expect(path).To(Equal("/v1/chat/completions"))
		body := body(srv)
		Expect(body).To(HaveKeyWithValue("model", "gpt-4o-mini"))
		Expect(body).To(HaveKeyWithValue("temperature", BeNumerically("==", 0.2)))
		Expect(body).To(HaveKeyWithValue("max_tokens", BeNumerically("==", 256)))
		Expect(asJSON(body["response_format"])).To(MatchJSON(`{"type":"json_object"}`))
		Expect(asJSON(body["messages"])).To(MatchJSON(`[
			{"role": "system", "content": "You route questions about the ocean."},
			{"role": "user", "content": "Sea temperature off Taiwan?"},
			{"role": "assistant", "tool_calls": [
				{"id": "call_1", "type": "function", "function": {"name": "get_sst", "arguments": "{\"lon\":121,\"lat\":23}"}}
			]},
			{"role": "tool", "tool_call_id": "call_1", "content": "{\"sst\":26.4}"},
			{"role": "assistant", "content": "It is 26.4 °C."},
			{"role": "user", "content": "Answer as JSON."}
		]`))
		Expect(asJSON(body["tools"])).To(MatchJSON(`[{
			"type": "function",
			"function": {
				"name": "get_sst",
				"description": "Sea surface temperature at a point.",
				"parameters": {"type": "object", "properties": {"lon": {"type": "number"}, "lat": {"type": "number"}}, "required": ["lon", "lat"]}
			}
		}]`))
		Expect(body).NotTo(HaveKey("role"), "the agent role is not sent")
	})

	DescribeTable("limits the output with the field the model family takes",
		func(model, field, absent string) {
			srv := newServer(http.StatusOK, textReply)
			_, err := openai.New(srv.URL+"/v1", model, "sk-test-0123456789", srv.Client()).Chat(ctx, conversation)
			Expect(err).NotTo(HaveOccurred())
			Expect(body(srv)).To(HaveKeyWithValue(field, BeNumerically("==", 256)))
			Expect(body(srv)).NotTo(HaveKey(absent))
		},
		Entry("gpt-4.1-mini: max_tokens", "gpt-4.1-mini", "max_tokens", "max_completion_tokens"),
		Entry("a local model: max_tokens", "qwen3:14b", "max_tokens", "max_completion_tokens"),
		Entry("gpt-5: max_completion_tokens", "gpt-5-mini", "max_completion_tokens", "max_tokens"),
		Entry("o3: max_completion_tokens", "o3", "max_completion_tokens", "max_tokens"),
		Entry("o4-mini behind a router: max_completion_tokens", "openai/o4-mini", "max_completion_tokens", "max_tokens"),
		Entry("an o-named model that is not a reasoning family: max_tokens", "olmo-2", "max_tokens", "max_completion_tokens"),
	)

	It("reports reasoning tokens as part of the output", func() {
		srv := newServer(http.StatusOK, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"o3",
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok","refusal":null}}],
			"usage":{"prompt_tokens":20,"completion_tokens":300,"total_tokens":320,"completion_tokens_details":{"reasoning_tokens":256}}}`)
		resp, err := openai.New(srv.URL+"/v1", "o3", "sk-test-0123456789", srv.Client()).Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 20, OutputTokens: 300, ReasoningTokens: 256}))
	})

	It("leaves out what the request does not set", func() {
		srv := newServer(http.StatusOK, textReply)
		c := openai.New(srv.URL+"/v1", "qwen3:4b", "", srv.Client())
		_, err := c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		Expect(err).NotTo(HaveOccurred())

		Expect(body(srv)).To(Equal(map[string]any{
			"model":    "qwen3:4b",
			"messages": []any{map[string]any{"role": "user", "content": "hi"}},
		}))
	})

	It("sends a zero temperature when one is set", func() {
		srv := newServer(http.StatusOK, textReply)
		c := openai.New(srv.URL+"/v1", "qwen3:4b", "", srv.Client())
		_, err := c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Temperature: llm.Float(0)})
		Expect(err).NotTo(HaveOccurred())
		Expect(body(srv)).To(HaveKeyWithValue("temperature", BeNumerically("==", 0)))
	})

	DescribeTable("carries the key in the Authorization header",
		func(key, want string) {
			srv := newServer(http.StatusOK, textReply)
			c := openai.New(srv.URL+"/v1", "gpt-4o-mini", key, srv.Client())
			_, err := c.Chat(ctx, conversation)
			Expect(err).NotTo(HaveOccurred())
			_, _, header := only(srv)
			Expect(header.Get("Authorization")).To(Equal(want))
		},
		Entry("a real key", "sk-test-0123456789", "Bearer sk-test-0123456789"),
		Entry("a placeholder for local servers that need none", "", "Bearer none"),
	)

	It("maps a text answer to llm.Response, with the completion's id", func() {
		srv := newServer(http.StatusOK, textReply)
		c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "k", srv.Client())
		resp, err := c.Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(Equal(llm.Response{
			Message:         llm.Message{Role: llm.RoleAssistant, Content: `{"sst": 26.4}`},
			Usage:           llm.Usage{InputTokens: 57, OutputTokens: 12},
			FinishReason:    llm.FinishStop,
			RawFinishReason: "stop",
			Model:           "gpt-4o-mini-2024-07-18",
			ID:              "chatcmpl-9",
		}))
	})

	DescribeTable("maps finish_reason into llm's neutral set",
		func(raw, want string) {
			Expect(openai.FinishReason(raw)).To(Equal(want))
		},
		Entry(nil, "stop", llm.FinishStop),
		Entry(nil, "length", llm.FinishLength),
		Entry(nil, "tool_calls", llm.FinishToolCalls),
		Entry("the API's older name for a call", "function_call", llm.FinishToolCalls),
		Entry(nil, "content_filter", llm.FinishContentFilter),
		Entry("a compatible server's own reason", "eos", llm.FinishOther),
		Entry("none given", "", ""),
	)

	It("maps tool calls to llm.Response with their IDs, names and arguments", func() {
		srv := newServer(http.StatusOK, toolReply)
		c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "k", srv.Client())
		resp, err := c.Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())

		Expect(resp.Message.Role).To(Equal(llm.RoleAssistant))
		Expect(resp.Message.Content).To(BeEmpty())
		Expect(resp.Message.ToolCalls).To(HaveLen(2))
		a, b := resp.Message.ToolCalls[0], resp.Message.ToolCalls[1]
		Expect(a.ID).To(Equal("call_a1"))
		Expect(a.Name).To(Equal("get_sst"))
		Expect(a.Arguments).To(MatchJSON(`{"lon":118,"lat":20}`))
		Expect(b.ID).To(Equal("call_b2"))
		Expect(b.Name).To(Equal("get_date"))
		Expect(b.Arguments).To(MatchJSON(`{}`))
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 120, OutputTokens: 31}))
		Expect(resp.FinishReason).To(Equal("tool_calls"))
	})

	It("maps a legacy function_call answer (the functions API's, no id) to its one tool call", func() {
		srv := newServer(http.StatusOK, `{"id": "chatcmpl-11", "object": "chat.completion", "created": 1, "model": "gpt-3.5-turbo-0613",
			"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "function_call": {"name": "get_sst", "arguments": "{\"lon\":118}"}},
			"finish_reason": "function_call"}], "usage": {"prompt_tokens": 80, "completion_tokens": 9, "total_tokens": 89}}`)
		resp, err := openai.New(srv.URL+"/v1", "gpt-3.5-turbo", "k", srv.Client()).Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.ToolCalls).To(HaveLen(1))
		Expect(resp.Message.ToolCalls[0].ID).To(BeEmpty())
		Expect(resp.Message.ToolCalls[0].Name).To(Equal("get_sst"))
		Expect(resp.Message.ToolCalls[0].Arguments).To(MatchJSON(`{"lon":118}`))
		Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
	})

	It("reports cached prompt tokens as the cache-read part of the input, which includes them", func() {
		srv := newServer(http.StatusOK, `{"id":"x","object":"chat.completion","created":1,"model":"m",
			"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],
			"usage":{"prompt_tokens":2006,"completion_tokens":3,"total_tokens":2009,"prompt_tokens_details":{"cached_tokens":1920}}}`)
		c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "k", srv.Client())
		resp, err := c.Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 2006, OutputTokens: 3, CacheReadTokens: 1920}))
	})

	It("reports an answer without choices as ErrNoContent", func() {
		srv := newServer(http.StatusOK, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`)
		c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "k", srv.Client())
		_, err := c.Chat(ctx, conversation)
		Expect(err).To(MatchError(llm.ErrNoContent))
	})

	DescribeTable("returns a non-2xx answer as *llm.StatusError after exactly one attempt",
		func(code int, reply, message string) {
			srv := newServer(code, reply)
			c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "k", srv.Client())
			_, err := c.Chat(ctx, conversation)

			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Code).To(Equal(code))
			Expect(se.Body).To(ContainSubstring(message))
			Expect(len(srv.Requests())).To(Equal(1), "retries are off")
		},
		Entry("429 rate limit", http.StatusTooManyRequests,
			`{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			"Rate limit reached"),
		Entry("500 server error", http.StatusInternalServerError,
			`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`,
			"server had an error"),
		Entry("503 overloaded", http.StatusServiceUnavailable,
			`{"error":{"message":"The engine is currently overloaded.","type":"server_error","param":null,"code":null}}`,
			"overloaded"),
	)

	It("refuses tool parameters that are not a JSON object without calling the server", func() {
		srv := newServer(http.StatusOK, textReply)
		c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "k", srv.Client())
		req := llm.Request{
			Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
			Tools:    []llm.Tool{{Name: "broken", Parameters: json.RawMessage(`[1,2]`)}},
		}
		_, err := c.Chat(ctx, req)
		Expect(err).To(MatchError(ContainSubstring("tool broken")))
		Expect(len(srv.Requests())).To(Equal(0))
	})

	It("refuses a message with an unknown role without calling the server", func() {
		srv := newServer(http.StatusOK, textReply)
		c := openai.New(srv.URL+"/v1", "gpt-4o-mini", "k", srv.Client())
		_, err := c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: "narrator", Content: "hi"}}})
		Expect(err).To(MatchError(ContainSubstring(`unknown message role "narrator"`)))
		Expect(len(srv.Requests())).To(Equal(0))
	})
})
