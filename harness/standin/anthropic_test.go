package standin_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/anthropic"
	"github.com/agentreplay/testbed/harness/standin"
)

const claude = "claude-haiku-4-5"

// anthropicClient is our Anthropic adapter pointed at srv.
func anthropicClient(srv *standin.Server, hc *http.Client) llm.Client {
	GinkgoHelper()
	c, err := anthropic.New(srv.URL(), claude, "sk-ant-test", hc)
	Expect(err).NotTo(HaveOccurred())
	return c
}

// officialSDK is the official SDK's client pointed at srv.
func officialSDK(srv *standin.Server) sdk.Client {
	return sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL()),
		option.WithAPIKey("sk-ant-test"), option.WithMaxRetries(0))
}

// sdkMessage asks srv through the official SDK and checks the answer's
// shape against the SDK's own types.
func sdkMessage(srv *standin.Server, user string, tools ...sdk.ToolUnionParam) *sdk.Message {
	GinkgoHelper()
	c := officialSDK(srv)
	msg, err := c.Messages.New(context.Background(), sdk.MessageNewParams{
		Model: claude, MaxTokens: 512, Tools: tools,
		System:   []sdk.TextBlockParam{{Text: echoPrompt}},
		Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(user))},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(sdkShapeProblems(reflect.ValueOf(msg), "message", anthropicOmits...)).To(BeEmpty(), "raw %s", msg.RawJSON())
	Expect(keyPaths(msg.RawJSON(), "input")).To(Equal(keyPaths(recordedAnthropic(msg.Content[0].Type), "input")), "the fields of a recorded response, no more: %s", msg.RawJSON())
	return msg
}

// anthropicOmits are the fields the SDK's types mark required that the
// Messages API leaves out when it has nothing to say (none is in a
// recorded response without citations, containers or server tools).
var anthropicOmits = []string{"citations", "container", "diagnostics", "server_tool_use", "output_tokens_details", "speed"}

var getSST = sdk.ToolUnionParam{OfTool: &sdk.ToolParam{Name: "get_sst", InputSchema: sdk.ToolInputSchemaParam{
	Properties: map[string]any{"lon": map[string]any{"type": "number"}, "lat": map[string]any{"type": "number"}}}}}

// anthropicError is Anthropic's error body.
type anthropicError struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Error     struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// anthropicErrorOf decodes body as Anthropic's error shape, checking it
// against the SDK's ErrorResponse type too.
func anthropicErrorOf(body []byte) anthropicError {
	GinkgoHelper()
	var e anthropicError
	Expect(json.Unmarshal(body, &e)).To(Succeed(), "body %s", body)
	Expect(e.Type).To(Equal("error"))
	var typed sdk.ErrorResponse
	Expect(json.Unmarshal(body, &typed)).To(Succeed())
	Expect(sdkShapeProblems(reflect.ValueOf(typed), "error")).To(BeEmpty(), "body %s", body)
	return e
}

var _ = Describe("the Anthropic Messages wire format", func() {
	var (
		srv   *standin.Server
		model llm.Client
	)

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
		model = anthropicClient(srv, http.DefaultClient)
	})

	Describe("through the adapter", func() {
		It("returns a single tool call as tool_use with a toolu_ id", func() {
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "call get_sst"})
			req.Tools = sstTools()
			resp := chat(model, req)
			Expect(resp.FinishReason).To(Equal(llm.FinishToolCalls))
			Expect(resp.Message.Content).To(BeEmpty())
			Expect(resp.Message.ToolCalls).To(HaveLen(1))
			tc := resp.Message.ToolCalls[0]
			Expect(tc.ID).To(HavePrefix("toolu_"))
			Expect(tc.Name).To(Equal("get_sst"))
			Expect(string(tc.Arguments)).To(MatchJSON(`{"lon":121.5,"lat":25,"n":1}`))
		})

		It("round-trips parallel tool use, the results in one user message, one of them an error", func() {
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "call get_sst get_date"})
			req.Tools = sstTools()
			first := chat(model, req)
			calls := first.Message.ToolCalls
			Expect(calls).To(HaveLen(2))
			Expect(calls[0].ID).NotTo(Equal(calls[1].ID))

			req.Messages = append(req.Messages, first.Message,
				llm.Message{Role: llm.RoleTool, Name: "get_sst", ToolCallID: calls[0].ID, Content: `{"sst": 26.4}`},
				llm.Message{Role: llm.RoleTool, Name: "get_date", ToolCallID: calls[1].ID, Content: "clock unavailable", IsError: true})
			second := chat(model, req)
			Expect(second.FinishReason).To(Equal(llm.FinishStop))
			r := seen(second)
			Expect(r.Messages).To(Equal(req.Messages), "the policy sees the conversation as sent, is_error included")
		})

		DescribeTable("answers faults in Anthropic's error shape, an *llm.StatusError through the adapter",
			func(kind string, status int, errType string) {
				faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{kind}})
				_, err := anthropicClient(faulty, http.DefaultClient).Chat(context.Background(), echoRequest(llm.Message{Role: llm.RoleUser, Content: "hello"}))
				var se *llm.StatusError
				Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
				Expect(se.Code).To(Equal(status))
				e := anthropicErrorOf([]byte(se.Body))
				Expect(e.Error.Type).To(Equal(errType))
				Expect(e.Error.Message).To(ContainSubstring("injected"))
				Expect(e.RequestID).To(MatchRegexp(`^req_011[0-9A-Za-z]+$`), "the request-id the API's error bodies repeat")
			},
			Entry(nil, standin.FaultRateLimit, http.StatusTooManyRequests, "rate_limit_error"),
			Entry(nil, standin.FaultServer, http.StatusInternalServerError, "api_error"),
			Entry(nil, standin.FaultUnavailable, http.StatusServiceUnavailable, "overloaded_error"),
			Entry(nil, standin.FaultTimeout, http.StatusGatewayTimeout, "timeout_error"),
		)

	})

	Describe("decoded with the official SDK's types", func() {
		It("answers text with the fields of a recorded response, none the SDK lacks", func() {
			msg := sdkMessage(srv, "hello")
			Expect(msg.ID).To(HavePrefix("msg_"))
			Expect(msg.StopReason).To(Equal(sdk.StopReasonEndTurn))
			Expect(msg.Content).To(HaveLen(1))
			Expect(msg.Content[0].Type).To(Equal("text"))
			Expect(msg.Usage.InputTokens).To(BeNumerically(">", 0))
		})

		It("answers tool use with the fields of a recorded response", func() {
			msg := sdkMessage(srv, "call get_sst get_sst", getSST)
			Expect(msg.StopReason).To(Equal(sdk.StopReasonToolUse))
			Expect(msg.Content).To(HaveLen(2))
			Expect(msg.Content[0].ID).NotTo(Equal(msg.Content[1].ID))
		})

		It("answers a max_tokens stop with the fields of a recorded response", func() {
			faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{standin.FaultTruncated}})
			Expect(sdkMessage(faulty, "hello").StopReason).To(Equal(sdk.StopReasonMaxTokens))
		})

		It("sends a request-id header, the same for the same request and another for another, as the API does", func() {
			id := func(user string) string {
				resp, body := wirePost(srv, http.MethodPost, "/v1/messages", `{"model": "claude-haiku-4-5", "max_tokens": 100, "system": "`+echoPrompt+`", "messages": [{"role": "user", "content": "`+user+`"}]}`)
				Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
				return resp.Header.Get("Request-Id")
			}
			a := id("hello")
			Expect(a).To(MatchRegexp(`^req_011[0-9A-Za-z]+$`))
			Expect(id("hello")).To(Equal(a))
			Expect(id("hello again")).NotTo(Equal(a))
		})

		It("gives each distinct request its own ids, and the same request the same ones", func() {
			a, b := sdkMessage(srv, "call get_sst", getSST), sdkMessage(srv, "call get_sst get_sst", getSST)
			Expect(a.ID).NotTo(Equal(b.ID))
			Expect(a.Content[0].ID).NotTo(Equal(b.Content[0].ID))
			Expect(sdkMessage(srv, "call get_sst", getSST).RawJSON()).To(Equal(a.RawJSON()), "recordings are reproducible")
		})

		It("catches a field the SDK does not know and one it requires", func() {
			var m sdk.Message
			Expect(json.Unmarshal([]byte(`{"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "surprise": 1,
				"content": [{"type": "text", "text": "hi", "citations": null}], "stop_reason": "end_turn"}`), &m)).To(Succeed())
			problems := sdkShapeProblems(reflect.ValueOf(m), "message")
			Expect(problems).To(ContainElement("message.surprise: unknown to the SDK"))
			Expect(problems).To(ContainElement("message.usage: required by the SDK, missing"))
		})
	})

	Describe("requests it cannot serve", func() {
		DescribeTable("get a 400 invalid_request_error saying why, never an empty success",
			func(body, want string) {
				resp, b := wirePost(srv, http.MethodPost, "/v1/messages", body)
				Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
				e := anthropicErrorOf(b)
				Expect(e.Error.Type).To(Equal("invalid_request_error"))
				Expect(e.Error.Message).To(ContainSubstring(want))
			},
			Entry("no max_tokens", `{"model": "m", "system": "`+echoPrompt+`", "messages": [{"role": "user", "content": "hi"}]}`, "max_tokens"),
			Entry("a tool_result that answers no tool_use", `{"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_x", "content": "1"}]}]}`, "toolu_x"),
			Entry("a file for a code execution container", `{"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": [
				{"type": "container_upload", "file_id": "file_1"}]}]}`, `"container_upload"`),
			Entry("an unknown system prompt", `{"model": "m", "max_tokens": 9, "system": "You are a pirate.", "messages": [{"role": "user", "content": "Ahoy"}]}`, "harness/standin"),
		)

		It("reads string content, text-block system prompts and tool results given as text blocks", func() {
			resp, b := wirePost(srv, http.MethodPost, "/v1/messages", `{"model": "m", "max_tokens": 4096,
				"system": [{"type": "text", "text": "`+echoPrompt+`"}],
				"messages": [
					{"role": "user", "content": "call get_sst"},
					{"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}, {"type": "tool_use", "id": "toolu_a", "name": "get_sst", "input": {"lon": 1}}]},
					{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": [{"type": "text", "text": "26.4"}]}, {"type": "text", "text": "and now?"}]}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", b)
			var out struct{ Content []struct{ Text string } }
			Expect(json.Unmarshal(b, &out)).To(Succeed())
			r := seen(llm.Response{Message: llm.Message{Content: out.Content[0].Text}})
			Expect(r.System()).To(Equal(echoPrompt))
			Expect(r.Messages[2].Content).To(BeEmpty(), "thinking is dropped")
			Expect(r.Messages[3]).To(Equal(llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_a", Name: "get_sst", Content: "26.4"}))
			Expect(r.Messages[4]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "and now?"}))
		})

		It("reads search results, given in a user message or a tool result, as their title, source and text, with the official SDK", func() {
			c := officialSDK(srv)
			found := []sdk.TextBlockParam{{Text: "SST at Keelung was 26.4 °C on 6 November."}}
			msg, err := c.Messages.New(context.Background(), sdk.MessageNewParams{Model: claude, MaxTokens: 4096,
				System: []sdk.TextBlockParam{{Text: echoPrompt}}, Tools: []sdk.ToolUnionParam{getSST},
				Messages: []sdk.MessageParam{
					sdk.NewUserMessage(sdk.NewSearchResultBlock(found, "https://example.org/sst", "Daily SST"), sdk.NewTextBlock("call get_sst")),
					sdk.NewAssistantMessage(sdk.NewToolUseBlock("toolu_a", map[string]any{"lon": 121.5, "lat": 25}, "get_sst")),
					{Role: sdk.MessageParamRoleUser, Content: []sdk.ContentBlockParamUnion{{OfToolResult: &sdk.ToolResultBlockParam{ToolUseID: "toolu_a",
						Content: []sdk.ToolResultBlockParamContentUnion{{OfSearchResult: &sdk.SearchResultBlockParam{Content: found, Source: "sst-archive", Title: "Keelung"}}}}}}}}})
			Expect(err).NotTo(HaveOccurred())
			r := seen(llm.Response{Message: llm.Message{Content: msg.Content[0].Text}})
			Expect(r.Messages[1]).To(Equal(llm.Message{Role: llm.RoleUser,
				Content: "Daily SST (https://example.org/sst)\nSST at Keelung was 26.4 °C on 6 November.\ncall get_sst"}))
			Expect(r.Messages[3]).To(Equal(llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_a", Name: "get_sst",
				Content: "Keelung (sst-archive)\nSST at Keelung was 26.4 °C on 6 November.\n"}))
		})

		It("reads Anthropic's typed client tools (bash, the text editor, memory) as their built-in definitions, and refuses server tools and computer use", func() {
			resp, b := wirePost(srv, http.MethodPost, "/v1/messages", `{"model": "m", "max_tokens": 4096, "system": "`+echoPrompt+`",
				"tools": [{"type": "bash_20250124", "name": "bash"}, {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
					{"type": "memory_20250818", "name": "memory"}, {"name": "get_sst", "description": "SST.", "input_schema": {"type": "object"}}],
				"messages": [{"role": "user", "content": "hi"}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", b)
			var out struct{ Content []struct{ Text string } }
			Expect(json.Unmarshal(b, &out)).To(Succeed())
			tools := seen(llm.Response{Message: llm.Message{Content: out.Content[0].Text}}).Tools
			Expect(tools).To(HaveLen(4))
			for _, t := range tools[:3] {
				Expect(t.Description).NotTo(BeEmpty(), t.Name)
				Expect(string(t.Parameters)).To(ContainSubstring(`"command"`), t.Name)
				Expect(json.Valid(t.Parameters)).To(BeTrue(), t.Name)
			}
			Expect(string(tools[1].Parameters)).To(ContainSubstring(`"str_replace"`))
			Expect(tools[2].Description).To(ContainSubstring("/memories"))
			Expect(tools[3].Description).To(Equal("SST."))

			for _, server := range []string{`{"type": "web_search_20250305", "name": "web_search"}`, `{"type": "computer_20250124", "name": "computer", "display_width_px": 1024, "display_height_px": 768}`} {
				resp, b := wirePost(srv, http.MethodPost, "/v1/messages", `{"model": "m", "max_tokens": 64, "system": "`+echoPrompt+`",
					"tools": [`+server+`], "messages": [{"role": "user", "content": "hi"}]}`)
				Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
				Expect(anthropicErrorOf(b).Error.Message).To(And(ContainSubstring("the stand-in runs no server tools and sees no screen"), ContainSubstring("testbed record --provider anthropic")), "it says what to do")
			}
		})

		DescribeTable("answer 404 in Anthropic's shape for what is not POST …/v1/messages",
			func(method, path string) {
				resp, b := wirePost(srv, method, path, `{}`)
				Expect(resp.StatusCode).To(Equal(http.StatusNotFound), "body %s", b)
				Expect(anthropicErrorOf(b).Error.Type).To(Equal("not_found_error"))
			},
			Entry("GET", http.MethodGet, "/v1/messages"),
			Entry("count_tokens by GET", http.MethodGet, "/v1/messages/count_tokens"),
			Entry("batches", http.MethodPost, "/v1/messages/batches"),
		)
	})
})
