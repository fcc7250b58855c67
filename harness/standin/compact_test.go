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

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("the Responses API's compaction", func() {
	var (
		c   sdk.Client
		ctx = context.Background()
		// result is a long tool result, which a compaction clips.
		result = "26.4 °C near Keelung; " + strings.Repeat("hourly readings steady; ", 60)
	)

	BeforeEach(func() {
		c = echoOpenAI()
	})

	It("keeps a conversation's user messages and one compaction item, read as the summary it carries, with the official SDK", func() {
		first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}})
		Expect(err).NotTo(HaveOccurred())
		call := first.Output[0].AsFunctionCall()
		compacted, err := c.Responses.Compact(ctx, responses.ResponseCompactParams{Model: gpt, PreviousResponseID: sdk.String(first.ID),
			Input: responses.ResponseCompactParamsInputUnion{OfResponseInputItemArray: []responses.ResponseInputItemUnionParam{callOutput(call.CallID, result)}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(compacted.Object)).To(Equal("response.compaction"))
		Expect(compacted.Output).To(HaveLen(2))
		Expect(compacted.Output[0].Type).To(Equal("message"))
		Expect(string(compacted.Output[0].Role)).To(Equal("user"))
		Expect(compacted.Output[0].Content[0].Text).To(Equal("call get_sst"))
		Expect(compacted.Output[1].Type).To(Equal("compaction"))
		Expect(compacted.Output[1].EncryptedContent).NotTo(BeEmpty())
		Expect(compacted.Usage.InputTokens).To(BeNumerically(">", compacted.Usage.OutputTokens), "the summary is shorter than the conversation")
		Expect(compacted.Usage.OutputTokens).To(BeNumerically(">", 0))

		next, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), Input: inputItems(
			responses.ResponseInputItemParamOfMessage("call get_sst", responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfCompaction(compacted.Output[1].EncryptedContent),
			responses.ResponseInputItemParamOfMessage("and tomorrow?", responses.EasyInputMessageRoleUser))})
		Expect(err).NotTo(HaveOccurred())
		msgs := echoed(next).Messages
		Expect(msgs).To(HaveLen(4))
		Expect(msgs[1]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "call get_sst"}))
		Expect(msgs[2].Role).To(Equal(llm.RoleAssistant))
		Expect(msgs[2].Content).To(ContainSubstring(`the assistant called get_sst with {"lon":121.5,"lat":25,"n":1}`))
		Expect(msgs[2].Content).To(ContainSubstring("get_sst returned: 26.4 °C near Keelung; hourly"))
		Expect(len(msgs[2].Content)).To(BeNumerically("<", len(result)), "the tool result clipped")
		Expect(msgs[3]).To(Equal(llm.Message{Role: llm.RoleUser, Content: "and tomorrow?"}))
	})

	It("compacts an input given whole alike", func() {
		compacted, err := c.Responses.Compact(ctx, responses.ResponseCompactParams{Model: gpt, Input: responses.ResponseCompactParamsInputUnion{
			OfResponseInputItemArray: []responses.ResponseInputItemUnionParam{
				responses.ResponseInputItemParamOfMessage("one", responses.EasyInputMessageRoleUser),
				responses.ResponseInputItemParamOfMessage("an answer", responses.EasyInputMessageRoleAssistant),
				responses.ResponseInputItemParamOfMessage("two", responses.EasyInputMessageRoleUser)}}})
		Expect(err).NotTo(HaveOccurred())
		var kinds []string
		for _, it := range compacted.Output {
			kinds = append(kinds, it.Type+" "+string(it.Role))
		}
		Expect(kinds).To(Equal([]string{"message user", "message user", "compaction "}))
	})

	It("refuses a compaction item it did not make, and a compaction without a model, with 400", func() {
		_, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), Input: inputItems(
			responses.ResponseInputItemParamOfCompaction("gAAAAAnot-ours"),
			responses.ResponseInputItemParamOfMessage("and tomorrow?", responses.EasyInputMessageRoleUser))})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(ContainSubstring("could not be verified"))

		_, err = c.Responses.Compact(ctx, responses.ResponseCompactParams{Input: responses.ResponseCompactParamsInputUnion{OfString: sdk.String("hello")}})
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(ContainSubstring("'model'"))
	})
})

var _ = Describe("server-side compaction (context_management)", func() {
	var (
		c      sdk.Client
		ctx    = context.Background()
		result = "26.4 °C near Keelung; " + strings.Repeat("hourly readings steady; ", 60)
		// compactAt asks for compaction past n input tokens.
		compactAt = func(n int64) []responses.ResponseNewParamsContextManagement {
			return []responses.ResponseNewParamsContextManagement{{Type: "compaction", CompactThreshold: sdk.Int(n)}}
		}
	)

	BeforeEach(func() {
		c = echoOpenAI()
	})

	// answered asks for get_sst and answers it with result, asking for
	// compaction past threshold tokens when above 0.
	answered := func(threshold int64) *responses.Response {
		GinkgoHelper()
		first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}})
		Expect(err).NotTo(HaveOccurred())
		params := responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), PreviousResponseID: sdk.String(first.ID),
			Input: inputItems(callOutput(first.Output[0].AsFunctionCall().CallID, result)), Tools: []responses.ToolUnionParam{sdkSST}}
		if threshold > 0 {
			params.ContextManagement = compactAt(threshold)
		}
		second, err := c.Responses.New(ctx, params)
		Expect(err).NotTo(HaveOccurred())
		return second
	}

	It("compacts a conversation past its threshold before answering, giving the compaction item first, with the official SDK", func() {
		second := answered(50)
		Expect(second.Output[0].Type).To(Equal("compaction"))
		Expect(second.Output[0].EncryptedContent).NotTo(BeEmpty())
		msgs := echoed(second).Messages
		Expect(msgs).To(HaveLen(4), "the system prompt, the summary, the call and its result")
		Expect(msgs[1].Role).To(Equal(llm.RoleAssistant))
		Expect(msgs[1].Content).To(ContainSubstring("the user asked: call get_sst"))
		Expect(msgs[2].ToolCalls).To(HaveLen(1), "the newest input keeps the call its result answers")
		Expect(msgs[3].Content).To(Equal(result))

		Expect(msgs[1].Content).NotTo(ContainSubstring("returned"), "the newest input read whole, not summarized")

		next, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), Input: inputItems(
			responses.ResponseInputItemParamOfCompaction(second.Output[0].EncryptedContent),
			responses.ResponseInputItemParamOfMessage("and tomorrow?", responses.EasyInputMessageRoleUser))})
		Expect(err).NotTo(HaveOccurred())
		carried := echoed(next).Messages[1]
		Expect(carried.Content).To(ContainSubstring("the user asked: call get_sst"))
		Expect(carried.Content).To(ContainSubstring("get_sst returned: 26.4 °C near Keelung"), "its item stands for the whole conversation, the newest input too")

		continued, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			PreviousResponseID: sdk.String(second.ID), Input: userInput("and tomorrow?")})
		Expect(err).NotTo(HaveOccurred())
		Expect(echoed(continued).Messages[1]).To(Equal(carried), "continued from its compaction item")
	})

	It("answers as it would without compaction below the threshold", func() {
		Expect(answered(1 << 20).Output[0].Type).NotTo(Equal("compaction"))
	})

	It("streams the compaction item first", func() {
		first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt),
			Input: userInput("call get_sst"), Tools: []responses.ToolUnionParam{sdkSST}})
		Expect(err).NotTo(HaveOccurred())
		st := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), PreviousResponseID: sdk.String(first.ID),
			Input: inputItems(callOutput(first.Output[0].AsFunctionCall().CallID, result)), ContextManagement: compactAt(50)})
		var added []string
		var done responses.Response
		for st.Next() {
			switch ev := st.Current(); ev.Type {
			case "response.output_item.added":
				added = append(added, ev.Item.Type)
			case "response.completed":
				done = ev.Response
			}
		}
		Expect(st.Err()).NotTo(HaveOccurred())
		Expect(added).To(HaveExactElements("compaction", "message"))
		Expect(done.Output[0].Type).To(Equal("compaction"))
	})

	It("refuses a context management entry other than compaction with 400", func() {
		_, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: gpt, Instructions: sdk.String(echoPrompt), Input: userInput("hello"),
			ContextManagement: []responses.ResponseNewParamsContextManagement{{Type: "truncation"}}})
		var apiErr *sdk.Error
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(ContainSubstring("'compaction'"))
	})
})
