package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/gemini"
	"github.com/agentreplay/testbed/agents/llm/llmtest"
)

const apiKey = "AIza-test-0123456789"

func newServer(status int, reply string) *llmtest.Server {
	srv := llmtest.NewServer(status, reply)
	DeferCleanup(srv.Close)
	return srv
}

// only returns the only request the server got.
func only(srv *llmtest.Server) (method, path, query string, header http.Header) {
	GinkgoHelper()
	r, _, err := srv.Only()
	Expect(err).NotTo(HaveOccurred())
	return r.Method, r.Path, r.Query, r.Header
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

func newClient(srv *llmtest.Server, model string) *gemini.Client {
	GinkgoHelper()
	c, err := gemini.New(context.Background(), srv.URL, model, apiKey, srv.Client())
	Expect(err).NotTo(HaveOccurred())
	return c
}

const textReply = `{
  "candidates": [{
    "content": {"parts": [
      {"text": "Weighing the question…", "thought": true},
      {"text": "{\"sst\": "},
      {"text": "26.4}"}
    ], "role": "model"},
    "finishReason": "STOP",
    "index": 0
  }],
  "usageMetadata": {"promptTokenCount": 57, "candidatesTokenCount": 12, "totalTokenCount": 69, "thoughtsTokenCount": 5},
  "modelVersion": "gemini-2.5-flash",
  "responseId": "r-1"
}`

const toolReply = `{
  "candidates": [{
    "content": {"parts": [
      {"functionCall": {"id": "fc-1", "name": "get_sst", "args": {"lon": 118, "lat": 20}}},
      {"functionCall": {"name": "get_date", "args": {}}}
    ], "role": "model"},
    "finishReason": "STOP",
    "index": 0
  }],
  "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 31, "totalTokenCount": 151},
  "modelVersion": "gemini-2.5-flash",
  "responseId": "r-2"
}`

// conversation has every kind of message and a tool. (The real API refuses
// JSON mode together with function calling; the wire shape is what counts
// here.)
var conversation = llm.Request{
	Role: "router",
	Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You route questions about the ocean."},
		{Role: llm.RoleUser, Content: "Sea temperature off Taiwan?"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_sst", Arguments: json.RawMessage(`{"lon":121,"lat":23}`)}}},
		{Role: llm.RoleTool, ToolCallID: "call_1", Name: "get_sst", Content: `{"sst":26.4}`},
		{Role: llm.RoleAssistant, Content: "It is 26.4 °C."},
		{Role: llm.RoleTool, ToolCallID: "call_2", Name: "get_date", Content: "2025-11-06"},
		{Role: llm.RoleUser, Content: "Answer as JSON."},
	},
	Tools: []llm.Tool{{
		Name:        "get_sst",
		Description: "Sea surface temperature at a point.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"lon":{"type":"number"},"lat":{"type":"number"}},"required":["lon","lat"]}`),
	}},
	Temperature: llm.Float(0.5),
	MaxTokens:   256,
	Output:      llm.OutputJSON,
}

var _ = Describe("New", func() {
	It("requires an API key", func() {
		c, err := gemini.New(context.Background(), "http://127.0.0.1:1", "gemini-2.5-flash", "", http.DefaultClient)
		Expect(err).To(MatchError(ContainSubstring("API key is required")))
		Expect(c).To(BeNil())
	})
})

var _ = Describe("Client", func() {
	var ctx context.Context

	BeforeEach(func() {
		ctx = context.Background()
	})

	It("posts to /v1beta/models/<model>:generateContent with the key in x-goog-api-key", func() {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())

		method, path, query, header := only(srv)
		Expect(method).To(Equal(http.MethodPost))
		Expect(path).To(Equal("/v1beta/models/gemini-2.5-flash:generateContent"))
		Expect(query).NotTo(ContainSubstring(apiKey), "the key never travels in the URL")
		Expect(header.Get("x-goog-api-key")).To(Equal(apiKey))
		Expect(header.Get("Authorization")).To(BeEmpty())
	})

	It("sends the system instruction, contents, tools and generation config in the generateContent shape", func() {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())

		body := body(srv)
		Expect(asJSON(body["systemInstruction"])).To(MatchJSON(`{"role": "user", "parts": [{"text": "You route questions about the ocean."}]}`))
		Expect(asJSON(body["contents"])).To(MatchJSON(`[
			{"role": "user", "parts": [{"text": "Sea temperature off Taiwan?"}]},
			{"role": "model", "parts": [{"functionCall": {"id": "call_1", "name": "get_sst", "args": {"lon": 121, "lat": 23}}}]},
			{"role": "user", "parts": [{"functionResponse": {"id": "call_1", "name": "get_sst", "response": {"result": {"sst": 26.4}}}}]},
			{"role": "model", "parts": [{"text": "It is 26.4 °C."}]},
			{"role": "user", "parts": [{"functionResponse": {"id": "call_2", "name": "get_date", "response": {"result": "2025-11-06"}}}]},
			{"role": "user", "parts": [{"text": "Answer as JSON."}]}
		]`))
		Expect(asJSON(body["tools"])).To(MatchJSON(`[{"functionDeclarations": [{
			"name": "get_sst",
			"description": "Sea surface temperature at a point.",
			"parametersJsonSchema": {"type": "object", "properties": {"lon": {"type": "number"}, "lat": {"type": "number"}}, "required": ["lon", "lat"]}
		}]}]`))
		Expect(asJSON(body["generationConfig"])).To(MatchJSON(`{
			"temperature": 0.5,
			"maxOutputTokens": 256,
			"responseMimeType": "application/json"
		}`))
		Expect(body).NotTo(HaveKey("model"), "the model travels in the path")
	})

	It("leaves out what the request does not set", func() {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})
		Expect(err).NotTo(HaveOccurred())

		body := body(srv)
		Expect(asJSON(body["contents"])).To(MatchJSON(`[{"role": "user", "parts": [{"text": "hi"}]}]`))
		Expect(body).NotTo(HaveKey("systemInstruction"))
		Expect(body).NotTo(HaveKey("tools"))
		if cfg, ok := body["generationConfig"]; ok {
			Expect(cfg).To(BeEmpty())
		}
	})

	It("sends a zero temperature when one is set", func() {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Temperature: llm.Float(0)})
		Expect(err).NotTo(HaveOccurred())
		Expect(body(srv)).To(HaveKeyWithValue("generationConfig", HaveKeyWithValue("temperature", BeNumerically("==", 0))))
	})

	It("maps a text answer to llm.Response, joining parts and leaving out thoughts, with its responseId", func() {
		srv := newServer(http.StatusOK, textReply)
		resp, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(Equal(llm.Response{
			Message:         llm.Message{Role: llm.RoleAssistant, Content: `{"sst": 26.4}`},
			Usage:           llm.Usage{InputTokens: 57, OutputTokens: 17, ReasoningTokens: 5},
			FinishReason:    llm.FinishStop,
			RawFinishReason: "STOP",
			Model:           "gemini-2.5-flash",
			ID:              "r-1",
		}))
	})

	It("reads STOP on a turn with function calls as tool_calls, as OpenAI and Anthropic say it, keeping the raw reason", func() {
		srv := newServer(http.StatusOK, toolReply)
		resp, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(resp.RawFinishReason).To(Equal("STOP"))
	})

	DescribeTable("maps every finishReason into llm's neutral set",
		func(raw string, calls bool, want string) {
			Expect(gemini.FinishReason(raw, calls)).To(Equal(want))
			Expect(append(llm.FinishReasons(), "")).To(ContainElement(want))
		},
		Entry(nil, "STOP", false, llm.FinishStop),
		Entry(nil, "STOP", true, llm.FinishToolCalls),
		Entry(nil, "MAX_TOKENS", false, llm.FinishLength),
		Entry(nil, "SAFETY", false, llm.FinishContentFilter),
		Entry(nil, "RECITATION", false, llm.FinishContentFilter),
		Entry(nil, "PROHIBITED_CONTENT", false, llm.FinishContentFilter),
		Entry(nil, "BLOCKLIST", false, llm.FinishContentFilter),
		Entry(nil, "SPII", false, llm.FinishContentFilter),
		Entry(nil, "MALFORMED_FUNCTION_CALL", false, llm.FinishError),
		Entry(nil, "UNEXPECTED_TOOL_CALL", true, llm.FinishError),
		Entry(nil, "TOO_MANY_TOOL_CALLS", true, llm.FinishError),
		Entry(nil, "OTHER", false, llm.FinishOther),
		Entry(nil, "LANGUAGE", false, llm.FinishOther),
		Entry(nil, "FINISH_REASON_UNSPECIFIED", false, llm.FinishOther),
		Entry("none given", "", false, ""),
	)

	It("maps function calls to llm.Response tool calls with their IDs, names and arguments", func() {
		srv := newServer(http.StatusOK, toolReply)
		resp, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())

		Expect(resp.Message.Role).To(Equal(llm.RoleAssistant))
		Expect(resp.Message.Content).To(BeEmpty())
		Expect(resp.Message.ToolCalls).To(HaveLen(2))
		a, b := resp.Message.ToolCalls[0], resp.Message.ToolCalls[1]
		Expect(a.ID).To(Equal("fc-1"))
		Expect(a.Name).To(Equal("get_sst"))
		Expect(a.Arguments).To(MatchJSON(`{"lon":118,"lat":20}`))
		Expect(b.ID).To(BeEmpty(), "the Gemini API may leave function calls without an ID")
		Expect(b.Name).To(Equal("get_date"))
		Expect(b.Arguments).To(MatchJSON(`{}`))
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 120, OutputTokens: 31}))
	})

	It("sends the responses to parallel calls back in one content, ids and signatures as the model gave them", func() {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-3-pro-preview").Chat(ctx, llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "Weather in Lima and Cusco?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "a", Name: "weather", Arguments: json.RawMessage(`{"city":"Lima"}`), Signature: []byte("sig-1")},
				{ID: "b", Name: "weather", Arguments: json.RawMessage(`{"city":"Cusco"}`)},
			}},
			{Role: llm.RoleTool, ToolCallID: "a", Name: "weather", Content: `{"t":19}`},
			{Role: llm.RoleTool, ToolCallID: "b", Name: "weather", Content: `{"t":12}`},
		}})
		Expect(err).NotTo(HaveOccurred())
		Expect(asJSON(body(srv)["contents"])).To(MatchJSON(`[
			{"role": "user", "parts": [{"text": "Weather in Lima and Cusco?"}]},
			{"role": "model", "parts": [
				{"functionCall": {"id": "a", "name": "weather", "args": {"city": "Lima"}}, "thoughtSignature": "c2lnLTE="},
				{"functionCall": {"id": "b", "name": "weather", "args": {"city": "Cusco"}}}
			]},
			{"role": "user", "parts": [
				{"functionResponse": {"id": "a", "name": "weather", "response": {"result": {"t": 19}}}},
				{"functionResponse": {"id": "b", "name": "weather", "response": {"result": {"t": 12}}}}
			]}
		]`))
	})

	It("keeps a part's thoughtSignature on the tool call or text it came with", func() {
		srv := newServer(http.StatusOK, `{"candidates": [{"content": {"role": "model", "parts": [
			{"functionCall": {"name": "weather", "args": {"city": "Lima"}}, "thoughtSignature": "c2lnLTE="}
		]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "thoughtsTokenCount": 40}}`)
		resp, err := newClient(srv, "gemini-3-pro-preview").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Message.ToolCalls[0].Signature).To(Equal([]byte("sig-1")))
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 9, OutputTokens: 44, ReasoningTokens: 40}), "thinking is output, counted beside the candidates")
	})

	It("reports cached content tokens as the cache-read part of the input, which includes them", func() {
		srv := newServer(http.StatusOK, `{"candidates": [{"content": {"parts": [{"text": "ok"}], "role": "model"}, "finishReason": "STOP", "index": 0}],
			"usageMetadata": {"promptTokenCount": 2006, "candidatesTokenCount": 3, "totalTokenCount": 2009, "cachedContentTokenCount": 1920}}`)
		resp, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 2006, OutputTokens: 3, CacheReadTokens: 1920}))
	})

	It("reports the audio of the cached content (cacheTokensDetails AUDIO) apart from the uncached audio", func() {
		srv := newServer(http.StatusOK, `{"candidates": [{"content": {"parts": [{"text": "ok"}], "role": "model"}, "finishReason": "STOP", "index": 0}],
			"usageMetadata": {"promptTokenCount": 10000, "candidatesTokenCount": 3, "totalTokenCount": 10003, "cachedContentTokenCount": 6000,
				"promptTokensDetails": [{"modality": "TEXT", "tokenCount": 2000}, {"modality": "AUDIO", "tokenCount": 8000}],
				"cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 1000}, {"modality": "AUDIO", "tokenCount": 5000}]}}`)
		resp, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 10000, OutputTokens: 3, CacheReadTokens: 6000, CacheReadAudioTokens: 5000, InputAudioTokens: 3000}))
	})

	It("reports what its built-in tools added to the prompt (toolUsePromptTokenCount) as input, which Gemini bills", func() {
		srv := newServer(http.StatusOK, `{"candidates": [{"content": {"parts": [{"text": "ok"}], "role": "model"}, "finishReason": "STOP", "index": 0}],
			"usageMetadata": {"promptTokenCount": 20, "toolUsePromptTokenCount": 200, "candidatesTokenCount": 3, "totalTokenCount": 223}}`)
		resp, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 220, OutputTokens: 3}))
	})

	DescribeTable("reports an answer without content as ErrNoContent",
		func(reply string) {
			srv := newServer(http.StatusOK, reply)
			_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)
			Expect(err).To(MatchError(llm.ErrNoContent))
		},
		Entry("no candidates", `{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":5}}`),
		Entry("a candidate without content", `{"candidates":[{"finishReason":"SAFETY","index":0}]}`),
	)

	DescribeTable("returns a non-2xx answer as *llm.StatusError after exactly one attempt",
		func(code int, reply, message string) {
			srv := newServer(code, reply)
			_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, conversation)

			var se *llm.StatusError
			Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
			Expect(se.Code).To(Equal(code))
			Expect(se.Body).To(ContainSubstring(message))
			Expect(len(srv.Requests())).To(Equal(1), "retries are off")
		},
		Entry("429 quota", http.StatusTooManyRequests,
			`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`,
			"Resource has been exhausted"),
		Entry("500 internal", http.StatusInternalServerError,
			`{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}`,
			"An internal error has occurred"),
		Entry("503 overloaded", http.StatusServiceUnavailable,
			`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			"overloaded"),
		Entry("502 from a proxy, not JSON", http.StatusBadGateway, "upstream connect error", "upstream connect error"),
	)

	It("refuses tool call arguments that are not a JSON object without calling the server", func() {
		srv := newServer(http.StatusOK, textReply)
		req := llm.Request{Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "hi"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "get_sst", Arguments: json.RawMessage(`[1]`)}}},
		}}
		_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, req)
		Expect(err).To(MatchError(ContainSubstring("tool call get_sst")))
		Expect(len(srv.Requests())).To(Equal(0))
	})

	It("refuses a seed past generateContent's 32 bits without calling the server, where it would wrap", func() {
		srv := newServer(http.StatusOK, textReply)
		seed := 1 << 33
		req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, Sampling: llm.Sampling{Seed: &seed}}
		_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, req)
		Expect(err).To(MatchError(ContainSubstring("32-bit seed, not 8589934592")))
		Expect(len(srv.Requests())).To(Equal(0))

		seed = 42
		_, err = newClient(srv, "gemini-2.5-flash").Chat(ctx, req)
		Expect(err).NotTo(HaveOccurred())
		Expect(body(srv)).To(HaveKeyWithValue("generationConfig", HaveKeyWithValue("seed", BeNumerically("==", 42))))
	})

	It("refuses a message with an unknown role without calling the server", func() {
		srv := newServer(http.StatusOK, textReply)
		_, err := newClient(srv, "gemini-2.5-flash").Chat(ctx, llm.Request{Messages: []llm.Message{{Role: "narrator", Content: "hi"}}})
		Expect(err).To(MatchError(ContainSubstring(`unknown message role "narrator"`)))
		Expect(len(srv.Requests())).To(Equal(0))
	})
})
