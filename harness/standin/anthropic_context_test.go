package standin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// contextEdits is the context_management field of a request asking for
// the edits given.
func contextEdits(edits ...map[string]any) option.RequestOption {
	return option.WithJSONSet("context_management", map[string]any{"edits": edits})
}

// echoedBeta is the Request the echo policy saw, from its answer's text.
func echoedBeta(msg *sdk.BetaMessage) standin.Request {
	GinkgoHelper()
	for _, b := range msg.Content {
		if b.Type == "text" {
			return seen(llm.Response{Message: llm.Message{Content: b.Text}})
		}
	}
	Fail(fmt.Sprintf("no text block in %s", msg.RawJSON()))
	return standin.Request{}
}

var _ = Describe("Anthropic's context management (context_management edits)", func() {
	var (
		srv *standin.Server
		c   sdk.Client
		ctx = context.Background()
	)

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
		c = officialSDK(srv)
	})

	// uses is a conversation of n get_sst uses, each answered with a
	// result of size bytes, then a question.
	uses := func(n, size int) []sdk.BetaMessageParam {
		msgs := []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("track the sea surface"))}
		for i := range n {
			id := fmt.Sprintf("toolu_%02d", i+1)
			msgs = append(msgs,
				sdk.BetaMessageParam{Role: sdk.BetaMessageParamRoleAssistant, Content: []sdk.BetaContentBlockParamUnion{
					sdk.NewBetaToolUseBlock(id, map[string]any{"lon": 121.5, "lat": 25, "n": i + 1}, "get_sst")}},
				sdk.NewBetaUserMessage(sdk.NewBetaToolResultBlock(id, fmt.Sprintf("reading %d: ", i+1)+strings.Repeat("steady; ", size/8), false)))
		}
		return append(msgs, sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("and the trend?")))
	}
	ask := func(msgs []sdk.BetaMessageParam, opts ...option.RequestOption) (*sdk.BetaMessage, error) {
		return c.Beta.Messages.New(ctx, sdk.BetaMessageNewParams{Model: claude, MaxTokens: 16_000, // the echo is long
			System: []sdk.BetaTextBlockParam{{Text: echoPrompt}}, Messages: msgs}, opts...)
	}
	// results are the contents of the tool results the echo policy saw.
	results := func(r standin.Request) []string {
		var out []string
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				out = append(out, m.Content)
			}
		}
		return out
	}

	DescribeTable("clear_tool_uses: past its trigger, every tool result but the latest kept ones reads a placeholder",
		func(edit map[string]any, cleared int, inputsCleared bool) {
			whole, err := ask(uses(5, 800))
			Expect(err).NotTo(HaveOccurred())
			msg, err := ask(uses(5, 800), contextEdits(edit))
			Expect(err).NotTo(HaveOccurred())

			got := results(echoedBeta(msg))
			Expect(got).To(HaveLen(5))
			for i, r := range got {
				if i < cleared {
					Expect(r).To(ContainSubstring("cleared"), "result %d", i+1)
				} else {
					Expect(r).To(HavePrefix(fmt.Sprintf("reading %d: steady;", i+1)), "result %d kept", i+1)
				}
			}
			calls := echoedBeta(msg).Messages[2].ToolCalls
			Expect(string(calls[0].Arguments) == `{}`).To(Equal(inputsCleared), "the first use's input")

			edits := msg.ContextManagement.AppliedEdits
			if cleared == 0 {
				Expect(edits).To(BeEmpty())
				Expect(msg.Usage.InputTokens).To(Equal(whole.Usage.InputTokens))
				return
			}
			Expect(edits).To(HaveLen(1))
			Expect(edits[0].Type).To(Equal("clear_tool_uses_20250919"))
			Expect(edits[0].ClearedToolUses).To(BeEquivalentTo(cleared))
			Expect(edits[0].ClearedInputTokens).To(BeNumerically(">", 100*cleared), "about 200 tokens a result")
			Expect(msg.Usage.InputTokens).To(Equal(whole.Usage.InputTokens-edits[0].ClearedInputTokens), "billed as edited")
		},
		Entry("by default (100,000 tokens) nothing here", map[string]any{"type": "clear_tool_uses_20250919"}, 0, false),
		Entry("past an input_tokens trigger, keeping 3 by default",
			map[string]any{"type": "clear_tool_uses_20250919", "trigger": map[string]any{"type": "input_tokens", "value": 500}}, 2, false),
		Entry("past a tool_uses trigger, keeping 1, inputs too",
			map[string]any{"type": "clear_tool_uses_20250919", "trigger": map[string]any{"type": "tool_uses", "value": 4},
				"keep": map[string]any{"type": "tool_uses", "value": 1}, "clear_tool_inputs": true}, 4, true),
		Entry("not under a tool_uses trigger",
			map[string]any{"type": "clear_tool_uses_20250919", "trigger": map[string]any{"type": "tool_uses", "value": 5}}, 0, false),
		Entry("not when it would clear fewer tokens than clear_at_least",
			map[string]any{"type": "clear_tool_uses_20250919", "trigger": map[string]any{"type": "input_tokens", "value": 500},
				"clear_at_least": map[string]any{"type": "input_tokens", "value": 5000}}, 0, false),
		Entry("with inputs of the tools clear_tool_inputs names",
			map[string]any{"type": "clear_tool_uses_20250919", "trigger": map[string]any{"type": "input_tokens", "value": 500},
				"clear_tool_inputs": []string{"get_sst"}}, 2, true),
	)

	It("clear_tool_uses keeps exclude_tools' results", func() {
		msg, err := ask(uses(5, 800), contextEdits(map[string]any{"type": "clear_tool_uses_20250919",
			"trigger": map[string]any{"type": "input_tokens", "value": 500}, "exclude_tools": []string{"get_sst"}}))
		Expect(err).NotTo(HaveOccurred())
		for _, r := range results(echoedBeta(msg)) {
			Expect(r).NotTo(ContainSubstring("cleared"))
		}
		Expect(msg.ContextManagement.AppliedEdits).To(BeEmpty())
	})

	It("clear_thinking says how many turns' thinking it cleared", func() {
		thought := func(id string) sdk.BetaMessageParam {
			return sdk.BetaMessageParam{Role: sdk.BetaMessageParamRoleAssistant, Content: []sdk.BetaContentBlockParamUnion{
				sdk.NewBetaThinkingBlock("sig", "Deciding."), sdk.NewBetaToolUseBlock(id, map[string]any{}, "get_sst")}}
		}
		msgs := []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("track it")),
			thought("toolu_1"), sdk.NewBetaUserMessage(sdk.NewBetaToolResultBlock("toolu_1", "26.4", false)),
			thought("toolu_2"), sdk.NewBetaUserMessage(sdk.NewBetaToolResultBlock("toolu_2", "26.5", false))}
		msg, err := ask(msgs, contextEdits(map[string]any{"type": "clear_thinking_20251015"}))
		Expect(err).NotTo(HaveOccurred())
		Expect(msg.ContextManagement.AppliedEdits).To(HaveLen(1))
		Expect(msg.ContextManagement.AppliedEdits[0].Type).To(Equal("clear_thinking_20251015"))
		Expect(msg.ContextManagement.AppliedEdits[0].ClearedThinkingTurns).To(BeEquivalentTo(1), "all but the latest turn's")

		for _, all := range []any{"all", map[string]any{"type": "all"}} {
			msg, err = ask(msgs, contextEdits(map[string]any{"type": "clear_thinking_20251015", "keep": all}))
			Expect(err).NotTo(HaveOccurred())
			Expect(msg.ContextManagement.AppliedEdits).To(BeEmpty(), "keep %v", all)
		}
	})

	DescribeTable("refuses edits the API refuses",
		func(edit map[string]any, want string) {
			resp, body := wirePost(srv, http.MethodPost, "/v1/messages", `{"model": "`+claude+`", "max_tokens": 64,
				"system": "`+echoPrompt+`", "messages": [{"role": "user", "content": "hi"}],
				"context_management": {"edits": [`+mustJSON(edit)+`]}}`)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "%s", body)
			Expect(string(body)).To(ContainSubstring(want))
		},
		Entry("an unknown type", map[string]any{"type": "clear_everything"}, `context_management.edits.0: Input tag 'clear_everything'`),
		Entry("a compaction trigger under 50,000 tokens",
			map[string]any{"type": "compact_20260112", "trigger": map[string]any{"type": "input_tokens", "value": 1000}},
			"context_management.edits.0.trigger.value: Input should be greater than or equal to 50000"),
		Entry("a clearing trigger of another unit",
			map[string]any{"type": "clear_tool_uses_20250919", "trigger": map[string]any{"type": "turns", "value": 3}},
			"context_management.edits.0.trigger.type"),
	)

	It("counts tokens as edited, with the count before the edits", func() {
		body := map[string]any{"model": claude, "system": echoPrompt, "messages": uses(5, 800),
			"context_management": map[string]any{"edits": []any{map[string]any{"type": "clear_tool_uses_20250919",
				"trigger": map[string]any{"type": "input_tokens", "value": 500}}}}}
		resp, raw := wirePost(srv, http.MethodPost, "/v1/messages/count_tokens", mustJSON(body))
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", raw)
		var count sdk.BetaMessageTokensCount
		Expect(json.Unmarshal(raw, &count)).To(Succeed())
		Expect(count.ContextManagement.OriginalInputTokens).To(BeNumerically(">", count.InputTokens+200))

		msg, err := ask(uses(5, 800), contextEdits(body["context_management"].(map[string]any)["edits"].([]any)[0].(map[string]any)))
		Expect(err).NotTo(HaveOccurred())
		Expect(msg.Usage.InputTokens).To(Equal(count.InputTokens), "as the call bills it")
	})

	Describe("compaction (compact_20260112)", func() {
		// long is a conversation past 50,000 tokens (two long tool results),
		// answered, and a new question.
		long := func() []sdk.BetaMessageParam {
			return append(uses(2, 120_000)[:5],
				sdk.BetaMessageParam{Role: sdk.BetaMessageParamRoleAssistant, Content: []sdk.BetaContentBlockParamUnion{sdk.NewBetaTextBlock("Steady so far.")}},
				sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("and the trend?")))
		}
		compact := func(pause bool) option.RequestOption {
			return contextEdits(map[string]any{"type": "compact_20260112", "trigger": map[string]any{"type": "input_tokens", "value": 50_000},
				"pause_after_compaction": pause})
		}

		It("compacts past its trigger: the answer starts with a compaction block, and a later request is read from it", func() {
			msg, err := ask(long(), compact(false))
			Expect(err).NotTo(HaveOccurred())
			Expect(msg.Content).To(HaveLen(2))
			block := msg.Content[0]
			Expect(block.Type).To(Equal("compaction"))
			Expect(block.Content.OfString).To(ContainSubstring("the user asked: track the sea surface"))
			Expect(block.Content.OfString).To(ContainSubstring("the user asked: and the trend?"), "it stands for the whole conversation")
			Expect(block.EncryptedContent).NotTo(BeEmpty())
			Expect(string(msg.StopReason)).To(Equal("end_turn"), "%d output tokens: %.300s", msg.Usage.OutputTokens, msg.Content[1].Text)

			read := echoedBeta(msg).Messages
			Expect(read).To(HaveLen(3), "system, the summary, the newest input")
			Expect(read[1].Role).To(Equal(llm.RoleAssistant))
			Expect(read[1].Content).To(ContainSubstring("get_sst returned: reading 1: steady;"))
			Expect(read[2]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "and the trend?"}))

			its := msg.Usage.Iterations
			Expect(its).To(HaveLen(2))
			Expect(its[0].Type).To(Equal("compaction"))
			Expect(its[0].InputTokens).To(BeNumerically(">", 50_000))
			Expect(its[1].Type).To(Equal("message"))
			Expect(its[1].InputTokens).To(Equal(msg.Usage.InputTokens), "the top-level counts are the answer's")
			Expect(msg.Usage.InputTokens).To(BeNumerically("<", 2_000))
			Expect(msg.ContextManagement.AppliedEdits).To(BeEmpty())

			next, err := ask(append(long(), msg.ToParam(), sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("and tomorrow?"))), compact(false))
			Expect(err).NotTo(HaveOccurred())
			Expect(next.Content[0].Type).To(Equal("text"), "under the trigger now")
			read = echoedBeta(next).Messages
			Expect(read).To(HaveLen(4), "the blocks before the compaction dropped")
			Expect(read[1]).To(Equal(llm.Message{Role: llm.RoleUser, Content: block.Content.OfString}))
			Expect(read[2].Role).To(Equal(llm.RoleAssistant))
			Expect(read[3]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "and tomorrow?"}))
		})

		It("pauses after compacting when asked: the compaction block alone, stop_reason compaction", func() {
			msg, err := ask(long(), compact(true))
			Expect(err).NotTo(HaveOccurred())
			Expect(msg.Content).To(HaveLen(1))
			Expect(msg.Content[0].Type).To(Equal("compaction"))
			Expect(string(msg.StopReason)).To(Equal("compaction"))
			Expect(msg.Usage.Iterations).To(HaveLen(1))
			Expect(msg.Usage.OutputTokens).To(BeZero())

			next, err := ask([]sdk.BetaMessageParam{msg.ToParam()}, compact(true))
			Expect(err).NotTo(HaveOccurred())
			read := echoedBeta(next).Messages
			Expect(read).To(HaveLen(2))
			Expect(read[1].Role).To(Equal(llm.RoleUser), "the summary, read where the dropped conversation was")
		})

		It("streams a paused compaction as the compaction block alone, whatever the model would have answered", func() {
			msgs := append(long()[:6], sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("call get_sst get_sst")))
			stream := c.Beta.Messages.NewStreaming(ctx, sdk.BetaMessageNewParams{Model: claude, MaxTokens: 16_000,
				System: []sdk.BetaTextBlockParam{{Text: echoPrompt}}, Messages: msgs}, compact(true))
			var streamed sdk.BetaMessage
			for stream.Next() {
				Expect(streamed.Accumulate(stream.Current())).To(Succeed())
			}
			Expect(stream.Err()).NotTo(HaveOccurred())
			Expect(streamed.Content).To(HaveLen(1))
			Expect(streamed.Content[0].Type).To(Equal("compaction"))
			Expect(string(streamed.StopReason)).To(Equal("compaction"))
			Expect(streamed.Usage.OutputTokens).To(BeZero())
		})

		It("streams the compaction block first, and the usage and edits in message_delta, as the whole answer has them", func() {
			whole, err := ask(long(), compact(false))
			Expect(err).NotTo(HaveOccurred())
			stream := c.Beta.Messages.NewStreaming(ctx, sdk.BetaMessageNewParams{Model: claude, MaxTokens: 16_000,
				System: []sdk.BetaTextBlockParam{{Text: echoPrompt}}, Messages: long()}, compact(false))
			var streamed sdk.BetaMessage
			for stream.Next() {
				Expect(streamed.Accumulate(stream.Current())).To(Succeed())
			}
			Expect(stream.Err()).NotTo(HaveOccurred())
			Expect(streamed.Content).To(HaveLen(2))
			Expect(streamed.Content[0].Type).To(Equal("compaction"))
			Expect(streamed.Content[0].Content.OfString).To(Equal(whole.Content[0].Content.OfString))
			Expect(streamed.Content[0].EncryptedContent).NotTo(BeEmpty())
			Expect(streamed.Content[1].Text).To(Equal(whole.Content[1].Text))
			Expect(streamed.Usage.Iterations).To(HaveLen(2))
			Expect(streamed.Usage.Iterations[0].InputTokens).To(Equal(whole.Usage.Iterations[0].InputTokens))
			Expect(streamed.ContextManagement.JSON.AppliedEdits.Valid()).To(BeTrue())
		})
	})
})

// mustJSON is v as JSON.
func mustJSON(v any) string {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}
