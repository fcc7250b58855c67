package external_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("an outside agent's request settings", func() {
	It("reach the model call read from its traffic as the request gave them, over Chat Completions", func() {
		api := &chatAPI{answers: []string{textAnswer}}
		tr := runOver(api, llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"}, nil,
			`curl -s -X POST "$OPENAI_BASE_URL/chat/completions" -H 'Content-Type: application/json' -d '{"model": "m",
			"messages": [{"role": "user", "content": "tide?"}], "temperature": 0.3, "top_p": 0.9, "stop": "END", "seed": 7,
			"frequency_penalty": 0.5, "presence_penalty": -0.25, "n": 2}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(1))
		temp, topP, fp, pp, seed := 0.3, 0.9, 0.5, -0.25, 7
		Expect(tr.calls[0].Temperature).To(Equal(&temp), "pointers are equal when what they point at is")
		Expect(tr.calls[0].Sampling).To(Equal(llm.Sampling{TopP: &topP, Stop: []string{"END"}, Seed: &seed,
			FrequencyPenalty: &fp, PresencePenalty: &pp, Choices: 2}))
	})

	It("name the provider's conversation a Responses API call is part of", func() {
		answer := fixedAnswer(`{"id": "resp_2", "object": "response", "status": "completed", "model": "gpt-4.1-mini",
			"conversation": {"id": "conv_harbour"}, "output": [{"type": "message", "id": "msg_2", "status": "completed", "role": "assistant",
			"content": [{"type": "output_text", "text": "High water at 14:52.", "annotations": []}]}]}`)
		tr := runResponses(answer, `curl -s -X POST "$OPENAI_BASE_URL/responses" -H 'Content-Type: application/json' -d '{"model": "gpt-4.1-mini",
			"input": "tide?", "top_p": 0.5, "conversation": "conv_harbour"}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(1))
		Expect(tr.calls[0].Conversation).To(Equal("conv_harbour"))
		topP := 0.5
		Expect(tr.calls[0].TopP).To(Equal(&topP))
	})

	It("reach the model call read from its traffic over Gemini's Interactions API", func() {
		tr := runOver(interactionsAPI(), llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-3.5-flash"}, nil,
			`curl -s -X POST "$GEMINI_BASE_URL/v1beta/interactions" -d '{"model": "gemini-3.5-flash", "input": "tide?",
			"generation_config": {"temperature": 0.4, "top_p": 0.85, "seed": 5, "frequency_penalty": 0.3, "presence_penalty": -0.5}}' >/dev/null`)
		Expect(tr.calls).To(HaveLen(1))
		temp, topP, fp, pp, seed := 0.4, 0.85, 0.3, -0.5, 5
		Expect(tr.calls[0].Temperature).To(Equal(&temp))
		Expect(tr.calls[0].Sampling).To(Equal(llm.Sampling{TopP: &topP, Seed: &seed, FrequencyPenalty: &fp, PresencePenalty: &pp}))
	})

	It("give an embeddings call the encoding format and dimensions it asked for", func() {
		answer := fixedAnswer(`{"object": "list", "model": "text-embedding-3-small", "data": [{"object": "embedding", "index": 0, "embedding": [0.5, 0.25]}],
			"usage": {"prompt_tokens": 2, "total_tokens": 2}}`)
		tr := runOver(answer, llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "m"}, nil,
			`curl -s -X POST "$OPENAI_BASE_URL/embeddings" -H 'Content-Type: application/json' -d '{"model": "text-embedding-3-small",
			"input": "tide", "encoding_format": "float", "dimensions": 2}' >/dev/null`)
		Expect(tr.embeds).To(Equal([]string{`text-embedding-3-small ["tide"] tokens=0 reported=2 formats=["float"] dimensions=2`}))
	})
})
