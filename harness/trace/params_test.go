package trace_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	// named apart from this package's llm event helper
	neutral "github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/trace"
)

var _ = Describe("ParamsOf", func() {
	It("keeps every setting the request gave, sampling and conversation included, as copies the agent cannot change after", func() {
		topP, seed := 0.9, 7
		req := neutral.Request{MaxTokens: 64, Conversation: "conv_harbour", Sampling: neutral.Sampling{
			TopP: &topP, Seed: &seed, Stop: []string{"END"}, Choices: 2}}
		p := trace.ParamsOf(req)
		topP, seed, req.Stop[0] = 0.1, 1, "changed"
		b, err := json.Marshal(p)
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(MatchJSON(`{"max_tokens": 64, "top_p": 0.9, "seed": 7, "stop": ["END"], "choices": 2, "conversation": "conv_harbour"}`))
	})

	DescribeTable("is nil when the request gives no setting, and not when it gives only one of the sampling ones",
		func(req neutral.Request, none bool) {
			Expect(trace.ParamsOf(req) == nil).To(Equal(none))
		},
		Entry("none", neutral.Request{Role: "router"}, true),
		Entry("an empty stop list", neutral.Request{Sampling: neutral.Sampling{Stop: []string{}}}, true),
		Entry("a stop sequence", neutral.Request{Sampling: neutral.Sampling{Stop: []string{"END"}}}, false),
		Entry("a top_k", neutral.Request{Sampling: neutral.Sampling{TopK: new(float64)}}, false),
		Entry("a frequency penalty", neutral.Request{Sampling: neutral.Sampling{FrequencyPenalty: new(float64)}}, false),
		Entry("a presence penalty", neutral.Request{Sampling: neutral.Sampling{PresencePenalty: new(float64)}}, false),
		Entry("a choice count", neutral.Request{Sampling: neutral.Sampling{Choices: 3}}, false),
		Entry("a conversation", neutral.Request{Conversation: "conv_harbour"}, false),
		Entry("an output", neutral.Request{Output: neutral.OutputText}, false),
	)

	DescribeTable("keeps the output asked for as output_type, and reads a report's json: true of before it as JSON output",
		func(req neutral.Request, kept, read string, want neutral.Output) {
			b, err := json.Marshal(trace.ParamsOf(req))
			Expect(err).NotTo(HaveOccurred())
			Expect(b).To(MatchJSON(kept))
			var back trace.Params
			Expect(json.Unmarshal(b, &back)).To(Succeed())
			Expect(&back).To(Equal(trace.ParamsOf(req)), "read back whole")
			var p trace.Params
			Expect(json.Unmarshal([]byte(read), &p)).To(Succeed())
			Expect(p.Output).To(Equal(want))
		},
		Entry("speech", neutral.Request{Output: neutral.OutputSpeech}, `{"output_type": "speech"}`, `{"output_type": "speech"}`, neutral.OutputSpeech),
		Entry("JSON", neutral.Request{Output: neutral.OutputJSON, MaxTokens: 8}, `{"max_tokens": 8, "output_type": "json"}`, `{"max_tokens": 8, "json": true}`, neutral.OutputJSON),
		Entry("JSON, written both ways", neutral.Request{Output: neutral.OutputJSON}, `{"output_type": "json"}`, `{"output_type": "json", "json": true}`, neutral.OutputJSON),
		Entry("nothing", neutral.Request{MaxTokens: 8}, `{"max_tokens": 8}`, `{"max_tokens": 8, "json": false}`, neutral.Output("")),
	)
})
