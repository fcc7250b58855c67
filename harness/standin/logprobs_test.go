package standin_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/tokens"
)

// logprobsText is a user message whose echo holds characters that take
// more than one token each.
const logprobsText = "rate it 1-5: 🌍 naïve"

// answerTokens cuts text as the stand-in does (o200k_base).
func answerTokens(text string) []string {
	GinkgoHelper()
	c, err := tokens.New(tokens.EncodingO200K)
	Expect(err).NotTo(HaveOccurred())
	return c.Tokens(text)
}

var _ = Describe("token log probabilities, when the request asks for them", func() {
	var srv *standin.Server
	client := func() *sdk.Client {
		c := officialOpenAI(srv)
		return &c
	}
	BeforeEach(func() {
		srv = startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
	})

	Describe("in Chat Completions", func() {
		params := func(user string, top int64) sdk.ChatCompletionNewParams {
			p := sdk.ChatCompletionNewParams{Model: gpt, Logprobs: sdk.Bool(true),
				Messages: []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(echoPrompt), sdk.UserMessage(user)}}
			if top >= 0 {
				p.TopLogprobs = sdk.Int(top)
			}
			return p
		}

		It("gives each token of the answer, which join into its text, with log probability 0 and itself as its one alternative", func() {
			resp, err := client().Chat.Completions.New(context.Background(), params(logprobsText, 3))
			Expect(err).NotTo(HaveOccurred())
			Expect(sdkShapeProblems(reflect.ValueOf(resp), "completion")).To(BeEmpty(), "raw %s", resp.RawJSON())
			text := resp.Choices[0].Message.Content
			want := answerTokens(text)
			got := resp.Choices[0].Logprobs.Content
			Expect(got).To(HaveLen(len(want)))
			Expect(len(want)).To(BeEquivalentTo(resp.Usage.CompletionTokens), "as many tokens as the usage counts")
			var joined []byte
			partial := 0
			for i, t := range got {
				b := make([]byte, len(t.Bytes))
				for j, v := range t.Bytes {
					b[j] = byte(v)
				}
				Expect(string(b)).To(Equal(want[i]), "token %d's bytes", i)
				joined = append(joined, b...)
				Expect(t.Logprob).To(BeZero())
				Expect(t.TopLogprobs).To(HaveLen(1))
				Expect(t.TopLogprobs[0].Token).To(Equal(t.Token))
				if strings.HasPrefix(t.Token, "bytes:") {
					partial++
					Expect(t.Token).To(HavePrefix(`bytes:\x`))
				} else {
					Expect(t.Token).To(Equal(want[i]))
				}
			}
			Expect(string(joined)).To(Equal(text))
			Expect(partial).To(BeNumerically(">", 0), "the globe takes more than one token: %q", want)
		})

		It("gives no alternatives when top_logprobs is not asked, and null logprobs when logprobs is not", func() {
			resp, err := client().Chat.Completions.New(context.Background(), params("hello", -1))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Choices[0].Logprobs.Content).NotTo(BeEmpty())
			for _, t := range resp.Choices[0].Logprobs.Content {
				Expect(t.TopLogprobs).To(BeEmpty())
			}
			plain := params("hello", -1)
			plain.Logprobs = sdk.Bool(false)
			resp, err = client().Chat.Completions.New(context.Background(), plain)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Choices[0].JSON.Logprobs.Raw()).To(Equal("null"))
		})

		It("gives null content to an answer that only calls tools", func() {
			p := params("call get_sst", 0)
			p.Tools = []sdk.ChatCompletionToolUnionParam{sdk.ChatCompletionFunctionTool(sdk.FunctionDefinitionParam{Name: "get_sst"})}
			resp, err := client().Chat.Completions.New(context.Background(), p)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Choices[0].Message.ToolCalls).To(HaveLen(1))
			Expect(resp.Choices[0].Logprobs.JSON.Content.Raw()).To(Equal("null"))
		})

		It("streams a token a chunk, each with its log probability, the same tokens as the whole answer's", func() {
			whole, err := client().Chat.Completions.New(context.Background(), params(logprobsText, 1))
			Expect(err).NotTo(HaveOccurred())
			s := client().Chat.Completions.NewStreaming(context.Background(), params(logprobsText, 1))
			var acc sdk.ChatCompletionAccumulator
			var streamed []string
			for s.Next() {
				c := s.Current()
				Expect(acc.AddChunk(c)).To(BeTrue())
				Expect(c.Choices).To(HaveLen(1), "no usage chunk was asked for: %s", c.RawJSON())
				if c.Choices[0].Delta.Content == "" {
					Expect(c.Choices[0].JSON.Logprobs.Raw()).To(Equal("null"), "a chunk without text: %s", c.RawJSON())
					continue
				}
				// A token a chunk; a character that takes several tokens
				// comes whole, with them all.
				var text []byte
				for _, t := range c.Choices[0].Logprobs.Content {
					streamed = append(streamed, t.Token)
					for _, b := range t.Bytes {
						text = append(text, byte(b))
					}
				}
				Expect(string(text)).To(Equal(c.Choices[0].Delta.Content), "the chunk's tokens are its text: %s", c.RawJSON())
			}
			Expect(s.Err()).NotTo(HaveOccurred())
			Expect(acc.Choices[0].Message.Content).To(Equal(whole.Choices[0].Message.Content))
			var want []string
			for _, t := range whole.Choices[0].Logprobs.Content {
				want = append(want, t.Token)
			}
			Expect(streamed).To(Equal(want))
		})
	})

	Describe("in the Responses API", func() {
		params := func(top int64) responses.ResponseNewParams {
			return responses.ResponseNewParams{Input: userInput(logprobsText), TopLogprobs: sdk.Int(top),
				Include: []responses.ResponseIncludable{responses.ResponseIncludableMessageOutputTextLogprobs}}
		}

		It("gives the output text's tokens when include names message.output_text.logprobs, and echoes top_logprobs", func() {
			resp := sdkResponse(srv, params(2))
			Expect(resp.TopLogprobs).To(BeEquivalentTo(2))
			text := resp.Output[0].Content[0]
			want := answerTokens(text.Text)
			Expect(text.Logprobs).To(HaveLen(len(want)))
			for i, t := range text.Logprobs {
				b := make([]byte, len(t.Bytes))
				for j, v := range t.Bytes {
					b[j] = byte(v)
				}
				Expect(string(b)).To(Equal(want[i]))
				Expect(t.Logprob).To(BeZero())
				Expect(t.TopLogprobs).To(HaveLen(1))
			}
			plain := sdkResponse(srv, responses.ResponseNewParams{Input: userInput(logprobsText)})
			Expect(plain.Output[0].Content[0].Logprobs).To(BeEmpty())
		})

		It("refuses more than 20 alternatives a token", func() {
			c := officialOpenAI(srv)
			p := params(21)
			p.Model, p.Instructions = gpt, sdk.String(echoPrompt)
			_, err := c.Responses.New(context.Background(), p)
			var apiErr *sdk.Error
			Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
			Expect(apiErr.StatusCode).To(Equal(http.StatusBadRequest))
			Expect(apiErr.Message).To(ContainSubstring("top_logprobs"))
		})

		It("streams a token a delta, each with its log probability; output_text.done has them all, the content part none", func() {
			c := officialOpenAI(srv)
			p := params(0)
			p.Model, p.Instructions = gpt, sdk.String(echoPrompt)
			whole := sdkResponse(srv, params(0))
			s := c.Responses.NewStreaming(context.Background(), p)
			var streamed, done []string
			for s.Next() {
				e := s.Current()
				// A recorded stream's deltas give each token's bytes, which
				// the SDK's type of a delta's logprob lacks.
				Expect(sdkShapeProblems(reflect.ValueOf(e), "event", append(slices.Clone(responsesDiffers), "bytes")...)).To(BeEmpty(), "event: %s", e.RawJSON())
				switch e.Type {
				case "response.output_text.delta":
					d := e.AsResponseOutputTextDelta()
					partial := false
					var text string
					for _, t := range d.Logprobs {
						streamed = append(streamed, t.Token)
						partial = partial || strings.HasPrefix(t.Token, "bytes:")
						text += t.Token
					}
					if partial {
						Expect(len(d.Logprobs)).To(BeNumerically(">", 1), "a character that takes several tokens comes whole, with them all: %s", e.RawJSON())
					} else {
						Expect(d.Logprobs).To(HaveLen(1), "a token a delta: %s", e.RawJSON())
						Expect(text).To(Equal(d.Delta))
					}
				case "response.output_text.done":
					for _, t := range e.AsResponseOutputTextDone().Logprobs {
						done = append(done, t.Token)
					}
				case "response.content_part.added", "response.content_part.done":
					Expect(e.Part.Logprobs).To(BeEmpty(), "%s", e.RawJSON())
				}
			}
			Expect(s.Err()).NotTo(HaveOccurred())
			Expect(done).To(Equal(streamed))
			var want []string
			for _, t := range whole.Output[0].Content[0].Logprobs {
				want = append(want, t.Token)
			}
			Expect(streamed).To(Equal(want))
		})
	})
})

var _ = Describe("token log probabilities in Gemini's answers (responseLogprobs)", func() {
	var c *genai.Client
	BeforeEach(func() {
		srv := startStandin(standin.Options{Policies: []standin.Policy{echo{}}})
		var err error
		c, err = officialGemini(srv)
		Expect(err).NotTo(HaveOccurred())
	})
	contents := []*genai.Content{genai.NewContentFromText(logprobsText, genai.RoleUser)}
	config := func(top *int32) *genai.GenerateContentConfig {
		return &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser), ResponseLogprobs: true, Logprobs: top}
	}
	// chosen is the text of a candidate's chosen tokens, a token of part of
	// a character named by its bytes (<0xF0>).
	chosen := func(cand *genai.Candidate) (tokens []string) {
		for _, t := range cand.LogprobsResult.ChosenCandidates {
			Expect(t.LogProbability).To(BeZero())
			tokens = append(tokens, t.Token)
		}
		return tokens
	}

	It("gives each chosen token with its id and log probability 0, and itself as each step's one top candidate when logprobs asks", func() {
		resp, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(genai.Ptr[int32](3)))
		Expect(err).NotTo(HaveOccurred())
		cand := resp.Candidates[0]
		want := answerTokens(cand.Content.Parts[0].Text)
		Expect(cand.LogprobsResult.ChosenCandidates).To(HaveLen(len(want)))
		Expect(cand.AvgLogprobs).To(BeZero())
		var whole []string
		for i, t := range chosen(cand) {
			if strings.HasPrefix(t, "<0x") {
				Expect(want[i]).NotTo(Equal(t), "a part of a character: %q", want[i])
				continue
			}
			Expect(t).To(Equal(want[i]))
			whole = append(whole, t)
		}
		Expect(len(whole)).To(BeNumerically("<", len(want)), "the globe takes several tokens")
		Expect(cand.LogprobsResult.TopCandidates).To(HaveLen(len(want)))
		for i, step := range cand.LogprobsResult.TopCandidates {
			Expect(step.Candidates).To(HaveLen(1))
			Expect(step.Candidates[0].Token).To(Equal(cand.LogprobsResult.ChosenCandidates[i].Token))
			Expect(step.Candidates[0].TokenID).To(Equal(cand.LogprobsResult.ChosenCandidates[i].TokenID))
		}
	})

	It("gives no top candidates when logprobs is not asked, and no log probabilities when responseLogprobs is not", func() {
		resp, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(nil))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Candidates[0].LogprobsResult.ChosenCandidates).NotTo(BeEmpty())
		Expect(resp.Candidates[0].LogprobsResult.TopCandidates).To(BeEmpty())
		resp, err = c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(echoPrompt, genai.RoleUser)})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Candidates[0].LogprobsResult).To(BeNil())
	})

	It("streams a token a chunk, each with its log probabilities, the same tokens as the whole answer's", func() {
		whole, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(nil))
		Expect(err).NotTo(HaveOccurred())
		var streamed []string
		for chunk, err := range c.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", contents, config(nil)) {
			Expect(err).NotTo(HaveOccurred())
			cand := chunk.Candidates[0]
			if cand.Content.Parts[0].Text == "" {
				Expect(cand.LogprobsResult).To(BeNil(), "the last chunk")
				continue
			}
			streamed = append(streamed, chosen(cand)...)
		}
		Expect(streamed).To(Equal(chosen(whole.Candidates[0])))
	})

	It("refuses more than 20 top candidates a step", func() {
		_, err := c.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, config(genai.Ptr[int32](21)))
		var apiErr genai.APIError
		Expect(errors.As(err, &apiErr)).To(BeTrue(), "got %v", err)
		Expect(apiErr.Code).To(Equal(http.StatusBadRequest))
		Expect(apiErr.Message).To(ContainSubstring("logprobs"))
	})
})
