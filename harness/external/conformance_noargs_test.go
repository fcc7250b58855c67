package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// A Gemini function call with no args (a function of no parameters, its
// args left out as proto3's JSON leaves an unset field) is a call with no
// arguments: {}, as a request's history reads the same call
// (wire.Decode) and as genai reads it (a nil Args map), whole or streamed.
var _ = DescribeTable("a Gemini call without args is read with no arguments",
	func(url string, answer reply) {
		conform(geminiEndpoint, url, generateCall, answer, read{calls: []string{"ferry_times {}"}, usage: llm.Usage{InputTokens: 40, OutputTokens: 6},
			finish: llm.FinishToolCalls, raw: "STOP"})
	},
	Entry("whole", "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent",
		whole(candidate(`[{"functionCall": {"name": "ferry_times"}}]`, "STOP", plainUsage))),
	Entry("streamed", "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		chunks("", candidate(`[{"functionCall": {"name": "ferry_times"}}]`, "STOP", plainUsage))),
	Entry("whole, its args null", "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent",
		whole(candidate(`[{"functionCall": {"name": "ferry_times", "args": null}}]`, "STOP", plainUsage))),
)
