package standin_test

import (
	"context"
	"errors"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/standin"
)

var _ = Describe("Anthropic's extended thinking", func() {
	var (
		c   sdk.Client
		ctx = context.Background()
	)

	BeforeEach(func() {
		c = officialSDK(startStandin(standin.Options{Policies: []standin.Policy{echo{}}}))
	})

	// ask asks for get_sst, thinking enabled when thinks.
	ask := func(thinks bool, msgs ...sdk.MessageParam) sdk.MessageNewParams {
		p := sdk.MessageNewParams{Model: claude, MaxTokens: 4096, Tools: []sdk.ToolUnionParam{getSST},
			System:   []sdk.TextBlockParam{{Text: echoPrompt}},
			Messages: append([]sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("call get_sst"))}, msgs...)}
		if thinks {
			p.Thinking = sdk.ThinkingConfigParamOfEnabled(1024)
		}
		return p
	}

	It("starts an answer with a thinking block and its signature, billed as output, whole and streamed alike", func() {
		plain, err := c.Messages.New(ctx, ask(false))
		Expect(err).NotTo(HaveOccurred())
		whole, err := c.Messages.New(ctx, ask(true))
		Expect(err).NotTo(HaveOccurred())
		Expect(whole.Content).To(HaveLen(2))
		Expect(whole.Content[0].Type).To(Equal("thinking"))
		Expect(whole.Content[0].Thinking).To(Equal("Deciding from the request alone: call get_sst."))
		Expect(whole.Content[0].Signature).NotTo(BeEmpty())
		Expect(whole.Content[1].Type).To(Equal("tool_use"))
		Expect(whole.Usage.OutputTokens).To(BeNumerically(">", plain.Usage.OutputTokens))

		stream := c.Messages.NewStreaming(ctx, ask(true))
		var streamed sdk.Message
		for stream.Next() {
			Expect(streamed.Accumulate(stream.Current())).To(Succeed())
		}
		Expect(stream.Err()).NotTo(HaveOccurred())
		Expect(streamed.Content).To(HaveLen(2))
		Expect(streamed.Content[0].Thinking).To(Equal(whole.Content[0].Thinking))
		Expect(streamed.Content[0].Signature).NotTo(BeEmpty(), "its own: the streamed request is another request")
		Expect(streamed.Usage.OutputTokens).To(Equal(whole.Usage.OutputTokens))
	})

	It("leaves the thinking's text out, its signature and billing kept, when display is omitted, whole and streamed with no thinking delta", func() {
		shown, err := c.Messages.New(ctx, ask(true))
		Expect(err).NotTo(HaveOccurred())
		omitted := ask(true)
		omitted.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{BudgetTokens: 1024, Display: sdk.ThinkingConfigEnabledDisplayOmitted}}
		whole, err := c.Messages.New(ctx, omitted)
		Expect(err).NotTo(HaveOccurred())
		Expect(whole.Content).To(HaveLen(2))
		Expect(whole.Content[0].Type).To(Equal("thinking"))
		Expect(whole.Content[0].Thinking).To(BeEmpty())
		Expect(whole.Content[0].Signature).NotTo(BeEmpty(), "the signature carries the thinking on")
		Expect(whole.Usage.OutputTokens).To(Equal(shown.Usage.OutputTokens), "omitted thinking is billed as shown thinking is")

		stream := c.Messages.NewStreaming(ctx, omitted)
		var streamed sdk.Message
		var deltas []string
		for stream.Next() {
			ev := stream.Current()
			if ev.Type == "content_block_delta" {
				deltas = append(deltas, ev.Delta.Type)
			}
			Expect(streamed.Accumulate(ev)).To(Succeed())
		}
		Expect(stream.Err()).NotTo(HaveOccurred())
		Expect(deltas).To(ContainElement("signature_delta"))
		Expect(deltas).NotTo(ContainElement("thinking_delta"))
		Expect(streamed.Content[0].Thinking).To(BeEmpty())
		Expect(streamed.Content[0].Signature).NotTo(BeEmpty())
		Expect(streamed.Usage.OutputTokens).To(Equal(whole.Usage.OutputTokens))

		// Sent back with its empty thinking, the answer continues the loop.
		use := whole.Content[1].AsToolUse()
		_, err = c.Messages.New(ctx, ask(true, whole.ToParam(), sdk.NewUserMessage(sdk.NewToolResultBlock(use.ID, "26.4", false))))
		Expect(err).NotTo(HaveOccurred())
	})

	It("refuses, in the API's words, a tool result for an answer sent back without its thinking, and takes it with", func() {
		first, err := c.Messages.New(ctx, ask(true))
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Content).To(HaveLen(2), "its thinking and its call")
		use := first.Content[1].AsToolUse()
		result := sdk.NewUserMessage(sdk.NewToolResultBlock(use.ID, "26.4", false))

		_, err = c.Messages.New(ctx, ask(true, sdk.NewAssistantMessage(sdk.NewToolUseBlock(use.ID, use.Input, use.Name)), result))
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(err.Error()).To(ContainSubstring("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block"))

		_, err = c.Messages.New(ctx, ask(true, first.ToParam(), result))
		Expect(err).NotTo(HaveOccurred(), "the answer as it came, its thinking first")
		_, err = c.Messages.New(ctx, ask(false, sdk.NewAssistantMessage(sdk.NewToolUseBlock(use.ID, use.Input, use.Name)), result))
		Expect(err).NotTo(HaveOccurred(), "without thinking, no thinking is asked for")
	})
})
