package standin_test

import (
	"context"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// callOutput is a function_call_output input item answering callID.
func callOutput(callID, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = sdk.String(callID)
	return item
}

// inputItems is input given as a list of items.
func inputItems(items ...responses.ResponseInputItemUnionParam) responses.ResponseNewParamsInputUnion {
	return responses.ResponseNewParamsInputUnion{OfInputItemList: items}
}

// echoed is the Request the echo policy saw, from its Responses answer.
func echoed(resp *responses.Response) standin.Request {
	GinkgoHelper()
	return seen(llm.Response{Message: llm.Message{Content: resp.OutputText()}})
}

var _ = Describe("a Responses API conversation continued with previous_response_id", func() {
	var (
		c     sdk.Client
		ctx   = context.Background()
		tools = []responses.ToolUnionParam{sdkSST}
	)

	BeforeEach(func() {
		c = echoOpenAI()
	})

	// firstCall asks for get_sst under instructions, stored unless store
	// is false, and returns the answer and its call.
	firstCall := func(instructions string, store bool) (*responses.Response, responses.ResponseFunctionToolCall) {
		GinkgoHelper()
		first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(instructions),
			Input: userInput("call get_sst"), Tools: tools, Store: sdk.Bool(store)})
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Output).To(HaveLen(1))
		call := first.Output[0].AsFunctionCall()
		Expect(call.CallID).To(HavePrefix("call_"))
		return first, call
	}

	It("reads the stored conversation before the new input, as if it were sent whole, the earlier instructions left out", func() {
		first, call := firstCall(echoPrompt+" Answer briefly.", true)
		Expect(first.RawJSON()).To(ContainSubstring(`"previous_response_id":null`), "null when it continues none, as the API sends")
		second, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			PreviousResponseID: sdk.String(first.ID), Input: inputItems(callOutput(call.CallID, `{"sst": 26.4}`)), Tools: tools})
		Expect(err).NotTo(HaveOccurred())
		Expect(second.PreviousResponseID).To(Equal(first.ID), "echoed as the API does")

		whole, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), Tools: tools,
			Input: inputItems(
				responses.ResponseInputItemParamOfMessage("call get_sst", responses.EasyInputMessageRoleUser),
				responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
				callOutput(call.CallID, `{"sst": 26.4}`))})
		Expect(err).NotTo(HaveOccurred())
		Expect(echoed(second)).To(Equal(echoed(whole)))
		Expect(second.Usage.InputTokens).To(Equal(whole.Usage.InputTokens), "the stored conversation is billed as input")

		msgs := echoed(second).Messages
		Expect(msgs).To(HaveLen(4))
		Expect(msgs[0]).To(Equal(llm.Message{Role: llm.RoleSystem, Content: echoPrompt}), "only the new instructions")
		Expect(msgs[2].ToolCalls).To(ConsistOf(HaveField("ID", call.CallID)))
		Expect(msgs[3]).To(Equal(llm.Message{Role: llm.RoleTool, ToolCallID: call.CallID, Name: "get_sst", Content: `{"sst": 26.4}`}),
			"the output is paired with the stored call")
	})

	It("echoes the reasoning settings a request gives, as the API does", func() {
		// A reasoning model: gpt's, one before reasoning, refuses an effort.
		resp, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "o4-mini", Instructions: sdk.String(echoPrompt), Input: userInput("hello"),
			Reasoning: shared.ReasoningParam{Effort: shared.ReasoningEffortLow, Summary: shared.ReasoningSummaryAuto}})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Reasoning.Effort).To(Equal(shared.ReasoningEffortLow))
		Expect(resp.Reasoning.Summary).To(Equal(shared.ReasoningSummaryAuto))
	})

	It("follows a chain of answers, streamed ones among them, and counts its input tokens", func() {
		first, call := firstCall(echoPrompt, true)
		stream := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			PreviousResponseID: sdk.String(first.ID), Input: inputItems(callOutput(call.CallID, "26.4")), Tools: tools})
		var second responses.Response
		for stream.Next() {
			if ev := stream.Current(); ev.Type == "response.completed" {
				second = ev.Response
			}
		}
		Expect(stream.Err()).NotTo(HaveOccurred())
		Expect(second.ID).To(HavePrefix("resp_"))

		third := responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), PreviousResponseID: sdk.String(second.ID),
			Input: userInput("and tomorrow?"), Tools: tools}
		answer, err := c.Responses.New(ctx, third)
		Expect(err).NotTo(HaveOccurred())
		msgs := echoed(answer).Messages
		Expect(msgs).To(HaveLen(6))
		Expect(msgs[4].Role).To(Equal(llm.RoleAssistant))
		Expect(msgs[4].Content).To(Equal(second.OutputText()), "the streamed answer, kept")
		Expect(msgs[5]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "and tomorrow?"}))

		count, err := c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{Model: sdk.String(gpt), Instructions: sdk.String(echoPrompt),
			PreviousResponseID: sdk.String(second.ID), Input: responses.InputTokenCountParamsInputUnion{OfString: sdk.String("and tomorrow?")},
			Tools: tools})
		Expect(err).NotTo(HaveOccurred())
		Expect(count.InputTokens).To(Equal(answer.Usage.InputTokens))
	})

	DescribeTable("refuses a previous_response_id it does not keep as the API does: 400 previous_response_not_found",
		func(previous func() string) {
			id := previous()
			_, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
				PreviousResponseID: sdk.String(id), Input: userInput("hello")})
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
			Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
			Expect(apiErr.Code).To(Equal("previous_response_not_found"))
			Expect(apiErr.Param).To(Equal("previous_response_id"))
			Expect(apiErr.Message).To(Equal("Previous response with id '" + id + "' not found."))
		},
		Entry("an id it never gave", func() string { return "resp_0123456789abcdef" }),
		Entry("an answer to a request with store: false", func() string {
			first, _ := firstCall(echoPrompt, false)
			return first.ID
		}),
	)
})
