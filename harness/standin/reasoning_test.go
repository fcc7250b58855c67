package standin_test

import (
	"context"
	"errors"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("a reasoning model's answer over the Responses API, through the official Go SDK", func() {
	var (
		c   sdk.Client
		ctx = context.Background()
	)
	BeforeEach(func() {
		c = echoOpenAI()
	})
	params := func(model string, summary bool, store bool) responses.ResponseNewParams {
		p := responses.ResponseNewParams{Model: model, Instructions: sdk.String(echoPrompt), Input: userInput("call get_sst"),
			Tools: []responses.ToolUnionParam{sdkSST}, Store: sdk.Bool(store)}
		if summary {
			p.Reasoning = shared.ReasoningParam{Summary: shared.ReasoningSummaryAuto}
		}
		return p
	}

	It("starts with a reasoning item, its tokens billed as output and counted as reasoning; other models give none", func() {
		resp, err := c.Responses.New(ctx, params("o4-mini", false, true))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Output).To(HaveLen(2))
		rs := resp.Output[0].AsReasoning()
		Expect(rs.ID).To(HavePrefix("rs_"))
		Expect(rs.Summary).To(BeEmpty(), "no summary unless reasoning.summary asks")
		Expect(rs.EncryptedContent).NotTo(BeEmpty())
		Expect(resp.Output[1].Type).To(Equal("function_call"))
		Expect(resp.Usage.OutputTokensDetails.ReasoningTokens).To(BeNumerically(">", 0))

		plain, err := c.Responses.New(ctx, params("gpt-4.1-mini", false, true))
		Expect(err).NotTo(HaveOccurred())
		Expect(plain.Output).To(HaveLen(1))
		Expect(plain.Usage.OutputTokensDetails.ReasoningTokens).To(BeZero())
		Expect(resp.Usage.OutputTokens).To(Equal(plain.Usage.OutputTokens + resp.Usage.OutputTokensDetails.ReasoningTokens))

		summed, err := c.Responses.New(ctx, params("gpt-5-mini", true, true))
		Expect(err).NotTo(HaveOccurred())
		Expect(summed.Output[0].AsReasoning().Summary).To(HaveLen(1))
		Expect(summed.Output[0].AsReasoning().Summary[0].Text).To(Equal("Deciding from the request alone: call get_sst."))
	})

	It("streams the reasoning item and its summary, the answer the same as given whole", func() {
		whole, err := c.Responses.New(ctx, params("o4-mini", true, true))
		Expect(err).NotTo(HaveOccurred())
		s := c.Responses.NewStreaming(ctx, params("o4-mini", true, true))
		var summary string
		var done responses.Response
		for s.Next() {
			switch ev := s.Current(); ev.Type {
			case "response.reasoning_summary_text.delta":
				summary += ev.Delta
			case "response.completed":
				done = ev.Response
			}
		}
		Expect(s.Err()).NotTo(HaveOccurred())
		Expect(summary).To(Equal("Deciding from the request alone: call get_sst."))
		Expect(done.Output).To(HaveLen(2))
		Expect(done.Output[0].AsReasoning().Summary[0].Text).To(Equal(summary))
		Expect(done.Output[0].AsReasoning().EncryptedContent).NotTo(BeEmpty())
		Expect(done.Usage.OutputTokens).To(Equal(whole.Usage.OutputTokens))
		Expect(done.Usage.OutputTokensDetails.ReasoningTokens).To(Equal(whole.Usage.OutputTokensDetails.ReasoningTokens))
	})

	DescribeTable("is read by the Responses adapter, whole and streamed, as any answer: the call, the reasoning left out",
		func(stream bool) {
			srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
			req := echoRequest(llm.Message{Role: llm.RoleUser, Content: "call get_sst"})
			req.Tools = sstTools()
			resp := chat(openai.NewResponses(srv.URL()+"/v1", "o4-mini", "sk-test", http.DefaultClient).Streaming(stream), req)
			Expect(resp.Message.Content).To(BeEmpty())
			Expect(resp.Message.ToolCalls).To(HaveLen(1))
			Expect(resp.Message.ToolCalls[0].Name).To(Equal("get_sst"))
		},
		Entry("whole", false),
		Entry("streamed", true),
	)

	DescribeTable("takes an answer's items sent back with their reasoning item, and refuses them without it, as the API does",
		func(store bool, input func(rs responses.ResponseReasoningItem, call responses.ResponseFunctionToolCall) []responses.ResponseInputItemUnionParam, refused string) {
			first, err := c.Responses.New(ctx, params("o4-mini", false, store))
			Expect(err).NotTo(HaveOccurred())
			rs, call := first.Output[0].AsReasoning(), first.Output[1].AsFunctionCall()
			p := params("o4-mini", false, store)
			p.Input = inputItems(append([]responses.ResponseInputItemUnionParam{
				responses.ResponseInputItemParamOfMessage("call get_sst", responses.EasyInputMessageRoleUser)},
				append(input(rs, call), callOutput(call.CallID, `{"sst": 26.4}`))...)...)
			_, err = c.Responses.New(ctx, p)
			if refused == "" {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
			Expect(apiErr.StatusCode).To(Equal(400))
			Expect(apiErr.Message).To(Equal(strings.NewReplacer("{fc}", call.ID, "{rs}", rs.ID).Replace(refused)))
		},
		Entry("the reasoning item and the call, each by its id", true, func(rs responses.ResponseReasoningItem, call responses.ResponseFunctionToolCall) []responses.ResponseInputItemUnionParam {
			return []responses.ResponseInputItemUnionParam{reasoningParam(rs, false), functionCallParam(call, true)}
		}, ""),
		Entry("the call by its id, without its reasoning item", true, func(rs responses.ResponseReasoningItem, call responses.ResponseFunctionToolCall) []responses.ResponseInputItemUnionParam {
			return []responses.ResponseInputItemUnionParam{functionCallParam(call, true)}
		}, "Item '{fc}' of type 'function_call' was provided without its required 'reasoning' item: '{rs}'."),
		Entry("the call without its id: nothing to pair", true, func(rs responses.ResponseReasoningItem, call responses.ResponseFunctionToolCall) []responses.ResponseInputItemUnionParam {
			return []responses.ResponseInputItemUnionParam{functionCallParam(call, false)}
		}, ""),
		Entry("not stored: the reasoning item with its encrypted content", false, func(rs responses.ResponseReasoningItem, call responses.ResponseFunctionToolCall) []responses.ResponseInputItemUnionParam {
			return []responses.ResponseInputItemUnionParam{reasoningParam(rs, true), functionCallParam(call, true)}
		}, ""),
		Entry("not stored: the reasoning item without it", false, func(rs responses.ResponseReasoningItem, call responses.ResponseFunctionToolCall) []responses.ResponseInputItemUnionParam {
			return []responses.ResponseInputItemUnionParam{reasoningParam(rs, false), functionCallParam(call, true)}
		}, "Item with id '{rs}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."),
	)
})

// reasoningParam is rs sent back, with its encrypted content when sealed.
func reasoningParam(rs responses.ResponseReasoningItem, sealed bool) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfReasoning(rs.ID, []responses.ResponseReasoningItemSummaryParam{})
	if sealed {
		item.OfReasoning.EncryptedContent = sdk.String(rs.EncryptedContent)
	}
	return item
}

// functionCallParam is call sent back, with its id when byID.
func functionCallParam(call responses.ResponseFunctionToolCall, byID bool) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name)
	if byID {
		item.OfFunctionCall.ID = sdk.String(call.ID)
	}
	return item
}
