package gemini_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/gemini"
)

var _ = Describe("StreamResponse", func() {
	It("reads a prompt Gemini blocked, one chunk with no candidate, as the unstreamed call: no content, the prompt's tokens", func() {
		resp, err := gemini.StreamResponse([]byte(`data: {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 310, "totalTokenCount": 310}, "modelVersion": "gemini-2.5-flash"}` + "\r\n\r\n"))
		Expect(err).To(MatchError(llm.ErrNoContent))
		Expect(resp.Usage).To(Equal(llm.Usage{InputTokens: 310}))
		Expect(resp.FinishReason).To(Equal(llm.FinishContentFilter))
		Expect(resp.RawFinishReason).To(Equal("blockReason: SAFETY"))
	})

	It("still refuses a stream cut before any candidate's finishReason", func() {
		_, err := gemini.StreamResponse([]byte(`data: {"usageMetadata": {"promptTokenCount": 310, "totalTokenCount": 310}, "modelVersion": "gemini-2.5-flash"}` + "\r\n\r\n"))
		Expect(err).To(MatchError(gemini.ErrStreamEnded))
	})
})
