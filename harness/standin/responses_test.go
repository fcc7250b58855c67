package standin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin"
)

const gpt = "gpt-4.1-mini"

// responsesClient is our Responses adapter pointed at srv.
func responsesClient(srv *standin.Server, hc *http.Client) llm.Client {
	return openai.NewResponses(srv.URL()+"/v1", gpt, "sk-test", hc)
}

// sdkResponse asks srv through the official SDK's Responses client and
// checks the answer's shape against the SDK's own types.
func sdkResponse(srv *standin.Server, params responses.ResponseNewParams) *responses.Response {
	GinkgoHelper()
	c := officialOpenAI(srv)
	params.Model = gpt
	params.Instructions = sdk.String(echoPrompt)
	resp, err := c.Responses.New(context.Background(), params)
	Expect(err).NotTo(HaveOccurred())
	Expect(sdkShapeProblems(reflect.ValueOf(resp), "response", responsesDiffers...)).To(BeEmpty(), "raw %s", resp.RawJSON())
	Expect(keyPaths(resp.RawJSON())).To(ContainElements(recordedResponseKeys), "every top-level field a recorded response has: %s", resp.RawJSON())
	return resp
}

// responsesDiffers are the fields a recorded Responses API answer has that
// the SDK's Response type lacks.
var responsesDiffers = []string{"store", "billing", "frequency_penalty", "presence_penalty"}

// recordedResponseKeys are the top-level fields of a recorded Responses API
// answer (mid-2026).
var recordedResponseKeys = []string{"background", "billing", "completed_at", "created_at", "error", "frequency_penalty", "id",
	"incomplete_details", "instructions", "max_output_tokens", "max_tool_calls", "metadata", "model", "moderation", "object", "output",
	"parallel_tool_calls", "presence_penalty", "previous_response_id", "prompt_cache_key", "prompt_cache_retention", "reasoning",
	"safety_identifier", "service_tier", "status", "store", "temperature", "text", "tool_choice", "tool_usage", "tools", "top_logprobs",
	"top_p", "truncation", "usage", "user"}

// userInput is one user message as input.
func userInput(text string) responses.ResponseNewParamsInputUnion {
	return responses.ResponseNewParamsInputUnion{OfString: sdk.String(text)}
}

var sdkSST = responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{Name: "get_sst", Strict: sdk.Bool(false),
	Parameters: map[string]any{"type": "object", "properties": map[string]any{"lon": map[string]any{"type": "number"}}}}}

// openAIErrorOf decodes body as OpenAI's error shape, checking it against
// the SDK's ErrorObject type.
func openAIErrorOf(body []byte) shared.ErrorObject {
	GinkgoHelper()
	var e struct{ Error shared.ErrorObject }
	Expect(json.Unmarshal(body, &e)).To(Succeed(), "body %s", body)
	Expect(sdkShapeProblems(reflect.ValueOf(e.Error), "error")).To(BeEmpty(), "body %s", body)
	return e.Error
}

var _ = Describe("the OpenAI Responses wire format", func() {
	var (
		srv   *standin.Server
		model llm.Client
	)

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
		model = responsesClient(srv, http.DefaultClient)
	})

	Describe("through the adapter", func() {
		It("round-trips parallel function calls and their outputs, with call_ ids of its own", func() {
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "call get_sst get_date"})
			req.Tools = sstTools()
			first := chat(model, req)
			Expect(first.FinishReason).To(Equal(llm.FinishToolCalls))
			calls := first.Message.ToolCalls
			Expect(calls).To(HaveLen(2))
			Expect(calls[0].ID).To(HavePrefix("call_"))
			Expect(calls[0].ID).NotTo(Equal(calls[1].ID))
			Expect(calls[0].ID).NotTo(Equal("call_1"), "the wire's ids, not the policy's")
			Expect(string(calls[1].Arguments)).To(MatchJSON(`{"lon":121.5,"lat":25,"n":2}`))

			req.Messages = append(req.Messages, first.Message,
				llm.Message{Role: llm.RoleTool, Name: "get_sst", ToolCallID: calls[0].ID, Content: `{"sst": 26.4}`},
				llm.Message{Role: llm.RoleTool, Name: "get_date", ToolCallID: calls[1].ID, Content: "2025-11-06"})
			second := chat(model, req)
			Expect(second.FinishReason).To(Equal(llm.FinishStop))
			Expect(seen(second).Messages).To(Equal(req.Messages), "the policy sees the conversation as sent")
		})

		DescribeTable("answers faults in OpenAI's error shape, an *llm.StatusError through the adapter",
			func(kind string, status int, errType string) {
				faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{kind}})
				_, err := responsesClient(faulty, http.DefaultClient).Chat(context.Background(), echoRequest(llm.Message{Role: llm.RoleUser, Content: "hello"}))
				var se *llm.StatusError
				Expect(errors.As(err, &se)).To(BeTrue(), "got %v", err)
				Expect(se.Code).To(Equal(status))
				e := openAIErrorOf([]byte(`{"error": ` + se.Body + `}`)) // the SDK keeps the error object
				Expect(e.Type).To(Equal(errType))
				Expect(e.Message).To(ContainSubstring("injected"))
			},
			Entry(nil, standin.FaultRateLimit, http.StatusTooManyRequests, "requests"),
			Entry(nil, standin.FaultServer, http.StatusInternalServerError, "server_error"),
			Entry(nil, standin.FaultUnavailable, http.StatusServiceUnavailable, "server_error"),
			Entry(nil, standin.FaultTimeout, http.StatusGatewayTimeout, "server_error"),
		)
	})

	Describe("decoded with the official SDK's types", func() {
		It("answers text with every field the SDK's Response has, and none it lacks", func() {
			resp := sdkResponse(srv, responses.ResponseNewParams{Input: userInput("hello"), Store: sdk.Bool(false)})
			Expect(resp.ID).To(HavePrefix("resp_"))
			Expect(resp.Status).To(Equal(responses.ResponseStatusCompleted))
			Expect(resp.Output).To(HaveLen(1))
			Expect(resp.Output[0].ID).To(HavePrefix("msg_"))
			Expect(seen(llm.Response{Message: llm.Message{Content: resp.OutputText()}}).System()).To(Equal(echoPrompt), "instructions are the system prompt")
			Expect(resp.Usage.InputTokens).To(BeNumerically(">", 0))
			Expect(resp.Usage.TotalTokens).To(Equal(resp.Usage.InputTokens + resp.Usage.OutputTokens))
		})

		It("answers function calls with every field the SDK's items have, and echoes the tools", func() {
			resp := sdkResponse(srv, responses.ResponseNewParams{Input: userInput("call get_sst get_sst"), Tools: []responses.ToolUnionParam{sdkSST}})
			Expect(resp.Output).To(HaveLen(2))
			a, b := resp.Output[0].AsFunctionCall(), resp.Output[1].AsFunctionCall()
			Expect(a.ID).To(HavePrefix("fc_"))
			Expect(a.CallID).To(HavePrefix("call_"))
			Expect(a.CallID).NotTo(Equal(b.CallID))
			Expect(a.Name).To(Equal("get_sst"))
			Expect(resp.Tools).To(HaveLen(1))
			Expect(resp.Tools[0].AsFunction().Strict).To(BeFalse())
		})

		It("answers a cut-off answer as incomplete for max_output_tokens", func() {
			faulty := startStandin(standin.Options{Policies: []standin.Policy{echo{}}, FaultRate: 1, Faults: []string{standin.FaultTruncated}})
			resp := sdkResponse(faulty, responses.ResponseNewParams{Input: userInput("hello"), MaxOutputTokens: sdk.Int(16)})
			Expect(resp.Status).To(Equal(responses.ResponseStatusIncomplete))
			Expect(resp.IncompleteDetails.Reason).To(Equal("max_output_tokens"))
			Expect(resp.MaxOutputTokens).To(BeEquivalentTo(16))
		})

		It("gives each distinct request its own ids, and the same request the same ones", func() {
			params := func(user string) responses.ResponseNewParams {
				return responses.ResponseNewParams{Input: userInput(user), Tools: []responses.ToolUnionParam{sdkSST}}
			}
			a, b := sdkResponse(srv, params("call get_sst")), sdkResponse(srv, params("call get_sst get_sst"))
			Expect(a.ID).NotTo(Equal(b.ID))
			Expect(a.Output[0].CallID).NotTo(Equal(b.Output[0].CallID))
			Expect(sdkResponse(srv, params("call get_sst")).RawJSON()).To(Equal(a.RawJSON()), "recordings are reproducible")
		})

		It("sends an x-request-id header, the same for the same request and another for another, as the API does", func() {
			id := func(user string) string {
				resp, body := wirePost(srv, http.MethodPost, "/v1/responses", `{"model": "gpt-4.1-mini", "instructions": "`+echoPrompt+`", "input": "`+user+`"}`)
				Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", body)
				return resp.Header.Get("X-Request-Id")
			}
			a := id("hello")
			Expect(a).To(MatchRegexp(`^req_[0-9a-f]{32}$`))
			Expect(id("hello")).To(Equal(a))
			Expect(id("hello again")).NotTo(Equal(a))
		})

		It("catches a field the SDK does not know and one it requires", func() {
			var r responses.Response
			Expect(json.Unmarshal([]byte(`{"id": "resp_1", "object": "response", "created_at": 0, "model": "m", "surprise": 1,
				"output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "hi"}]}]}`), &r)).To(Succeed())
			problems := sdkShapeProblems(reflect.ValueOf(r), "response")
			Expect(problems).To(ContainElement("response.surprise: unknown to the SDK"))
			Expect(problems).To(ContainElement("response.tools: required by the SDK, missing"))
			Expect(problems).To(ContainElement("response.output[0].content[0].annotations: required by the SDK, missing"))
		})
	})

	Describe("requests it cannot serve", func() {
		DescribeTable("get a 400 invalid_request_error saying why, never an empty success",
			func(body, want string) {
				resp, b := wirePost(srv, http.MethodPost, "/v1/responses", body)
				Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
				e := openAIErrorOf(b)
				Expect(e.Type).To(Equal("invalid_request_error"))
				Expect(e.Message).To(ContainSubstring(want))
			},
			Entry("a max_output_tokens below the API's minimum", `{"model": "m", "max_output_tokens": 15, "instructions": "`+echoPrompt+`", "input": "hi"}`, "Expected a value >= 16, but got 15"),
			Entry("a previous response", `{"model": "m", "previous_response_id": "resp_1", "instructions": "`+echoPrompt+`", "input": "hi"}`, "Previous response with id 'resp_1' not found."),
			Entry("a conversation it does not keep", `{"model": "m", "conversation": "conv_1", "instructions": "`+echoPrompt+`", "input": "hi"}`, "Conversation with id 'conv_1' not found."),
			Entry("JSON mode, the word json in the instructions only", `{"model": "m", "instructions": "`+echoPrompt+` Answer in JSON.", "input": "hi", "text": {"format": {"type": "json_object"}}}`,
				"Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'."),
			Entry("a built-in tool", `{"model": "m", "instructions": "`+echoPrompt+`", "input": "hi", "tools": [{"type": "web_search"}]}`, `"web_search"`),
			Entry("a function_call_output that answers no function_call", `{"model": "m", "input": [
				{"type": "function_call_output", "call_id": "call_x", "output": "1"}]}`, "call_x"),
			Entry("a computer-use item", `{"model": "m", "input": [{"type": "computer_call_output", "call_id": "c1", "output": {"type": "computer_screenshot", "image_url": "data:,"}}]}`, `"computer_call_output"`),
			Entry("a reference to an item it does not keep", `{"model": "m", "input": [{"type": "item_reference", "id": "msg_1"}]}`, "Item with id 'msg_1' not found."),
			Entry("an unknown system prompt", `{"model": "m", "instructions": "You are a pirate.", "input": "Ahoy"}`, "harness/standin"),
		)

		It("reads developer messages, text parts, reasoning items and function calls without an assistant text", func() {
			resp, b := wirePost(srv, http.MethodPost, "/v1/responses", `{"model": "m", "input": [
				{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "`+echoPrompt+`"}]},
				{"role": "user", "content": "call get_sst"},
				{"type": "reasoning", "id": "rs_1", "summary": []},
				{"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "get_sst", "arguments": "{\"lon\":1}", "status": "completed"},
				{"type": "function_call_output", "call_id": "call_a", "output": [{"type": "input_text", "text": "26.4"}]},
				{"role": "user", "content": [{"type": "input_text", "text": "and now?"}]}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", b)
			var out responses.Response
			Expect(json.Unmarshal(b, &out)).To(Succeed())
			r := seen(llm.Response{Message: llm.Message{Content: out.OutputText()}})
			Expect(r.Messages).To(Equal([]llm.Message{
				{Role: llm.RoleSystem, Content: echoPrompt},
				{Role: llm.RoleUser, Content: "call get_sst"},
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_a", Name: "get_sst", Arguments: json.RawMessage(`{"lon":1}`)}}},
				{Role: llm.RoleTool, ToolCallID: "call_a", Name: "get_sst", Content: "26.4"},
				{Role: llm.RoleUser, Content: "and now?"},
			}))
		})

		DescribeTable("answer 404 in OpenAI's shape for a response it does not keep, and for what is not a response's create, get or delete",
			func(method, path string) {
				resp, b := wirePost(srv, method, path, `{}`)
				Expect(resp.StatusCode).To(Equal(http.StatusNotFound), "body %s", b)
				Expect(openAIErrorOf(b).Type).To(Equal("invalid_request_error"))
			},
			Entry("GET", http.MethodGet, "/v1/responses"),
			Entry("retrieve", http.MethodGet, "/v1/responses/resp_1"),
			Entry("cancel", http.MethodPost, "/v1/responses/resp_1/cancel"),
			Entry("input items", http.MethodGet, "/v1/responses/resp_1/input_items"),
			Entry("an item of its input", http.MethodGet, "/v1/responses/resp_1/input_items/msg_1"),
		)
	})

	Describe("a stored response", func() {
		It("is got again as it was answered, whole or streamed, with the official SDK", func() {
			c := echoOpenAI()
			params := responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
				Input: responses.ResponseNewParamsInputUnion{OfString: sdk.String("call get_sst")},
				Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_sst", Parameters: map[string]any{"type": "object"}}}}}
			created, err := c.Responses.New(context.Background(), params)
			Expect(err).NotTo(HaveOccurred())
			got, err := c.Responses.Get(context.Background(), created.ID, responses.ResponseGetParams{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.RawJSON()).To(MatchJSON(created.RawJSON()))

			params.Input = responses.ResponseNewParamsInputUnion{OfString: sdk.String("call get_sst, streamed")}
			st := c.Responses.NewStreaming(context.Background(), params)
			var done responses.Response
			for st.Next() {
				if ev := st.Current(); ev.Type == "response.completed" {
					done = ev.Response
				}
			}
			Expect(st.Err()).NotTo(HaveOccurred())
			Expect(done.ID).NotTo(BeEmpty())
			got, err = c.Responses.Get(context.Background(), done.ID, responses.ResponseGetParams{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got.RawJSON()).To(MatchJSON(done.RawJSON()))
		})

		It("is forgotten once deleted, and none is kept with store: false", func() {
			c := echoOpenAI()
			params := responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
				Input: responses.ResponseNewParamsInputUnion{OfString: sdk.String("hello")}}
			created, err := c.Responses.New(context.Background(), params)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Responses.Delete(context.Background(), created.ID)).To(Succeed())
			_, err = c.Responses.Get(context.Background(), created.ID, responses.ResponseGetParams{})
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
			Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
			Expect(apiErr.Message).To(Equal("Response with id '" + created.ID + "' not found."))
			params.PreviousResponseID = sdk.String(created.ID)
			_, err = c.Responses.New(context.Background(), params)
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
			Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest), "continuing it is the API's previous_response_not_found")

			unstored, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: gpt, Store: sdk.Bool(false),
				Instructions: sdk.String(echoPrompt), Input: responses.ResponseNewParamsInputUnion{OfString: sdk.String("hello")}})
			Expect(err).NotTo(HaveOccurred())
			_, err = c.Responses.Get(context.Background(), unstored.ID, responses.ResponseGetParams{})
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
			Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
		})

		It("is kept whole among the latest 1,024 only, its conversation still continued after", func() {
			srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
			ask := func(i int) string {
				_, b := wirePost(srv, http.MethodPost, "/v1/responses", fmt.Sprintf(`{"model": "m", "instructions": "%s", "input": "question %d"}`, echoPrompt, i))
				var r struct{ ID string }
				Expect(json.Unmarshal(b, &r)).To(Succeed(), string(b))
				return r.ID
			}
			first := ask(0)
			for i := 1; i < 1024; i++ {
				ask(i)
			}
			resp, _ := wirePost(srv, http.MethodGet, "/v1/responses/"+first, ``)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "the 1,024th latest")
			ask(1024)
			resp, _ = wirePost(srv, http.MethodGet, "/v1/responses/"+first, ``)
			Expect(resp.StatusCode).To(Equal(http.StatusNotFound), "the 1,025th latest")
			resp, b := wirePost(srv, http.MethodPost, "/v1/responses", `{"model": "m", "instructions": "`+echoPrompt+`", "previous_response_id": "`+first+`", "input": "and?"}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), "body %s", b)
		})

		It("is not streamed again (stream=true): a 400 in OpenAI's shape", func() {
			srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
			c := officialOpenAI(srv)
			created, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: gpt,
				Instructions: sdk.String(echoPrompt), Input: responses.ResponseNewParamsInputUnion{OfString: sdk.String("hello")}})
			Expect(err).NotTo(HaveOccurred())
			resp, b := wirePost(srv, http.MethodGet, "/v1/responses/"+created.ID+"?stream=true", ``)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "body %s", b)
			Expect(openAIErrorOf(b).Type).To(Equal("invalid_request_error"))
		})
	})
})
