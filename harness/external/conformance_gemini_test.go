package external_test

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

// generateCall is a generateContent request offering the ferry tool and
// code execution, thoughts included.
const generateCall = `{"systemInstruction": {"parts": [{"text": "You plan ferry trips."}]}, "contents": [{"role": "user", "parts": [{"text": "Next boat to Vis?"}]}],
	"tools": [{"functionDeclarations": [{"name": "ferry_times", "parameters": {"type": "object", "properties": {"port": {"type": "string"}}}}]}, {"codeExecution": {}}],
	"generationConfig": {"thinkingConfig": {"includeThoughts": true}}}`

// candidate is a generateContent response of one candidate with parts,
// finishReason and usageMetadata as given.
func candidate(parts, finish, usage string) string {
	return `{"candidates": [{"content": {"role": "model", "parts": ` + parts + `}, "finishReason": "` + finish + `", "index": 0}],
		"usageMetadata": ` + usage + `, "modelVersion": "gemini-2.5-flash", "responseId": "Vis01"}`
}

// The usages of the examples.
const (
	// thinkingUsage read part of its prompt from a cache and thought.
	thinkingUsage = `{"promptTokenCount": 1830, "candidatesTokenCount": 24, "totalTokenCount": 2270, "cachedContentTokenCount": 1536, "thoughtsTokenCount": 416,
		"promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1830}], "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 1536}]}`
	// toolUsage ran code: the tool's prompt tokens beside the prompt's.
	toolUsage = `{"promptTokenCount": 120, "candidatesTokenCount": 80, "toolUsePromptTokenCount": 310, "thoughtsTokenCount": 40, "totalTokenCount": 550,
		"promptTokensDetails": [{"modality": "TEXT", "tokenCount": 120}], "toolUsePromptTokensDetails": [{"modality": "TEXT", "tokenCount": 310}]}`
	plainUsage = `{"promptTokenCount": 40, "candidatesTokenCount": 6, "totalTokenCount": 46}`
)

// The reads of the usages: thinking is output beside the candidates',
// the tool's prompt input beside the prompt's; the cache is part of the
// prompt.
var (
	thinkingRead = llm.Usage{InputTokens: 1830, OutputTokens: 24 + 416, ReasoningTokens: 416, CacheReadTokens: 1536}
	toolRead     = llm.Usage{InputTokens: 120 + 310, OutputTokens: 80 + 40, ReasoningTokens: 40}
	plainRead    = llm.Usage{InputTokens: 40, OutputTokens: 6}
)

// blocked is a prompt Gemini blocked: no candidate, the reason in
// promptFeedback, the prompt's tokens counted.
const blocked = `{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 1250, "totalTokenCount": 1250,
	"promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1250}]}, "modelVersion": "gemini-2.5-flash", "responseId": "Vis02"}`

var _ = DescribeTable("Gemini generateContent traffic is read as the API documents it",
	func(answer reply, want read) {
		conform(geminiEndpoint, "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent", generateCall, answer, want)
	},
	Entry("a thought, text and a function call with its signature: the text and the call, thoughts as output",
		whole(candidate(`[{"text": "**Timetable** The user wants the next sailing.", "thought": true}, {"text": "Checking the timetable."},
			{"functionCall": {"name": "ferry_times", "args": {"port": "Split"}}, "thoughtSignature": "CiIBVKhc7oU3"}]`, "STOP", thinkingUsage)),
		read{text: "Checking the timetable.", calls: []string{`ferry_times {"port":"Split"}`}, usage: thinkingRead, finish: llm.FinishToolCalls, raw: "STOP"}),
	Entry("code run on the server and its result, then text: the text only, the tool's prompt tokens as input",
		whole(candidate(`[{"text": "I will compute it."}, {"executableCode": {"language": "PYTHON", "code": "print(16*60+50 - (14*60+30))"}},
			{"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "140\n"}}, {"text": " The crossing takes 140 minutes."}]`, "STOP", toolUsage)),
		read{text: "I will compute it. The crossing takes 140 minutes.", usage: toolRead, finish: llm.FinishStop, raw: "STOP"}),
	Entry("an image part beside the text: the text only", whole(candidate(`[{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}, {"text": "Here is the route."}]`, "STOP", plainUsage)),
		read{text: "Here is the route.", usage: plainRead, finish: llm.FinishStop, raw: "STOP"}),
	Entry("cut at the token limit", whole(candidate(`[{"text": "The next boat"}]`, "MAX_TOKENS", plainUsage)),
		read{text: "The next boat", usage: plainRead, finish: llm.FinishLength, raw: "MAX_TOKENS"}),
	Entry("stopped for safety with no content", whole(`{"candidates": [{"finishReason": "SAFETY", "index": 0, "safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}]}],
		"usageMetadata": {"promptTokenCount": 40, "totalTokenCount": 40}, "modelVersion": "gemini-2.5-flash"}`),
		read{usage: llm.Usage{InputTokens: 40}, finish: llm.FinishContentFilter, raw: "SAFETY"}),
	Entry("a malformed function call", whole(`{"candidates": [{"content": {}, "finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}], "usageMetadata": {"promptTokenCount": 40, "totalTokenCount": 40}, "modelVersion": "gemini-2.5-flash"}`),
		read{usage: llm.Usage{InputTokens: 40}, finish: llm.FinishError, raw: "MALFORMED_FUNCTION_CALL"}),
	Entry("a prompt blocked: no candidate, the block reason its finish", whole(blocked),
		read{usage: llm.Usage{InputTokens: 1250}, finish: llm.FinishContentFilter, raw: "blockReason: PROHIBITED_CONTENT"}),
	Entry("429 quota", refused(429, `{"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details.", "status": "RESOURCE_EXHAUSTED"}}`),
		read{err: "Too Many Requests: "}),
	Entry("503 overloaded", refused(503, `{"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}`),
		read{err: "Service Unavailable: "}),
)

var _ = DescribeTable("streamed Gemini traffic is put together as the API documents it",
	func(answer reply, want read) {
		conform(geminiEndpoint, "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", generateCall, answer, want)
	},
	Entry("a thought chunk, text chunks, the call and finishReason last, usage on each chunk and the last one's whole", chunks("",
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "**Timetable** The user wants the next sailing.", "thought": true}]}, "index": 0}], "usageMetadata": {"promptTokenCount": 1830, "totalTokenCount": 2246, "cachedContentTokenCount": 1536, "thoughtsTokenCount": 416}, "modelVersion": "gemini-2.5-flash", "responseId": "Vis01"}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "Checking "}]}, "index": 0}], "usageMetadata": {"promptTokenCount": 1830, "candidatesTokenCount": 2, "totalTokenCount": 2248, "cachedContentTokenCount": 1536, "thoughtsTokenCount": 416}, "modelVersion": "gemini-2.5-flash", "responseId": "Vis01"}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "the timetable."}]}, "index": 0}], "usageMetadata": {"promptTokenCount": 1830, "candidatesTokenCount": 5, "totalTokenCount": 2251, "cachedContentTokenCount": 1536, "thoughtsTokenCount": 416}, "modelVersion": "gemini-2.5-flash", "responseId": "Vis01"}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "ferry_times", "args": {"port": "Split"}}, "thoughtSignature": "CiIBVKhc7oU3"}]}, "finishReason": "STOP", "index": 0}], "usageMetadata": `+thinkingUsage+`, "modelVersion": "gemini-2.5-flash", "responseId": "Vis01"}`),
		read{text: "Checking the timetable.", calls: []string{`ferry_times {"port":"Split"}`}, usage: thinkingRead, finish: llm.FinishToolCalls, raw: "STOP"}),
	Entry("finishReason on a chunk of its own with an empty text part", chunks("",
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "At 14:30."}]}, "index": 0}], "usageMetadata": {"promptTokenCount": 40, "totalTokenCount": 40}, "modelVersion": "gemini-2.5-flash"}`,
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP", "index": 0}], "usageMetadata": `+plainUsage+`, "modelVersion": "gemini-2.5-flash"}`),
		read{text: "At 14:30.", usage: plainRead, finish: llm.FinishStop, raw: "STOP"}),
	Entry("cut at the token limit", chunks("",
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "The next boat"}]}, "finishReason": "MAX_TOKENS", "index": 0}], "usageMetadata": `+plainUsage+`, "modelVersion": "gemini-2.5-flash"}`),
		read{text: "The next boat", usage: plainRead, finish: llm.FinishLength, raw: "MAX_TOKENS"}),
	Entry("a prompt blocked: its one chunk, no candidate, is an empty answer, not a stream cut short", chunks("", blocked),
		read{usage: llm.Usage{InputTokens: 1250}, finish: llm.FinishContentFilter, raw: "blockReason: PROHIBITED_CONTENT"}),
	Entry("cut before a finishReason", chunks("",
		`{"candidates": [{"content": {"role": "model", "parts": [{"text": "The next"}]}, "index": 0}], "modelVersion": "gemini-2.5-flash"}`),
		read{err: "no finishReason"}),
)
