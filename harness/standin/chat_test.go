package standin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/wire"
)

// sdkChat asks srv for a chat completion of user through the official
// SDK, checks the answer's shape against the SDK's own types and returns
// it with its response header.
func sdkChat(srv *standin.Server, user string) (*sdk.ChatCompletion, http.Header) {
	GinkgoHelper()
	c := officialOpenAI(srv)
	var header *http.Response
	resp, err := c.Chat.Completions.New(context.Background(), sdk.ChatCompletionNewParams{
		Model: gpt,
		Messages: []sdk.ChatCompletionMessageParamUnion{
			sdk.SystemMessage(echoPrompt), sdk.UserMessage(user)},
		Tools: []sdk.ChatCompletionToolUnionParam{sdk.ChatCompletionFunctionTool(sdk.FunctionDefinitionParam{Name: "get_sst"})},
	}, option.WithResponseInto(&header))
	Expect(err).NotTo(HaveOccurred())
	Expect(sdkShapeProblems(reflect.ValueOf(resp), "completion")).To(BeEmpty(), "raw %s", resp.RawJSON())
	return resp, header.Header
}

var _ = Describe("the OpenAI Chat Completions wire format", func() {
	var srv *standin.Server

	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	Describe("decoded with the official SDK's types", func() {
		It("answers text with every field the reference shows: refusal, logprobs, service tier, fingerprint, token details", func() {
			resp, _ := sdkChat(srv, "hello there")
			Expect(resp.JSON.ServiceTier.Raw()).To(Equal(`"default"`))
			Expect(resp.SystemFingerprint).To(Equal(wire.SystemFingerprint)) //lint:ignore SA1019 deprecated in the SDK, still sent by the API
			Expect(resp.Choices[0].Message.JSON.Refusal.Raw()).To(Equal("null"))
			Expect(resp.Choices[0].JSON.Logprobs.Raw()).To(Equal("null"))
			Expect(resp.Choices[0].Message.Content).NotTo(BeEmpty())
			u := resp.Usage
			Expect(u.TotalTokens).To(Equal(u.PromptTokens + u.CompletionTokens))
			Expect(u.PromptTokensDetails.JSON.CachedTokens.Valid()).To(BeTrue())
			Expect(u.PromptTokensDetails.JSON.AudioTokens.Valid()).To(BeTrue())
			for _, f := range []interface{ Valid() bool }{u.CompletionTokensDetails.JSON.ReasoningTokens, u.CompletionTokensDetails.JSON.AudioTokens,
				u.CompletionTokensDetails.JSON.AcceptedPredictionTokens, u.CompletionTokensDetails.JSON.RejectedPredictionTokens} {
				Expect(f.Valid()).To(BeTrue(), "usage %s", u.RawJSON())
			}
		})

		It("answers only tool calls with content null, not an empty string", func() {
			resp, _ := sdkChat(srv, "call get_sst")
			Expect(resp.Choices[0].Message.JSON.Content.Raw()).To(Equal("null"))
			Expect(resp.Choices[0].Message.ToolCalls).To(HaveLen(1))
			Expect(resp.Choices[0].FinishReason).To(Equal("tool_calls"))
		})

		It("gives tool calls call_ ids of OpenAI's shape, its own for each answer, the same for the same request", func() {
			a, _ := sdkChat(srv, "call get_sst")
			b, _ := sdkChat(srv, "call get_sst now")
			again, _ := sdkChat(srv, "call get_sst")
			id := a.Choices[0].Message.ToolCalls[0].ID
			Expect(id).To(MatchRegexp(`^call_[0-9a-f]{24}$`))
			Expect(b.Choices[0].Message.ToolCalls[0].ID).NotTo(Equal(id))
			Expect(again.Choices[0].Message.ToolCalls[0].ID).To(Equal(id))
		})

		It("gives each distinct request its own chatcmpl- id and req_ request id, and the same request the same ones", func() {
			a, ha := sdkChat(srv, "hello there")
			b, hb := sdkChat(srv, "hello again")
			again, hagain := sdkChat(srv, "hello there")
			Expect(a.ID).To(MatchRegexp(`^chatcmpl-[0-9a-f]{29}$`))
			Expect(ha.Get("X-Request-Id")).To(MatchRegexp(`^req_[0-9a-f]{32}$`))
			Expect(b.ID).NotTo(Equal(a.ID))
			Expect(hb.Get("X-Request-Id")).NotTo(Equal(ha.Get("X-Request-Id")))
			Expect(again.ID).To(Equal(a.ID))
			Expect(hagain.Get("X-Request-Id")).To(Equal(ha.Get("X-Request-Id")))
		})
	})

	Describe("a request for n choices", func() {
		params := func(n int64) sdk.ChatCompletionNewParams {
			return sdk.ChatCompletionNewParams{Model: gpt, N: sdk.Int(n),
				Messages: []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(echoPrompt), sdk.UserMessage("hello there")}}
		}
		client := func() *sdk.Client {
			c := officialOpenAI(srv)
			return &c
		}

		It("answers n choices, each the same answer, and counts every choice's tokens", func() {
			one, err := client().Chat.Completions.New(context.Background(), params(1))
			Expect(err).NotTo(HaveOccurred())
			three, err := client().Chat.Completions.New(context.Background(), params(3))
			Expect(err).NotTo(HaveOccurred())
			Expect(sdkShapeProblems(reflect.ValueOf(three), "completion")).To(BeEmpty(), "raw %s", three.RawJSON())
			Expect(three.Choices).To(HaveLen(3))
			for i, c := range three.Choices {
				Expect(c.Index).To(BeEquivalentTo(i))
				Expect(c.Message.Content).To(Equal(three.Choices[0].Message.Content))
				Expect(c.FinishReason).To(Equal("stop"))
			}
			Expect(three.Usage.PromptTokens).To(Equal(one.Usage.PromptTokens))
			Expect(three.Usage.CompletionTokens).To(Equal(3 * one.Usage.CompletionTokens))
		})

		It("streams each chunk once per choice, which the SDK's accumulator gathers into n choices", func() {
			p := params(2)
			p.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
			s := client().Chat.Completions.NewStreaming(context.Background(), p)
			var acc sdk.ChatCompletionAccumulator
			for s.Next() {
				Expect(acc.AddChunk(s.Current())).To(BeTrue())
			}
			Expect(s.Err()).NotTo(HaveOccurred())
			Expect(acc.Choices).To(HaveLen(2))
			Expect(acc.Choices[1].Message.Content).To(Equal(acc.Choices[0].Message.Content))
			Expect(acc.Choices[1].FinishReason).To(Equal("stop"))
			whole, err := client().Chat.Completions.New(context.Background(), params(2))
			Expect(err).NotTo(HaveOccurred())
			Expect(acc.Usage.CompletionTokens).To(Equal(whole.Usage.CompletionTokens))
		})
	})

	It("writes chunks with the completion's id, service tier and fingerprint, and usage with its token details", func() {
		_, body := openAIStreamer.post(srv, "call get_sst get_date", "")
		events := stream.Parse(body)
		var id string
		for i, e := range events[:len(events)-1] {
			var chunk sdk.ChatCompletionChunk
			Expect(json.Unmarshal(e.Data, &chunk)).To(Succeed())
			Expect(sdkShapeProblems(reflect.ValueOf(chunk), "chunk")).To(BeEmpty(), "event %d: %s", i, e.Data)
			if i == 0 {
				id = chunk.ID
			}
			Expect(chunk.ID).To(Equal(id))
			Expect(chunk.ID).To(MatchRegexp(`^chatcmpl-[0-9a-f]{29}$`))
			Expect(chunk.JSON.ServiceTier.Raw()).To(Equal(`"default"`))
			Expect(chunk.SystemFingerprint).To(Equal(wire.SystemFingerprint)) //lint:ignore SA1019 deprecated in the SDK, still sent by the API
		}
		usage := events[len(events)-2].Data
		Expect(string(usage)).To(ContainSubstring(`"completion_tokens_details":{`))
		Expect(string(usage)).To(ContainSubstring(`"prompt_tokens_details":{`))
	})

	Describe("paths it cannot serve", func() {
		DescribeTable("answer in OpenAI's error shape, never a bare text",
			func(method, path string, status int) {
				resp, body := wirePost(srv, method, path, `{}`)
				Expect(resp.StatusCode).To(Equal(status), "body %s", body)
				Expect(resp.Header.Get("Content-Type")).To(HavePrefix("application/json"))
				e := openAIErrorOf(body)
				Expect(e.Message).To(ContainSubstring("stand-in"))
			},
			Entry("a model list by POST (it serves GET)", http.MethodPost, "/v1/models", http.StatusNotFound),
			Entry("a legacy completion", http.MethodPost, "/v1/completions", http.StatusNotFound),
			Entry("images", http.MethodPost, "/v1/images/generations", http.StatusNotFound),
		)
	})
})
