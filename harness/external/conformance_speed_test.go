package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// Anthropic's fast mode (a request's speed: fast) is billed at a premium
// over the model's standard rates, and the answer says the speed it ran
// at in usage.speed, as anthropic-sdk-go's Usage.Speed reads it: the call
// was served at the fast tier (beside a service tier other than the
// standard one), a call at the standard speed at its service tier alone.
var _ = DescribeTable("Anthropic's usage.speed fast is the tier that served the call",
	func(answer reply, tier string) {
		conform(anthropicEndpoint, "$ANTHROPIC_BASE_URL/v1/messages", messagesCall, answer,
			read{text: "At 14:30.", usage: llm.Usage{InputTokens: 300, OutputTokens: 20, ServiceTier: tier}, finish: llm.FinishStop, raw: "end_turn"})
	},
	Entry("whole", whole(message(`[{"type": "text", "text": "At 14:30."}]`, "end_turn",
		`{"input_tokens": 300, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 20, "service_tier": "standard", "speed": "fast"}`)), "fast"),
	Entry("whole, at the priority tier", whole(message(`[{"type": "text", "text": "At 14:30."}]`, "end_turn",
		`{"input_tokens": 300, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 20, "service_tier": "priority", "speed": "fast"}`)), "priority+fast"),
	Entry("whole, at the standard speed", whole(message(`[{"type": "text", "text": "At 14:30."}]`, "end_turn",
		`{"input_tokens": 300, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 20, "service_tier": "standard", "speed": "standard"}`)), ""),
	Entry("streamed: message_start's usage", events(
		messageStart(`{"input_tokens": 300, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1, "service_tier": "standard", "speed": "fast"}`),
		`{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "At 14:30."}}`,
		`{"type": "content_block_stop", "index": 0}`,
		`{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"input_tokens": 300, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 20}}`,
		`{"type": "message_stop"}`), "fast"),
)
