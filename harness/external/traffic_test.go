package external_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/external"
)

// traced keeps the model calls and tool calls read from an agent's traffic.
type traced struct {
	mu     sync.Mutex
	models []string // the model each call named
	calls  []llm.Request
	resps  []llm.Response
	errs   []error
	tools  []string // name, raw and context of each tool call
	ids    []string // the id of the model's call each tool call ran
	embeds []string // model, texts, tokens and reported tokens of each embeddings call
}

func (t *traced) EmbedCall(model string, texts []string, tokens, reported int, asked llm.EmbedParams, err error, _ time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	line := fmt.Sprintf("%s %q tokens=%d reported=%d", model, texts, tokens, reported)
	if asked.Formats != nil {
		line += fmt.Sprintf(" formats=%q", asked.Formats)
	}
	if asked.Dimensions != 0 {
		line += fmt.Sprintf(" dimensions=%d", asked.Dimensions)
	}
	if err != nil {
		line += " error=" + err.Error()
	}
	t.embeds = append(t.embeds, line)
}

func (t *traced) Tool(name string, args json.RawMessage, raw []byte, context string, err error) {
	t.ToolCall("", name, args, raw, context, err)
}

func (t *traced) ToolCall(id, name string, args json.RawMessage, raw []byte, context string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ids = append(t.ids, id)
	line := name + " " + string(args) + " raw=" + string(raw) + " context=" + context
	if err != nil {
		line += " error=" + err.Error()
	}
	t.tools = append(t.tools, line)
}

func (t *traced) Note(string, any) {}

func (t *traced) ModelCall(req llm.Request, model string, resp llm.Response, err error, _ time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.models = append(t.models, model)
	t.calls, t.resps, t.errs = append(t.calls, req), append(t.resps, resp), append(t.errs, err)
}

// responsesAPI answers the first /v1/responses call with a function call,
// later ones with text, and an upstream with a forecast.
type responsesAPI struct {
	mu sync.Mutex
	n  int
}

func (a *responsesAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	body := `{"temp": 21, "unit": "C", "station": "Taipei"}`
	if strings.HasSuffix(r.URL.Path, "/v1/responses") {
		a.mu.Lock()
		a.n++
		first := a.n == 1
		a.mu.Unlock()
		output := `[{"type": "message", "id": "msg_2", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "21 °C", "annotations": []}]}]`
		if first {
			output = `[{"type": "function_call", "id": "fc_1", "call_id": "call_w1", "name": "get_weather", "arguments": "{\"city\":\"Taipei\"}", "status": "completed"}]`
		}
		body = `{"id": "resp_1", "object": "response", "created_at": 0, "status": "completed", "model": "gpt-4.1-mini", "output": ` + output + `,
			"usage": {"input_tokens": 30, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 39}}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent on the Responses API", func() {
	It("is scored from its traffic: model calls, tool calls from function_call items, results from function_call_output items", func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed")
		}
		script := `read l
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "instructions": "You report the weather.", "input": [{"role": "user", "content": "Weather in Taipei?"}], ` + tools + `}' >/dev/null
curl -s "$WEATHER_BASE_URL/forecast?city=Taipei" >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "instructions": "You report the weather.", "input": [{"role": "user", "content": "Weather in Taipei?"}, {"type": "function_call", "call_id": "call_w1", "name": "get_weather", "arguments": "{\"city\":\"Taipei\"}"}, {"type": "function_call_output", "call_id": "call_w1", "output": "21 C"}], ` + tools + `}' >/dev/null
echo '{"text": "21 °C"}'`
		tr := &traced{}
		cfg := agents.Config{
			HTTP: &http.Client{Transport: &responsesAPI{}}, Tracer: tr, Clock: func() time.Time { return time.Unix(0, 0) },
			Endpoint:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1-mini", API: llm.APIResponses},
			Upstreams: map[string]string{"weather": "https://weather.example"},
		}
		a, err := external.New(external.Spec{Command: []string{"sh", "-c", script}, TurnTimeout: time.Minute}, GinkgoT().TempDir())(cfg)
		Expect(err).NotTo(HaveOccurred())
		ans, err := a.Run(context.Background(), agents.Input{Turns: []string{"Weather in Taipei?"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Replies[0].Text).To(Equal("21 °C"))

		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.calls[0].Messages).To(Equal([]llm.Message{
			{Role: llm.RoleSystem, Content: "You report the weather."},
			{Role: llm.RoleUser, Content: "Weather in Taipei?"},
		}))
		Expect(tr.calls[0].Tools).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls).To(HaveLen(1))
		Expect(tr.resps[0].Message.ToolCalls[0].ID).To(Equal("call_w1"))
		Expect(tr.resps[0].FinishReason).To(Equal(llm.FinishToolCalls))
		Expect(tr.resps[0].Usage).To(Equal(llm.Usage{InputTokens: 30, OutputTokens: 9}))
		Expect(tr.calls[1].Messages[3]).To(Equal(llm.Message{Role: llm.RoleTool, ToolCallID: "call_w1", Name: "get_weather", Content: "21 C"}))
		Expect(tr.resps[1].Message.Content).To(Equal("21 °C"))
		Expect(tr.tools).To(Equal([]string{`get_weather {"city":"Taipei"} raw={"temp": 21, "unit": "C", "station": "Taipei"} context=21 C`}))
	})

	DescribeTable("reads a call that continues an answer (previous_response_id) after that answer's conversation, as the API does, unless the answer was not stored",
		func(store string, want []llm.Message) {
			tr := runResponses(&responsesAPI{}, `curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "instructions": "You report the weather.", `+store+`"input": "Weather in Taipei?", `+tools+`}' >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "instructions": "Be brief.", "previous_response_id": "resp_1", "input": [{"type": "function_call_output", "call_id": "call_w1", "output": "21 C"}], `+tools+`}' >/dev/null`)
			Expect(tr.calls).To(HaveLen(2))
			Expect(tr.calls[1].Messages).To(Equal(want))
			Expect(tr.tools).To(Equal([]string{`get_weather {"city":"Taipei"} raw=21 C context=21 C`}))
		},
		Entry("stored: the earlier input and answer, the new instructions only", "", []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleUser, Content: "Weather in Taipei?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_w1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Taipei"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_w1", Name: "get_weather", Content: "21 C"},
		}),
		Entry("store: false: its own input alone", `"store": false, `, []llm.Message{
			{Role: llm.RoleSystem, Content: "Be brief."},
			{Role: llm.RoleTool, ToolCallID: "call_w1", Content: "21 C"},
		}),
	)
})

var _ = Describe("an outside agent on the Responses API sending items by reference", func() {
	It("reads a reference to an item of an answer in its traffic as the item, as the API does", func() {
		tr := runResponses(&responsesAPI{}, `curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "input": "Weather in Taipei?", `+tools+`}' >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "input": [{"role": "user", "content": "Weather in Taipei?"}, {"type": "item_reference", "id": "fc_1"}, {"type": "function_call_output", "call_id": "call_w1", "output": "21 C"}], `+tools+`}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.calls[1].Messages).To(Equal([]llm.Message{
			{Role: llm.RoleUser, Content: "Weather in Taipei?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_w1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Taipei"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_w1", Name: "get_weather", Content: "21 C"},
		}))
	})
})

// conversationsAPI is responsesAPI with the Conversations API's answers:
// conv_1 made, items added listed back with ids item_1, item_2, … in
// order, a deleted item's conversation.
type conversationsAPI struct {
	responsesAPI
	items int
}

func (a *conversationsAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	_, rest, ok := strings.Cut(r.URL.Path, "/v1/conversations")
	if !ok {
		return a.responsesAPI.RoundTrip(r)
	}
	body := `{"id": "conv_1", "object": "conversation", "created_at": 0, "metadata": {}}`
	if strings.HasSuffix(rest, "/items") && r.Method == http.MethodPost {
		var req struct {
			Items []map[string]any `json:"items"`
		}
		Expect(json.NewDecoder(r.Body).Decode(&req)).To(Succeed())
		for _, it := range req.Items {
			a.items++
			it["id"] = fmt.Sprintf("item_%d", a.items)
		}
		data, err := json.Marshal(req.Items)
		Expect(err).NotTo(HaveOccurred())
		body = `{"object": "list", "data": ` + string(data) + `, "has_more": false}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent on the Conversations API", func() {
	It("reads a call naming a conversation after the conversation's items, as the API does: those it was made with and those added, not those deleted, then the earlier calls and answers", func() {
		tr := runResponses(&conversationsAPI{}, `curl -s -X POST "$OPENAI_BASE_URL/conversations" -H 'Content-Type: application/json' -d '{"items": [{"type": "message", "role": "user", "content": "I live in Taipei."}]}' >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/conversations/conv_1/items" -H 'Content-Type: application/json' -d '{"items": [{"type": "message", "role": "user", "content": "Ignore this."}, {"type": "message", "role": "user", "content": "Use Celsius."}]}' >/dev/null
curl -s -X DELETE "$OPENAI_BASE_URL/conversations/conv_1/items/item_1" >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "conversation": "conv_1", "input": "Weather here?", `+tools+`}' >/dev/null
curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini", "conversation": {"id": "conv_1"}, "store": false, "input": [{"type": "function_call_output", "call_id": "call_w1", "output": "21 C"}], `+tools+`}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(2))
		Expect(tr.calls[0].Messages).To(Equal([]llm.Message{
			{Role: llm.RoleUser, Content: "I live in Taipei."},
			{Role: llm.RoleUser, Content: "Use Celsius."},
			{Role: llm.RoleUser, Content: "Weather here?"},
		}))
		Expect(tr.calls[1].Messages[3:]).To(Equal([]llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_w1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Taipei"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_w1", Name: "get_weather", Content: "21 C"},
		}))
		Expect(tr.tools).To(Equal([]string{`get_weather {"city":"Taipei"} raw=21 C context=21 C`}))
	})
})

// anthropicAPI answers the first Messages call with a tool_use, later ones
// with text, each with an id of its own.
type anthropicAPI struct {
	mu sync.Mutex
	n  int
}

func (a *anthropicAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	a.n++
	n := a.n
	a.mu.Unlock()
	content := `[{"type": "text", "text": "21 °C"}]`
	if n == 1 {
		content = `[{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Taipei"}}]`
	}
	body := fmt.Sprintf(`{"id": "msg_%d", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": %s, "stop_reason": "end_turn",
		"usage": {"input_tokens": 30, "output_tokens": 9}}`, n, content)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

var _ = Describe("an outside agent on Anthropic's Messages API", func() {
	DescribeTable("reads a call that continues a thread after the thread's conversation, with its system prompt and tools, as the API does",
		func(thread string, want []llm.Message, tools int) {
			tr := runOver(&anthropicAPI{}, llm.Endpoint{Provider: llm.ProviderAnthropic, BaseURL: "https://api.anthropic.com", Model: "claude-sonnet-4-5"}, nil,
				`curl -s -X POST "$ANTHROPIC_BASE_URL/v1/messages" -H 'Content-Type: application/json' -d '{"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "You report the weather.", `+thread+`"messages": [{"role": "user", "content": "Weather in Taipei?"}], "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]}' >/dev/null
curl -s -X POST "$ANTHROPIC_BASE_URL/v1/messages" -H 'Content-Type: application/json' -d '{"model": "claude-sonnet-4-5", "max_tokens": 100, "thread": {"type": "continue", "previous_message_id": "msg_1"}, "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "21 C"}]}]}' >/dev/null`)
			Expect(tr.calls).To(HaveLen(2))
			Expect(tr.calls[1].Messages).To(Equal(want))
			Expect(tr.calls[1].Tools).To(HaveLen(tools))
		},
		Entry("in a thread", `"thread": {"type": "create"}, `, []llm.Message{
			{Role: llm.RoleSystem, Content: "You report the weather."},
			{Role: llm.RoleUser, Content: "Weather in Taipei?"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Taipei"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "toolu_1", Name: "get_weather", Content: "21 C"},
		}, 1),
		Entry("the first call in no thread: its own messages alone", "", []llm.Message{
			{Role: llm.RoleTool, ToolCallID: "toolu_1", Content: "21 C"},
		}, 0),
	)
})

// chatAPI answers Chat Completions calls with answers in order (each a
// message object) and upstream calls with the body and status of their
// path, each encoded with coding when it is set (Content-Encoding).
type chatAPI struct {
	mu        sync.Mutex
	answers   []string
	upstreams map[string]struct {
		status int
		body   string
	}
	coding string
}

func (a *chatAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	status, body := 200, ""
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		a.mu.Lock()
		msg := a.answers[0]
		a.answers = a.answers[1:]
		a.mu.Unlock()
		body = `{"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": ` + msg + `}]}`
	} else {
		u, ok := a.upstreams[r.URL.Path+"?"+r.URL.RawQuery]
		if !ok {
			u = a.upstreams[r.URL.Path]
		}
		status, body = u.status, u.body
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if a.coding != "" {
		body = encoded(a.coding, body)
		h.Set("Content-Encoding", a.coding)
	}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

// quoted is s as a JSON string.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// callAnswer is a Chat Completions message asking for one tool call.
func callAnswer(id, name, args string) string {
	return `{"role": "assistant", "content": null, "tool_calls": [{"id": "` + id + `", "type": "function", "function": {"name": "` + name + `", "arguments": ` + quoted(args) + `}}]}`
}

// fixedAnswer answers every request with a 200 of its body, as JSON.
type fixedAnswer string

func (a fixedAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(string(a))), Request: r}, nil
}

const textAnswer = `{"role": "assistant", "content": "done"}`

// chatBody is a Chat Completions request of messages (a JSON array).
func chatBody(messages string) string {
	return `{"model": "m", "messages": ` + messages + `, "tools": [` +
		`{"type": "function", "function": {"name": "hand_off", "parameters": {"type": "object"}}},` +
		`{"type": "function", "function": {"name": "draw_plot", "parameters": {"type": "object"}}},` +
		`{"type": "function", "function": {"name": "add_up", "parameters": {"type": "object"}}},` +
		`{"type": "function", "function": {"name": "fetch_rates", "parameters": {"type": "object"}}}]}`
}

// runChat runs a shell script as an outside agent over api for one turn
// and returns the tool calls read from its traffic.
func runChat(api *chatAPI, script string) []string {
	return runOver(api, llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"},
		map[string]string{"rates": "https://rates.example"}, script).tools
}

// runOver runs a shell script as an outside agent whose model is endpoint
// and whose upstreams are upstreams, all answered by api, for one turn
// (the script reads its line first and answers "ok" last), and returns
// what was read from its traffic.
func runOver(api http.RoundTripper, endpoint llm.Endpoint, upstreams map[string]string, script string) *traced {
	GinkgoHelper()
	if _, err := exec.LookPath("curl"); err != nil {
		Skip("curl is not installed")
	}
	tr := &traced{}
	cfg := agents.Config{
		HTTP: &http.Client{Transport: api}, Tracer: tr, Clock: func() time.Time { return time.Unix(0, 0) },
		Endpoint: endpoint, Upstreams: upstreams,
	}
	a, err := external.New(external.Spec{Command: []string{"sh", "-c", "read l\n" + script + "\necho '{\"text\": \"ok\"}'"}, TurnTimeout: time.Minute}, GinkgoT().TempDir())(cfg)
	Expect(err).NotTo(HaveOccurred())
	_, err = a.Run(context.Background(), agents.Input{Turns: []string{"go"}})
	Expect(err).NotTo(HaveOccurred())
	return tr
}

// tools is the get_weather tool, as a Responses API request's tools.
const tools = `"tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]`

// runResponses runs script as an outside agent on the Responses API
// (gpt-4.1-mini) with the weather upstream, over api.
func runResponses(api http.RoundTripper, script string) *traced {
	GinkgoHelper()
	return runOver(api, llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1-mini", API: llm.APIResponses},
		map[string]string{"weather": "https://weather.example"}, script)
}

// post is a curl line posting a Chat Completions request of messages.
func post(messages string) string {
	return `curl -s -X POST "$OPENAI_BASE_URL/chat/completions" -H 'Content-Type: application/json' -d '` + chatBody(messages) + `' >/dev/null`
}

var _ = Describe("tool calls read from traffic", func() {
	const user = `{"role": "user", "content": "go"}`

	It("reports a call whose result never came back, with an error, so the route is what the model asked for", func() {
		api := &chatAPI{answers: []string{callAnswer("c1", "add_up", `{"a": 1}`), textAnswer}}
		tools := runChat(api, post(`[`+user+`]`)+"\n"+post(`[`+user+`, {"role": "assistant", "content": "I could not run it"}]`))
		Expect(tools).To(Equal([]string{`add_up {"a": 1} raw= context= error=the model asked for this call; the agent sent no result back`}))
	})

	It("reports each tool call with the id of the model's call it ran, answered or not", func() {
		api := &chatAPI{answers: []string{callAnswer("call_9", "add_up", `{"a": 1}`), callAnswer("call_10", "add_up", `{"a": 2}`), textAnswer}}
		call := `{"role": "assistant", "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "add_up", "arguments": "{\"a\": 1}"}}]}`
		tr := runOver(api, llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"}, nil,
			post(`[`+user+`]`)+"\n"+post(`[`+user+`, `+call+`, {"role": "tool", "tool_call_id": "call_9", "content": "1"}]`)+"\n"+
				post(`[`+user+`, `+call+`, {"role": "tool", "tool_call_id": "call_9", "content": "1"}, {"role": "assistant", "content": "gave up"}]`))
		Expect(tr.ids).To(Equal([]string{"call_9", "call_10"}))
		Expect(tr.tools[1]).To(HaveSuffix("error=the model asked for this call; the agent sent no result back"))
	})

	DescribeTable("reads an answer given whole that is not the API's JSON as a failed call, as the agent's client did, naming why",
		func(body string) {
			tr := runOver(fixedAnswer(body), llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"}, nil, post(`[`+user+`]`))
			Expect(tr.errs).To(HaveLen(1))
			Expect(tr.errs[0]).To(MatchError(HavePrefix("chat completions: the answer is not the API's JSON: ")))
		},
		Entry("cut in half", `{"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assist`),
		Entry("empty", ``),
	)

	It("reads a call the request forced, to which no result came back, as the answer in that tool's schema, not as a tool call (structured output through a tool)", func() {
		forced := func(messages string) string {
			body := strings.Replace(chatBody(messages), `"messages":`, `"tool_choice": {"type": "function", "function": {"name": "add_up"}}, "messages":`, 1)
			return `curl -s -X POST "$OPENAI_BASE_URL/chat/completions" -H 'Content-Type: application/json' -d '` + body + `' >/dev/null`
		}
		api := &chatAPI{answers: []string{callAnswer("c1", "add_up", `{"a": 1}`)}}
		Expect(runChat(api, forced(`[`+user+`]`))).To(BeEmpty())

		api = &chatAPI{answers: []string{callAnswer("c1", "add_up", `{"a": 1}`), textAnswer}}
		tools := runChat(api, forced(`[`+user+`]`)+"\n"+post(`[`+user+`, {"role": "assistant", "content": "I could not run it"}]`))
		Expect(tools).To(Equal([]string{`add_up {"a": 1} raw= context= error=the model asked for this call; the agent sent no result back`}),
			"a forced call the program went on from without its result is a tool it failed to run")
	})

	It("reports a delegation as the model asked for it: the delegating call first, then the service's own, each with its result", func() {
		// The agent's model asks hand_off (call_1); the service it hands to
		// runs its own conversation, whose model also numbers its first
		// call call_1 (draw_plot); then the agent's model gets hand_off's result.
		api := &chatAPI{answers: []string{
			callAnswer("call_1", "hand_off", `{"to": "plots"}`),
			callAnswer("call_1", "draw_plot", `{"kind": "line"}`),
			textAnswer,
			textAnswer,
		}}
		outer := `{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "hand_off", "arguments": "{}"}}]}`
		inner := `{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "draw_plot", "arguments": "{}"}}]}`
		service := `{"role": "user", "content": "plot it"}`
		tools := runChat(api, post(`[`+user+`]`)+"\n"+
			post(`[`+service+`]`)+"\n"+
			post(`[`+service+`, `+inner+`, {"role": "tool", "tool_call_id": "call_1", "content": "plotted"}]`)+"\n"+
			post(`[`+user+`, `+outer+`, {"role": "tool", "tool_call_id": "call_1", "content": "the plot is ready"}]`))
		Expect(tools).To(Equal([]string{
			`hand_off {"to": "plots"} raw=the plot is ready context=the plot is ready`,
			`draw_plot {"kind": "line"} raw=plotted context=plotted`,
		}))
	})

	It("takes only the upstreams' bodies for a tool's raw payload, not the model provider's other answers (embeddings, its model list)", func() {
		api := &chatAPI{
			answers: []string{callAnswer("c1", "fetch_rates", `{}`), textAnswer},
			upstreams: map[string]struct {
				status int
				body   string
			}{
				"/latest":        {200, `{"EUR": 1, "USD": 1.08}`},
				"/v1/embeddings": {200, `{"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.12, -0.5, 0.33]}], "model": "text-embedding-3-small", "usage": {"prompt_tokens": 3, "total_tokens": 3}}`},
				"/v1/models":     {200, `{"object": "list", "data": [{"id": "m", "object": "model"}]}`},
			},
		}
		call := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`
		tools := runChat(api, post(`[`+user+`]`)+"\n"+
			`curl -s -X POST "$OPENAI_BASE_URL/embeddings" -H 'Content-Type: application/json' -d '{"model": "text-embedding-3-small", "input": "EUR rates"}' >/dev/null`+"\n"+
			`curl -s "$OPENAI_BASE_URL/models" >/dev/null`+"\n"+
			`curl -s "$RATES_BASE_URL/latest" >/dev/null`+"\n"+
			post(`[`+user+`, `+call+`, {"role": "tool", "tool_call_id": "c1", "content": "1.08"}]`))
		Expect(tools).To(Equal([]string{`fetch_rates {} raw={"EUR": 1, "USD": 1.08} context=1.08`}))
	})

	DescribeTable("pairs each upstream body with the call it answered, whatever order a program running its tools at once sent them in",
		func(args1, args2, path1, path2, result1, result2 string) {
			api := &chatAPI{
				answers: []string{`{"role": "assistant", "content": null, "tool_calls": [` +
					`{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": ` + quoted(args1) + `}},` +
					`{"id": "c2", "type": "function", "function": {"name": "fetch_rates", "arguments": ` + quoted(args2) + `}}]}`, textAnswer},
				upstreams: map[string]struct {
					status int
					body   string
				}{path1: {200, `{"station": "first", "reading": "18.5 degrees, light rain"}`}, path2: {200, `{"station": "second", "reading": "4.0 degrees, snow showers"}`}},
			}
			calls := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}, {"id": "c2", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`
			// The second call's request arrives first.
			tools := runChat(api, post(`[`+user+`]`)+"\n"+
				`curl -s "$RATES_BASE_URL`+path2+`" >/dev/null`+"\n"+
				`curl -s "$RATES_BASE_URL`+path1+`" >/dev/null`+"\n"+
				post(`[`+user+`, `+calls+`, {"role": "tool", "tool_call_id": "c1", "content": "`+result1+`"}, {"role": "tool", "tool_call_id": "c2", "content": "`+result2+`"}]`))
			Expect(tools).To(Equal([]string{
				`fetch_rates ` + args1 + ` raw={"station": "first", "reading": "18.5 degrees, light rain"} context=` + result1,
				`fetch_rates ` + args2 + ` raw={"station": "second", "reading": "4.0 degrees, snow showers"} context=` + result2,
			}))
		},
		Entry("by the arguments its request carries, in the query", `{"city": "Paris"}`, `{"city": "Oslo"}`, "/now?city=paris", "/now?city=Oslo", "it rains", "it snows"),
		Entry("by the arguments its request carries, in the path", `{"station_id": 1042, "units": "metric"}`, `{"station_id": 2077, "units": "metric"}`, "/stations/1042/now", "/stations/2077/now", "it rains", "it snows"),
		Entry("by the words its result took from its body, when the request carries no argument", `{}`, `{"verbose": true}`, "/now/a", "/now/b", "Light rain at 18.5 degrees", "Snow showers, 4.0 degrees"),
	)

	It("joins a group's bodies in the order of the calls they answered when the counts differ, whatever order they came in", func() {
		api := &chatAPI{
			answers: []string{`{"role": "assistant", "content": null, "tool_calls": [` +
				`{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": ` + quoted(`{"city": "Paris"}`) + `}},` +
				`{"id": "c2", "type": "function", "function": {"name": "fetch_rates", "arguments": ` + quoted(`{"city": "Oslo"}`) + `}}]}`, textAnswer},
			upstreams: map[string]struct {
				status int
				body   string
			}{"/now/oslo": {200, `[oslo]`}, "/now/paris": {200, `[paris]`}, "/alerts/paris": {200, `[paris alerts]`}},
		}
		calls := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}, {"id": "c2", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`
		tools := runChat(api, post(`[`+user+`]`)+"\n"+
			`curl -s "$RATES_BASE_URL/now/oslo" >/dev/null`+"\n"+
			`curl -s "$RATES_BASE_URL/now/paris" >/dev/null`+"\n"+
			`curl -s "$RATES_BASE_URL/alerts/paris" >/dev/null`+"\n"+
			post(`[`+user+`, `+calls+`, {"role": "tool", "tool_call_id": "c1", "content": "mild"}, {"role": "tool", "tool_call_id": "c2", "content": "cold"}]`))
		Expect(tools).To(Equal([]string{`fetch_rates {"city": "Paris"} raw=[paris][paris alerts][oslo] context=mild`, `fetch_rates {"city": "Oslo"} raw= context=cold`}))
	})

	It("keeps the order of arrival when nothing tells two calls' bodies apart (a program running its tools one after the other)", func() {
		api := &chatAPI{
			answers: []string{`{"role": "assistant", "content": null, "tool_calls": [` +
				`{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}},` +
				`{"id": "c2", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`, textAnswer},
			upstreams: map[string]struct {
				status int
				body   string
			}{"/a": {200, `{"n": 1}`}, "/b": {200, `{"n": 2}`}},
		}
		calls := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}, {"id": "c2", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`
		tools := runChat(api, post(`[`+user+`]`)+"\n"+
			`curl -s "$RATES_BASE_URL/b" >/dev/null`+"\n"+
			`curl -s "$RATES_BASE_URL/a" >/dev/null`+"\n"+
			post(`[`+user+`, `+calls+`, {"role": "tool", "tool_call_id": "c1", "content": "done"}, {"role": "tool", "tool_call_id": "c2", "content": "done"}]`))
		Expect(tools).To(Equal([]string{`fetch_rates {} raw={"n": 2} context=done`, `fetch_rates {} raw={"n": 1} context=done`}))
	})

	It("counts a local tool's result as its raw payload and its context, and an upstream's error body as raw", func() {
		api := &chatAPI{
			answers: []string{callAnswer("c1", "add_up", `{}`), callAnswer("c2", "fetch_rates", `{}`), textAnswer},
			upstreams: map[string]struct {
				status int
				body   string
			}{"/latest": {503, `{"error": "rates are being refreshed, try again in a minute"}`}},
		}
		call1 := `{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add_up", "arguments": "{}"}}]}`
		call2 := `{"role": "assistant", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "fetch_rates", "arguments": "{}"}}]}`
		res1 := `{"role": "tool", "tool_call_id": "c1", "content": "42"}`
		res2 := `{"role": "tool", "tool_call_id": "c2", "content": "The rates service failed: being refreshed"}`
		tools := runChat(api, post(`[`+user+`]`)+"\n"+
			post(`[`+user+`, `+call1+`, `+res1+`]`)+"\n"+
			`curl -s "$RATES_BASE_URL/latest" >/dev/null`+"\n"+
			post(`[`+user+`, `+call1+`, `+res1+`, `+call2+`, `+res2+`]`))
		Expect(tools).To(Equal([]string{
			`add_up {} raw=42 context=42`,
			`fetch_rates {} raw={"error": "rates are being refreshed, try again in a minute"} context=The rates service failed: being refreshed`,
		}))
	})
})
