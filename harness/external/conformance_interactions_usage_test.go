package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// interactionUsage is an Interactions API usage with audio in and out,
// part of it read from the cache, as genai's interactions.Usage reads it:
// the tokens by modality beside the totals.
const interactionUsage = `{"total_input_tokens": 2600, "total_output_tokens": 500, "total_thought_tokens": 120, "total_cached_tokens": 1024, "total_tool_use_tokens": 0, "total_tokens": 3220,
	"input_tokens_by_modality": [{"modality": "text", "tokens": 600}, {"modality": "audio", "tokens": 2000}],
	"cached_tokens_by_modality": [{"modality": "text", "tokens": 512}, {"modality": "audio", "tokens": 512}],
	"output_tokens_by_modality": [{"modality": "text", "tokens": 80}, {"modality": "audio", "tokens": 420}]}`

// The Interactions API reports a call's audio by modality and the service
// tier that served it (service_tier flex, priority; standard), as
// generateContent reports audio in promptTokensDetails: the audio is read
// at the audio rates (the prompt's less what the cache gave, that apart as
// the cached reads' audio), the tier as
// the tier, so a call at a tier the table has no rates for is unpriced.
var _ = DescribeTable("the Interactions API's audio tokens by modality and its service tier are read",
	func(answer reply) {
		conform(geminiEndpoint, "$GEMINI_BASE_URL/v1beta/interactions", `{"model": "gemini-3.5-flash", "service_tier": "flex", "input": "What does the platform announcement say?"}`, answer,
			read{text: "Platform 4, in six minutes.", usage: llm.Usage{InputTokens: 2600, OutputTokens: 620, ReasoningTokens: 120, CacheReadTokens: 1024,
				CacheReadAudioTokens: 512, InputAudioTokens: 2000 - 512, OutputAudioTokens: 420, ServiceTier: "flex"}, finish: llm.FinishStop, raw: "completed"})
	},
	Entry("whole", whole(`{"id": "v1_au1", "object": "interaction", "model": "gemini-3.5-flash", "status": "completed", "service_tier": "flex",
		"steps": [{"type": "model_output", "content": [{"type": "text", "text": "Platform 4, in six minutes."}]}], "usage": `+interactionUsage+`}`)),
	Entry("streamed: interaction.completed's", chunks("",
		`{"event_type": "interaction.created", "interaction": {"id": "v1_au2", "model": "gemini-3.5-flash", "status": "in_progress", "service_tier": "flex"}}`,
		`{"event_type": "step.start", "index": 0, "step": {"type": "model_output"}}`,
		`{"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "Platform 4, in six minutes."}}`,
		`{"event_type": "step.stop", "index": 0}`,
		`{"event_type": "interaction.completed", "interaction": {"id": "v1_au2", "model": "gemini-3.5-flash", "status": "completed", "service_tier": "flex", "usage": `+interactionUsage+`}}`)),
)
