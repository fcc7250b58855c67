package otlp_test

// The request settings a model call's span states: each as the
// conventions name and type it, and only when the request gave it.

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("a model call's request settings", func() {
	// answer is the span of the fixture's second model call, which gave
	// no settings, now given p.
	answer := func(p *trace.Params) map[string]string {
		GinkgoHelper()
		r := fixture()
		r.Suites[0].Variants[0].Scenarios[0].Events[4].LLM.Params = p
		for _, s := range export(r) {
			if s.attrs["testbed.llm.role"] == "answer" {
				return s.attrs
			}
		}
		Fail("no answer span")
		return nil
	}
	double := func(v float64) *float64 { return &v }
	sampling := []string{"gen_ai.request.top_p", "gen_ai.request.top_k", "gen_ai.request.stop_sequences", "gen_ai.request.seed",
		"gen_ai.request.frequency_penalty", "gen_ai.request.presence_penalty", "gen_ai.request.choice.count", "gen_ai.conversation.id"}

	DescribeTable("are stated as the conventions name and type them: top_p, top_k and the penalties doubles, seed and choice.count ints, stop_sequences a string array",
		func(p trace.Params, key, want string) {
			got := answer(&p)
			Expect(got).To(HaveKey(key))
			if strings.HasPrefix(want, "{") {
				// protojson writes a space after a comma or not, by
				// the binary: compare the values, not the text.
				Expect(got[key]).To(MatchJSON(want))
			} else {
				Expect(got[key]).To(Equal(want))
			}
		},
		Entry("top_p", trace.Params{Sampling: llm.Sampling{TopP: double(0.9)}}, "gen_ai.request.top_p", `{"doubleValue":0.9}`),
		Entry("top_k, a double though it counts tokens", trace.Params{Sampling: llm.Sampling{TopK: double(40)}}, "gen_ai.request.top_k", `{"doubleValue":40}`),
		Entry("stop sequences, one", trace.Params{Sampling: llm.Sampling{Stop: []string{"END"}}}, "gen_ai.request.stop_sequences",
			`{"arrayValue":{"values":[{"stringValue":"END"}]}}`),
		Entry("stop sequences, several", trace.Params{Sampling: llm.Sampling{Stop: []string{"forest", "lived"}}}, "gen_ai.request.stop_sequences",
			`{"arrayValue":{"values":[{"stringValue":"forest"},{"stringValue":"lived"}]}}`),
		Entry("a seed", trace.Params{Sampling: llm.Sampling{Seed: new(int)}}, "gen_ai.request.seed", `{"intValue":"0"}`),
		Entry("a frequency penalty", trace.Params{Sampling: llm.Sampling{FrequencyPenalty: double(0.5)}}, "gen_ai.request.frequency_penalty", `{"doubleValue":0.5}`),
		Entry("a presence penalty, negative", trace.Params{Sampling: llm.Sampling{PresencePenalty: double(-0.25)}}, "gen_ai.request.presence_penalty", `{"doubleValue":-0.25}`),
		Entry("several choices", trace.Params{Sampling: llm.Sampling{Choices: 3}}, "gen_ai.request.choice.count", `{"intValue":"3"}`),
		Entry("the provider's conversation", trace.Params{Conversation: "conv_harbour"}, "gen_ai.conversation.id", "conv_harbour"),
	)

	// embedSpan is the attributes of the span of an embeddings call that
	// asked asked of its vectors.
	embedSpan := func(asked llm.EmbedParams) map[string]string {
		GinkgoHelper()
		r := fixture()
		embed := trace.Event{Kind: trace.KindEmbed, Turn: 1, Embed: &trace.EmbedCall{Model: "text-embedding-3-small", EmbedParams: asked}}
		r.Suites[0].Variants[0].Scenarios[0].Events = []trace.Event{embed}
		return named(export(r), "embeddings text-embedding-3-small").attrs
	}

	DescribeTable("an embeddings call states what it asked of its vectors, each when it said: encoding formats a string array, dimensions an int",
		func(asked llm.EmbedParams, key, want string) {
			Expect(embedSpan(asked)[key]).To(MatchJSON(want))
		},
		Entry("encoding formats", llm.EmbedParams{Formats: []string{"base64"}}, "gen_ai.request.encoding_formats",
			`{"arrayValue":{"values":[{"stringValue":"base64"}]}}`),
		Entry("dimensions", llm.EmbedParams{Dimensions: 64}, "gen_ai.embeddings.dimension.count", `{"intValue":"64"}`),
	)

	It("an embeddings call that asked nothing of its vectors states neither", func() {
		Expect(embedSpan(llm.EmbedParams{})).NotTo(HaveKey("gen_ai.request.encoding_formats"))
		Expect(embedSpan(llm.EmbedParams{})).NotTo(HaveKey("gen_ai.embeddings.dimension.count"))
	})

	It("states none the request did not give, nor a choice count of one", func() {
		for _, p := range []*trace.Params{nil, {MaxTokens: 64}, {Sampling: llm.Sampling{Choices: 1}}} {
			got := answer(p)
			for _, k := range sampling {
				Expect(got).NotTo(HaveKey(k))
			}
		}
	})
})
