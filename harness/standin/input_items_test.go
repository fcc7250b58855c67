package standin_test

import (
	"context"
	"errors"
	"net/http"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/conversations"
	"github.com/openai/openai-go/v3/responses"
)

// listedItems are a response's input items as the official SDK lists
// them, a page of limit at a time: each item's type and role, and its id.
func listedItems(c sdk.Client, id string, query responses.InputItemListParams) (kinds, ids []string) {
	GinkgoHelper()
	pages := c.Responses.InputItems.ListAutoPaging(context.Background(), id, query)
	for pages.Next() {
		it := pages.Current()
		kinds = append(kinds, it.Type+" "+it.Role)
		ids = append(ids, it.ID)
	}
	Expect(pages.Err()).NotTo(HaveOccurred())
	return kinds, ids
}

var _ = Describe("a stored response's input items", func() {
	var (
		c   sdk.Client
		ctx = context.Background()
	)

	BeforeEach(func() {
		c = echoOpenAI()
	})

	It("are the items it was made from, those of the responses it continues included, newest first, with the official SDK", func() {
		first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}})
		Expect(err).NotTo(HaveOccurred())
		call := first.Output[0].AsFunctionCall()
		second, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			PreviousResponseID: sdk.String(first.ID), Input: inputItems(callOutput(call.CallID, "26.4")), Tools: []responses.ToolUnionParam{sdkSST}})
		Expect(err).NotTo(HaveOccurred())

		kinds, ids := listedItems(c, second.ID, responses.InputItemListParams{Limit: sdk.Int(1)})
		Expect(kinds).To(Equal([]string{"function_call_output ", "function_call ", "message user"}), "newest first, one to a page")
		Expect(ids[1]).To(Equal(call.ID), "the earlier answer's output item, as it was given")
		Expect(ids).To(HaveEach(Not(BeEmpty())))
		Expect(slices.Compact(slices.Sorted(slices.Values(ids)))).To(HaveLen(3), "each with an id of its own")

		asc, ascIDs := listedItems(c, second.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc})
		Expect(asc).To(Equal([]string{"message user", "function_call ", "function_call_output "}))
		Expect(ascIDs).To(Equal([]string{ids[2], ids[1], ids[0]}), "the same ids each time")

		page, err := c.Responses.InputItems.List(ctx, first.ID, responses.InputItemListParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Data).To(HaveLen(1))
		Expect(page.HasMore).To(BeFalse())
		msg := page.Data[0].AsMessage()
		Expect(msg.Status).To(BeEquivalentTo("completed"))
		Expect(msg.Content).To(HaveLen(1))
		Expect(msg.Content[0].Type).To(Equal("input_text"))
		Expect(msg.Content[0].Text).To(Equal("call get_sst"))
	})

	It("are a conversation's items up to the response's input, when it was made in one", func() {
		conv, err := c.Conversations.New(ctx, conversations.ConversationNewParams{
			Items: []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage("I am in Keelung.", responses.EasyInputMessageRoleUser)}})
		Expect(err).NotTo(HaveOccurred())
		first, err := c.Responses.New(ctx, inConversation(conv.ID, responses.ResponseNewParams{Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}}))
		Expect(err).NotTo(HaveOccurred())
		_, err = c.Responses.New(ctx, inConversation(conv.ID, responses.ResponseNewParams{Input: userInput("and tomorrow?")}))
		Expect(err).NotTo(HaveOccurred())

		kinds, ids := listedItems(c, first.ID, responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc})
		Expect(kinds).To(Equal([]string{"message user", "message user"}), "not what the conversation held after it")
		convItems, err := c.Conversations.Items.List(ctx, conv.ID, conversations.ItemListParams{Order: conversations.ItemListParamsOrderAsc})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{convItems.Data[0].ID, convItems.Data[1].ID}), "the conversation's own items")
	})

	It("are the API's 404 for a response it does not keep, or one made with store: false", func() {
		unstored, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Store: sdk.Bool(false),
			Instructions: sdk.String(echoPrompt), Input: userInput("hello")})
		Expect(err).NotTo(HaveOccurred())
		for _, id := range []string{"resp_1", unstored.ID} {
			_, err := c.Responses.InputItems.List(ctx, id, responses.InputItemListParams{})
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
			Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
			Expect(apiErr.Message).To(Equal("Response with id '" + id + "' not found."))
		}
	})
})
