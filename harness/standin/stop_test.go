package standin_test

import (
	"context"
	"net/http"
	"strings"

	asdk "github.com/anthropics/anthropic-sdk-go"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
)

// The echo policy answers with the request it saw, as JSON: its text
// holds "Messages" after the model's name, where these specs stop it.
const stopAt = `"Messages"`

var _ = Describe("stop sequences, which the stand-in's answers end at as a model's do", func() {
	var srv *standin.Server
	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	Describe("in Chat Completions", func() {
		client := func() *sdk.Client {
			c := officialOpenAI(srv)
			return &c
		}
		params := func(stop ...string) sdk.ChatCompletionNewParams {
			return sdk.ChatCompletionNewParams{Model: gpt, Stop: sdk.ChatCompletionNewParamsStopUnion{OfStringArray: stop},
				Messages: []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(echoPrompt), sdk.UserMessage("hello")}}
		}

		It("ends the text before the first sequence it meets, finish_reason stop, and counts only what it wrote", func() {
			whole, err := client().Chat.Completions.New(context.Background(), params())
			Expect(err).NotTo(HaveOccurred())
			Expect(whole.Choices[0].Message.Content).To(ContainSubstring(stopAt))
			cut, err := client().Chat.Completions.New(context.Background(), params("no such text", stopAt))
			Expect(err).NotTo(HaveOccurred())
			text := cut.Choices[0].Message.Content
			Expect(text).NotTo(BeEmpty())
			Expect(whole.Choices[0].Message.Content).To(HavePrefix(text + stopAt))
			Expect(cut.Choices[0].FinishReason).To(Equal("stop"))
			Expect(cut.Usage.CompletionTokens).To(BeNumerically("<", whole.Usage.CompletionTokens))
		})

		It("streams the text up to the sequence", func() {
			cut, err := client().Chat.Completions.New(context.Background(), params(stopAt))
			Expect(err).NotTo(HaveOccurred())
			s := client().Chat.Completions.NewStreaming(context.Background(), params(stopAt))
			var acc sdk.ChatCompletionAccumulator
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			Expect(s.Err()).NotTo(HaveOccurred())
			Expect(acc.Choices[0].Message.Content).NotTo(ContainSubstring(stopAt))
			Expect(acc.Choices[0].Message.Content).To(Equal(cut.Choices[0].Message.Content))
			Expect(acc.Choices[0].FinishReason).To(Equal("stop"))
		})

		It("refuses more than four sequences, as the API does", func() {
			_, err := client().Chat.Completions.New(context.Background(), params("a", "b", "c", "d", "e"))
			var apiErr *sdk.Error
			Expect(err).To(BeAssignableToTypeOf(apiErr))
			apiErr = err.(*sdk.Error)
			Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
			Expect(apiErr.Param).To(Equal("stop"))
			Expect(apiErr.Code).To(Equal("array_above_max_length"))
		})
	})

	Describe("in Anthropic's Messages", func() {
		params := func(stop ...string) asdk.MessageNewParams {
			return asdk.MessageNewParams{Model: claude, MaxTokens: 512, StopSequences: stop,
				System:   []asdk.TextBlockParam{{Text: echoPrompt}},
				Messages: []asdk.MessageParam{asdk.NewUserMessage(asdk.NewTextBlock("hello"))}}
		}

		It("says stop_sequence and which sequence it met, whole and streamed", func() {
			c := officialSDK(srv)
			whole, err := c.Messages.New(context.Background(), params())
			Expect(err).NotTo(HaveOccurred())
			Expect(whole.StopReason).To(BeEquivalentTo("end_turn"))
			Expect(whole.JSON.StopSequence.Raw()).To(Equal("null"))
			cut, err := c.Messages.New(context.Background(), params(stopAt))
			Expect(err).NotTo(HaveOccurred())
			Expect(cut.StopReason).To(BeEquivalentTo("stop_sequence"))
			Expect(cut.StopSequence).To(Equal(stopAt))
			Expect(whole.Content[0].Text).To(HavePrefix(cut.Content[0].Text + stopAt))

			s := c.Messages.NewStreaming(context.Background(), params(stopAt))
			var acc asdk.Message
			for s.Next() {
				e := s.Current()
				if e.Type == "message_start" {
					Expect(e.Message.JSON.StopSequence.Raw()).To(Equal("null"), "not known when the message starts")
				}
				Expect(acc.Accumulate(e)).To(Succeed())
			}
			Expect(s.Err()).NotTo(HaveOccurred())
			Expect(acc.StopReason).To(BeEquivalentTo("stop_sequence"))
			Expect(acc.StopSequence).To(Equal(stopAt))
			Expect(acc.Content[0].Text).To(Equal(cut.Content[0].Text))
		})
	})

	Describe("in Gemini's generateContent", func() {
		It("ends the text before the sequence, finishReason STOP", func() {
			c, err := officialGemini(srv)
			Expect(err).NotTo(HaveOccurred())
			contents := []*genai.Content{genai.NewContentFromText("hello", genai.RoleUser)}
			config := func(stop ...string) *genai.GenerateContentConfig {
				return &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser), StopSequences: stop}
			}
			whole, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config())
			Expect(err).NotTo(HaveOccurred())
			cut, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(stopAt))
			Expect(err).NotTo(HaveOccurred())
			Expect(cut.Candidates[0].FinishReason).To(Equal(genai.FinishReasonStop))
			Expect(strings.HasPrefix(whole.Text(), cut.Text()+stopAt)).To(BeTrue(), "%q, then %q", cut.Text(), whole.Text())
		})
	})
})

var _ = Describe("a token limit, at which the stand-in's answers end as a model's do", func() {
	var srv *standin.Server
	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})
	// firstTokens is the first n tokens of text, as the stand-in cuts it.
	firstTokens := func(text string, n int) string {
		return strings.Join(answerTokens(text)[:n], "")
	}

	It("Chat Completions: the first max_tokens tokens, finish_reason length, the usage the limit; calls it had no room for never made", func() {
		c := officialOpenAI(srv)
		params := func(user string, limit int64) sdk.ChatCompletionNewParams {
			p := sdk.ChatCompletionNewParams{Model: gpt, Messages: []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(echoPrompt), sdk.UserMessage(user)},
				Tools: []sdk.ChatCompletionToolUnionParam{sdk.ChatCompletionFunctionTool(sdk.FunctionDefinitionParam{Name: "get_sst"})}}
			if limit > 0 {
				p.MaxTokens = sdk.Int(limit)
			}
			return p
		}
		whole, err := c.Chat.Completions.New(context.Background(), params("hello", 0))
		Expect(err).NotTo(HaveOccurred())
		cut, err := c.Chat.Completions.New(context.Background(), params("hello", 5))
		Expect(err).NotTo(HaveOccurred())
		Expect(cut.Choices[0].Message.Content).To(Equal(firstTokens(whole.Choices[0].Message.Content, 5)))
		Expect(cut.Choices[0].FinishReason).To(Equal("length"))
		Expect(cut.Usage.CompletionTokens).To(BeEquivalentTo(5))

		call, err := c.Chat.Completions.New(context.Background(), params("call get_sst", 0))
		Expect(err).NotTo(HaveOccurred())
		Expect(call.Choices[0].Message.ToolCalls).To(HaveLen(1))
		Expect(call.Usage.CompletionTokens).To(BeNumerically(">", 2))
		cut, err = c.Chat.Completions.New(context.Background(), params("call get_sst", 2))
		Expect(err).NotTo(HaveOccurred())
		Expect(cut.Choices[0].Message.ToolCalls).To(BeEmpty())
		Expect(cut.Choices[0].FinishReason).To(Equal("length"))
	})

	It("Anthropic: stop_reason max_tokens, whole and streamed", func() {
		c := officialSDK(srv)
		params := asdk.MessageNewParams{Model: claude, MaxTokens: 5, System: []asdk.TextBlockParam{{Text: echoPrompt}},
			Messages: []asdk.MessageParam{asdk.NewUserMessage(asdk.NewTextBlock("hello"))}}
		cut, err := c.Messages.New(context.Background(), params)
		Expect(err).NotTo(HaveOccurred())
		Expect(cut.StopReason).To(BeEquivalentTo("max_tokens"))
		Expect(cut.Usage.OutputTokens).To(BeEquivalentTo(5))
		s := c.Messages.NewStreaming(context.Background(), params)
		var acc asdk.Message
		for s.Next() {
			Expect(acc.Accumulate(s.Current())).To(Succeed())
		}
		Expect(s.Err()).NotTo(HaveOccurred())
		Expect(acc.StopReason).To(BeEquivalentTo("max_tokens"))
		Expect(acc.Content[0].Text).To(Equal(cut.Content[0].Text))
	})

	It("the Responses API: status incomplete for max_output_tokens", func() {
		resp := sdkResponse(srv, responses.ResponseNewParams{Input: userInput("hello"), MaxOutputTokens: sdk.Int(16)})
		Expect(resp.Status).To(Equal(responses.ResponseStatusIncomplete))
		Expect(resp.IncompleteDetails.Reason).To(BeEquivalentTo("max_output_tokens"))
		Expect(resp.Usage.OutputTokens).To(BeEquivalentTo(16))
	})

	It("Gemini: finishReason MAX_TOKENS", func() {
		c, err := officialGemini(srv)
		Expect(err).NotTo(HaveOccurred())
		resp, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", []*genai.Content{genai.NewContentFromText("hello", genai.RoleUser)},
			&genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser), MaxOutputTokens: 5})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Candidates[0].FinishReason).To(Equal(genai.FinishReasonMaxTokens))
		Expect(resp.UsageMetadata.CandidatesTokenCount).To(BeEquivalentTo(5))
	})
})
