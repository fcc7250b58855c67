package standin_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

var _ = Describe("Responses API item references, through the official Go SDK", func() {
	var (
		c   sdk.Client
		ctx = context.Background()
	)
	BeforeEach(func() {
		c = echoOpenAI()
	})
	reference := func(id string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemUnionParam{OfItemReference: &responses.ResponseInputItemItemReferenceParam{ID: id}}
	}
	ask := func(model string, store bool, items ...responses.ResponseInputItemUnionParam) (*responses.Response, error) {
		p := responses.ResponseNewParams{Model: model, Instructions: sdk.String(echoPrompt), Input: userInput("call get_sst"),
			Tools: []responses.ToolUnionParam{sdkSST}, Store: sdk.Bool(store)}
		if len(items) > 0 {
			p.Input = inputItems(append([]responses.ResponseInputItemUnionParam{
				responses.ResponseInputItemParamOfMessage("call get_sst", responses.EasyInputMessageRoleUser)}, items...)...)
		}
		return c.Responses.New(ctx, p)
	}

	It("reads a reference to a stored answer's item as the item, as the Vercel AI SDK sends its reasoning", func() {
		first, err := ask("o4-mini", true)
		Expect(err).NotTo(HaveOccurred())
		rs, call := first.Output[0].AsReasoning(), first.Output[1].AsFunctionCall()
		byReference, err := ask("o4-mini", true, reference(rs.ID), functionCallParam(call, true), callOutput(call.CallID, `{"sst": 26.4}`))
		Expect(err).NotTo(HaveOccurred())
		whole, err := ask("o4-mini", true, reasoningParam(rs, true), functionCallParam(call, true), callOutput(call.CallID, `{"sst": 26.4}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(echoed(byReference)).To(Equal(echoed(whole)))
		Expect(byReference.Usage.InputTokens).To(Equal(whole.Usage.InputTokens))

		allByReference, err := ask("o4-mini", true, reference(rs.ID), reference(call.ID), callOutput(call.CallID, `{"sst": 26.4}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(echoed(allByReference)).To(Equal(echoed(whole)))
	})

	It("refuses a reference to an item of an answer not stored, or never given, as the API does", func() {
		first, err := ask("o4-mini", false)
		Expect(err).NotTo(HaveOccurred())
		rs := first.Output[0].AsReasoning()
		for _, id := range []string{rs.ID, "msg_unknown"} {
			_, err = ask("o4-mini", true, reference(id))
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "%v", err)
			Expect(apiErr.StatusCode).To(Equal(400))
			Expect(apiErr.Message).To(Equal("Item with id '" + id + "' not found."))
		}
	})
})
