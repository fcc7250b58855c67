package standin_test

import (
	"context"
	"encoding/json"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// threadCreate and threadContinue are the thread fields of a request that
// starts a thread and of one that continues the response id.
var threadCreate = option.WithJSONSet("thread", map[string]any{"type": "create"})

func threadContinue(id string) option.RequestOption {
	return option.WithJSONSet("thread", map[string]any{"type": "continue", "previous_message_id": id})
}

// echoedMessage is the Request the echo policy saw, from its answer.
func echoedMessage(msg *sdk.Message) standin.Request {
	GinkgoHelper()
	Expect(msg.Content).NotTo(BeEmpty())
	return seen(llm.Response{Message: llm.Message{Content: msg.Content[0].Text}})
}

// threadErrorOf is an Anthropic error body with the details a thread
// refusal carries, as the TypeScript SDK reads them (error.details.
// error_code; the Go SDK in go.mod predates them).
func threadErrorOf(body []byte) (errType, code, message string) {
	GinkgoHelper()
	var e struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		Error     struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Details struct {
				ErrorCode string `json:"error_code"`
			} `json:"details"`
		} `json:"error"`
	}
	Expect(json.Unmarshal(body, &e)).To(Succeed(), "body %s", body)
	Expect(e.Type).To(Equal("error"))
	Expect(e.RequestID).To(HavePrefix("req_011"))
	return e.Error.Type, e.Error.Details.ErrorCode, e.Error.Message
}

var _ = Describe("an Anthropic conversation kept in a thread", func() {
	var (
		srv *standin.Server
		c   sdk.Client
		ctx = context.Background()
	)

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
		c = officialSDK(srv)
	})

	// start asks for get_sst in a new thread and returns the answer and
	// its tool_use.
	start := func() (*sdk.Message, sdk.ToolUseBlock) {
		GinkgoHelper()
		first, err := c.Messages.New(ctx, sdk.MessageNewParams{Model: claude, MaxTokens: 512, Tools: []sdk.ToolUnionParam{getSST},
			System:   []sdk.TextBlockParam{{Text: echoPrompt}},
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("call get_sst"))}}, threadCreate)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Content).To(HaveLen(1))
		return first, first.Content[0].AsToolUse()
	}

	// answer continues id with the result of use, sending nothing else.
	answer := func(id string, use sdk.ToolUseBlock, opts ...option.RequestOption) (*sdk.Message, error) {
		return c.Messages.New(ctx, sdk.MessageNewParams{Model: claude, MaxTokens: 512,
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewToolResultBlock(use.ID, `{"sst": 26.4}`, false))}},
			append(opts, threadContinue(id))...)
	}

	It("reads a continuation after the thread's conversation, with its system prompt and tools, as if it were sent whole", func() {
		first, use := start()
		second, err := answer(first.ID, use)
		Expect(err).NotTo(HaveOccurred())

		whole, err := c.Messages.New(ctx, sdk.MessageNewParams{Model: claude, MaxTokens: 512, Tools: []sdk.ToolUnionParam{getSST},
			System: []sdk.TextBlockParam{{Text: echoPrompt}},
			Messages: []sdk.MessageParam{
				sdk.NewUserMessage(sdk.NewTextBlock("call get_sst")),
				sdk.NewAssistantMessage(sdk.NewToolUseBlock(use.ID, use.Input, use.Name)),
				sdk.NewUserMessage(sdk.NewToolResultBlock(use.ID, `{"sst": 26.4}`, false))}})
		Expect(err).NotTo(HaveOccurred())
		Expect(echoedMessage(second)).To(Equal(echoedMessage(whole)))
		Expect(second.Usage.InputTokens).To(Equal(whole.Usage.InputTokens), "the kept conversation is billed as input")

		r := echoedMessage(second)
		Expect(r.Tools).To(HaveLen(1), "the thread's tools")
		Expect(r.Messages).To(HaveLen(4))
		Expect(r.Messages[3]).To(Equal(llm.Message{Role: llm.RoleTool, ToolCallID: use.ID, Name: "get_sst", Content: `{"sst": 26.4}`}))
	})

	It("continues each response once, from a streamed one too, and a repeated system prompt and tools as they are", func() {
		first, use := start()
		stream := c.Messages.NewStreaming(ctx, sdk.MessageNewParams{Model: claude, MaxTokens: 512, Tools: []sdk.ToolUnionParam{getSST},
			System:   []sdk.TextBlockParam{{Text: echoPrompt}},
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewToolResultBlock(use.ID, "26.4", false))}}, threadContinue(first.ID))
		var second sdk.Message
		for stream.Next() {
			Expect(second.Accumulate(stream.Current())).To(Succeed())
		}
		Expect(stream.Err()).NotTo(HaveOccurred())

		third, err := c.Messages.New(ctx, sdk.MessageNewParams{Model: claude, MaxTokens: 512,
			Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("and tomorrow?"))}}, threadContinue(second.ID))
		Expect(err).NotTo(HaveOccurred())
		msgs := echoedMessage(third).Messages
		Expect(msgs).To(HaveLen(6))
		Expect(msgs[4].Content).To(Equal(second.Content[0].Text), "the streamed answer, kept")

		resp, body := wirePost(srv, http.MethodPost, "/v1/messages", `{"model": "`+claude+`", "max_tokens": 512,
			"messages": [{"role": "user", "content": "again?"}], "thread": {"type": "continue", "previous_message_id": "`+second.ID+`"}}`)
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "%s", body)
		kind, code, _ := threadErrorOf(body)
		Expect(kind).To(Equal("invalid_request_error"))
		Expect(code).To(Equal("thread_already_continued"))
	})

	DescribeTable("refuses a continuation as the API does, with the error_code the SDKs recover by",
		func(body func(id string) string, status int, kind, code, says string) {
			first, _ := start()
			resp, b := wirePost(srv, http.MethodPost, "/v1/messages", body(first.ID))
			Expect(resp.StatusCode).To(Equal(status), "%s", b)
			gotKind, gotCode, msg := threadErrorOf(b)
			Expect(gotKind).To(Equal(kind))
			Expect(gotCode).To(Equal(code))
			Expect(msg).To(ContainSubstring(says))
			Expect(resp.Header.Get("Request-Id")).To(HavePrefix("req_011"))
		},
		Entry("a response it never gave", func(string) string {
			return `{"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}], "thread": {"type": "continue", "previous_message_id": "msg_01unknown"}}`
		}, http.StatusNotFound, "not_found_error", "thread_not_found", "msg_01unknown"),
		Entry("a response given outside a thread", func(string) string {
			return `{"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}], "thread": {"type": "continue", "previous_message_id": "` +
				whole(srv) + `"}}`
		}, http.StatusNotFound, "not_found_error", "thread_not_found", "no thread was found"),
		Entry("another system prompt and tools", func(id string) string {
			return `{"model": "m", "max_tokens": 64, "system": "You are the echo test. Be brief.", "tools": [{"name": "get_date", "input_schema": {"type": "object"}}],
				"messages": [{"role": "user", "content": "hi"}], "thread": {"type": "continue", "previous_message_id": "` + id + `"}}`
		}, http.StatusBadRequest, "invalid_request_error", "thread_fingerprint_mismatch", "system and tools differ"),
		Entry("a thread type it does not know", func(id string) string {
			return `{"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}], "thread": {"type": "fork", "previous_message_id": "` + id + `"}}`
		}, http.StatusBadRequest, "invalid_request_error", "", `not "fork"`),
	)
})

// whole is the id of an answer srv gave to a request in no thread.
func whole(srv *standin.Server) string {
	GinkgoHelper()
	msg := sdkMessage(srv, "hello")
	return msg.ID
}
