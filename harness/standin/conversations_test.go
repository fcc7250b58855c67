package standin_test

import (
	"context"
	"errors"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/conversations"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// inConversation asks for params in the conversation id.
func inConversation(id string, params responses.ResponseNewParams) responses.ResponseNewParams {
	params.Model, params.Instructions = gpt, sdk.String(echoPrompt)
	params.Conversation = responses.ResponseNewParamsConversationUnion{OfString: sdk.String(id)}
	return params
}

// itemKinds are the type and role of each item of a conversation, in
// order.
func itemKinds(c sdk.Client, id string, query conversations.ItemListParams) []string {
	GinkgoHelper()
	var kinds []string
	pages := c.Conversations.Items.ListAutoPaging(context.Background(), id, query)
	for pages.Next() {
		it := pages.Current()
		kinds = append(kinds, strings.TrimSuffix(it.Type+" "+it.Role, " "))
	}
	Expect(pages.Err()).NotTo(HaveOccurred())
	return kinds
}

var _ = Describe("the OpenAI Conversations API", func() {
	var (
		c   sdk.Client
		ctx = context.Background()
	)

	BeforeEach(func() {
		c = echoOpenAI()
	})

	It("keeps a conversation's items, reads a response in it after them, and adds its input and output", func() {
		conv, err := c.Conversations.New(ctx, conversations.ConversationNewParams{Metadata: map[string]string{"topic": "sst"},
			Items: []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage("I am in Keelung.", responses.EasyInputMessageRoleUser)}})
		Expect(err).NotTo(HaveOccurred())
		Expect(conv.ID).To(HavePrefix("conv_"))
		Expect(conv.Metadata).To(HaveKeyWithValue("topic", "sst"))

		first, err := c.Responses.New(ctx, inConversation(conv.ID, responses.ResponseNewParams{Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}}))
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Conversation.ID).To(Equal(conv.ID), "echoed as the API does")
		call := first.Output[0].AsFunctionCall()
		second, err := c.Responses.New(ctx, inConversation(conv.ID, responses.ResponseNewParams{Input: inputItems(callOutput(call.CallID, "26.4")),
			Tools: []responses.ToolUnionParam{sdkSST}}))
		Expect(err).NotTo(HaveOccurred())
		msgs := echoed(second).Messages
		Expect(msgs).To(HaveLen(5))
		Expect(msgs[1]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "I am in Keelung."}))
		Expect(msgs[4]).To(Equal(llm.Message{Role: llm.RoleTool, ToolCallID: call.CallID, Name: "get_sst", Content: "26.4"}))

		Expect(itemKinds(c, conv.ID, conversations.ItemListParams{Order: conversations.ItemListParamsOrderAsc})).To(Equal(
			[]string{"message user", "message user", "function_call", "function_call_output", "message assistant"}))
		Expect(itemKinds(c, conv.ID, conversations.ItemListParams{Limit: sdk.Int(2)})).To(Equal(
			[]string{"message assistant", "function_call_output", "function_call", "message user", "message user"}), "newest first, two to a page")
	})

	It("gets, updates and deletes a conversation and its items", func() {
		conv, err := c.Conversations.New(ctx, conversations.ConversationNewParams{Items: []responses.ResponseInputItemUnionParam{
			responses.ResponseInputItemParamOfMessage("one", responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfMessage("two", responses.EasyInputMessageRoleUser)}})
		Expect(err).NotTo(HaveOccurred())
		list, err := c.Conversations.Items.List(ctx, conv.ID, conversations.ItemListParams{Order: conversations.ItemListParamsOrderAsc})
		Expect(err).NotTo(HaveOccurred())
		Expect(list.Data).To(HaveLen(2))
		item, err := c.Conversations.Items.Get(ctx, conv.ID, list.Data[0].ID, conversations.ItemGetParams{})
		Expect(err).NotTo(HaveOccurred())
		Expect(item.Content.OfMessageContentArray).To(ConsistOf(HaveField("Text", "one")))

		_, err = c.Conversations.Items.Delete(ctx, conv.ID, list.Data[0].ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(itemKinds(c, conv.ID, conversations.ItemListParams{})).To(HaveLen(1))
		added, err := c.Conversations.Items.New(ctx, conv.ID, conversations.ItemNewParams{Items: []responses.ResponseInputItemUnionParam{
			responses.ResponseInputItemParamOfMessage("three", responses.EasyInputMessageRoleUser)}})
		Expect(err).NotTo(HaveOccurred())
		Expect(added.FirstID).NotTo(Equal(list.Data[1].ID), "an item added after a deletion gets an id of its own")
		updated, err := c.Conversations.Update(ctx, conv.ID, conversations.ConversationUpdateParams{Metadata: map[string]string{"k": "v"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(updated.Metadata).To(HaveKeyWithValue("k", "v"))

		deleted, err := c.Conversations.Delete(ctx, conv.ID)
		Expect(err).NotTo(HaveOccurred())
		Expect(deleted.Deleted).To(BeTrue())
		_, err = c.Conversations.Get(ctx, conv.ID)
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusNotFound))
		Expect(apiErr.Message).To(Equal("Conversation with id '" + conv.ID + "' not found."))
	})

	DescribeTable("refuses a response it cannot read in a conversation",
		func(params func() responses.ResponseNewParams, says string) {
			_, err := c.Responses.New(ctx, params())
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
			Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
			Expect(apiErr.Param).To(Equal("conversation"))
			Expect(apiErr.Message).To(ContainSubstring(says))
		},
		Entry("a conversation it does not keep", func() responses.ResponseNewParams {
			return inConversation("conv_0123", responses.ResponseNewParams{Input: userInput("hi")})
		}, "Conversation with id 'conv_0123' not found."),
		Entry("a conversation and a previous response both", func() responses.ResponseNewParams {
			conv, err := c.Conversations.New(ctx, conversations.ConversationNewParams{})
			Expect(err).NotTo(HaveOccurred())
			p := inConversation(conv.ID, responses.ResponseNewParams{Input: userInput("hi")})
			p.PreviousResponseID = sdk.String("resp_1")
			return p
		}, "not both"),
	)

	It("gives the same ids to a conversation made again from the same requests, and refuses more than 20 items at once", func() {
		ids := func() []string {
			GinkgoHelper()
			srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
			fresh := officialOpenAI(srv)
			var got []string
			for range 2 {
				conv, err := fresh.Conversations.New(ctx, conversations.ConversationNewParams{})
				Expect(err).NotTo(HaveOccurred())
				added, err := fresh.Conversations.Items.New(ctx, conv.ID, conversations.ItemNewParams{Items: []responses.ResponseInputItemUnionParam{
					responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser)}})
				Expect(err).NotTo(HaveOccurred())
				got = append(got, conv.ID, added.FirstID)
			}
			return got
		}
		first := ids()
		Expect(first[0]).NotTo(Equal(first[2]), "two conversations from the same request are two")
		Expect(ids()).To(Equal(first))

		conv, err := c.Conversations.New(ctx, conversations.ConversationNewParams{})
		Expect(err).NotTo(HaveOccurred())
		many := make([]responses.ResponseInputItemUnionParam, 21)
		for i := range many {
			many[i] = responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser)
		}
		_, err = c.Conversations.Items.New(ctx, conv.ID, conversations.ItemNewParams{Items: many})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
	})
})
