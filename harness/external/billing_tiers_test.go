package external_test

// What a call costs beyond its tokens' standard rates: the service tier
// that served it (OpenAI's flex and priority processing, Anthropic's
// Priority Tier), its audio tokens, and the searches of a provider's
// server-side search tool. As in billing_test.go, the bodies are in the
// providers' shapes with numbers of our own, and the dollars are worked
// out by hand beside each entry.

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentreplay/testbed/agents/llm"
)

var _ = DescribeTable("a call is billed at the tier that served it, its audio at the audio rates, its searches per search",
	billed,
	// gpt-5 at flex: 5,904 uncached × $0.625/M + 4,096 cached × $0.0625/M + 2,000 out (1,500 reasoning) × $5/M
	Entry("OpenAI Chat served at flex: the flex rates, cached reads and reasoning included", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/chat/completions",
		request: `{"model": "gpt-5", "service_tier": "flex", "messages": [{"role": "user", "content": "Night train?"}]}`, fixture: "chat-flex.json",
		usage: llm.Usage{InputTokens: 10000, OutputTokens: 2000, ReasoningTokens: 1500, CacheReadTokens: 4096, ServiceTier: "flex"}, usd: 0.00369 + 0.000256 + 0.01}),
	// gpt-5 at priority, streamed: 5,952 × $2.50/M + 2,048 × $0.25/M + 1,000 × $20/M
	Entry("OpenAI Responses streamed at priority: response.completed's service_tier, the priority rates", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/responses",
		request: `{"model": "gpt-5", "stream": true, "service_tier": "priority", "input": "Hourly?"}`, fixture: "responses-priority.sse",
		usage: llm.Usage{InputTokens: 8000, OutputTokens: 1000, ReasoningTokens: 600, CacheReadTokens: 2048, ServiceTier: "priority"}, usd: 0.01488 + 0.000512 + 0.02}),
	// gpt-4.1's row has no priority rates: not priced at the standard ones (a bill lower than the provider's), unpriced
	Entry("a tier the row has no rates for: unpriced, not billed at the standard rates", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/chat/completions",
		request: `{"model": "gpt-4.1", "service_tier": "priority", "messages": [{"role": "user", "content": "Night train?"}]}`, fixture: "chat-priority.json",
		usage: llm.Usage{InputTokens: 10000, OutputTokens: 2000, CacheReadTokens: 4096, ServiceTier: "priority"}, usd: 0, unpriced: true}),
	Entry("Anthropic's usage.service_tier priority, which the table has no rates for: unpriced", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages",
		request: railMessage, fixture: "anthropic-priority.json", usage: llm.Usage{InputTokens: 900, OutputTokens: 40, ServiceTier: "priority"}, usd: 0, unpriced: true}),
	// fast mode (usage.speed fast) is billed at a premium over the standard rates, which the table has none of
	Entry("Anthropic's usage.speed fast, which the table has no rates for: unpriced, not billed at the standard rates", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages",
		request: `{"model": "claude-opus-4-6", "speed": "fast", "max_tokens": 1024, "messages": [{"role": "user", "content": "Which platform?"}]}`, fixture: "anthropic-fast.json",
		models: map[string]string{"claude-opus-4-6": "claude-sonnet-4-5"}, usage: llm.Usage{InputTokens: 1200, OutputTokens: 60, ServiceTier: "fast"}, usd: 0, unpriced: true}),
	// US-only inference costs 1.1 times every token: (1,000 × $3/M + 200 × $15/M) × 1.1, at the rates the suite maps Opus 4.6 to
	Entry("Anthropic's usage.inference_geo us: 1.1 times the tokens' price", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages",
		request: `{"model": "claude-opus-4-6", "inference_geo": "us", "max_tokens": 1024, "messages": [{"role": "user", "content": "Which platform?"}]}`, fixture: "anthropic-us.json",
		models: map[string]string{"claude-opus-4-6": "claude-sonnet-4-5"}, usage: llm.Usage{InputTokens: 1000, OutputTokens: 200, InferenceGeo: "us"}, usd: (0.003 + 0.003) * 1.1}),
	// gpt-audio-mini: 300 text × $0.60/M + 1,200 audio × $10/M in; 100 text × $2.40/M + 700 audio × $20/M out
	Entry("OpenAI Chat's audio_tokens in and out at the audio rates", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/chat/completions",
		request: `{"model": "gpt-audio-mini", "modalities": ["text", "audio"], "audio": {"voice": "alloy", "format": "wav"}, "messages": [{"role": "user", "content": "Which platform?"}]}`,
		fixture: "chat-audio.json", usage: llm.Usage{InputTokens: 1500, OutputTokens: 800, InputAudioTokens: 1200, OutputAudioTokens: 700}, usd: 0.00018 + 0.012 + 0.00024 + 0.014}),
	// gemini-2.5-flash: 1,000 text × $0.30/M + 4,000 audio × $1/M + 300 × $2.50/M
	Entry("Gemini's promptTokensDetails AUDIO at the audio input rate", bill{endpoint: geminiEndpoint,
		url: "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent", request: `{"contents": [{"role": "user", "parts": [{"text": "What does the announcement say?"}]}]}`,
		fixture: "gemini-audio.json", usage: llm.Usage{InputTokens: 5000, OutputTokens: 300, InputAudioTokens: 4000}, usd: 0.0003 + 0.004 + 0.00075}),
	// gemini-2.5-flash: of 4,000 uncached, 1,000 text × $0.30/M + 3,000 audio × $1/M; of 6,000 cached, 1,000 text × $0.03/M
	// + 5,000 audio × $0.10/M (cacheTokensDetails AUDIO); 200 × $2.50/M
	Entry("Gemini's cacheTokensDetails AUDIO at the cached audio rate", bill{endpoint: geminiEndpoint,
		url: "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent", request: `{"contents": [{"role": "user", "parts": [{"text": "And the second announcement?"}]}]}`,
		fixture: "gemini-audio-cached.json", usage: llm.Usage{InputTokens: 10000, OutputTokens: 200, CacheReadTokens: 6000, CacheReadAudioTokens: 5000, InputAudioTokens: 3000},
		usd: 0.0003 + 0.003 + 0.00003 + 0.0005 + 0.0005}),
	// claude-sonnet-4-5: 2,000 × $3/M + 500 × $15/M + 3 searches × $0.01
	Entry("Anthropic's server_tool_use.web_search_requests at the row's per-search rate", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages",
		request: strings.Replace(railMessage, "claude-haiku-4-5", "claude-sonnet-4-5", 1), fixture: "anthropic-search.json",
		usage: llm.Usage{InputTokens: 2000, OutputTokens: 500, WebSearches: 3}, usd: 0.006 + 0.0075 + 0.03}),
	// claude-haiku-4-5, streamed: message_delta's input (6,400, the searches' results in it) × $1/M + 120 × $5/M + 2 searches × $0.01
	Entry("Anthropic streamed: message_delta's server_tool_use", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages",
		request: strings.Replace(railMessage, `"max_tokens"`, `"stream": true, "max_tokens"`, 1), fixture: "anthropic-search-stream.sse",
		usage: llm.Usage{InputTokens: 6400, OutputTokens: 120, WebSearches: 2}, usd: 0.0064 + 0.0006 + 0.02}),
	// gpt-5-mini: 6,000 × $0.25/M + 400 × $2/M + its two web_search_call items × $0.01 (a reasoning model's $10 per 1,000 calls)
	Entry("OpenAI Responses' web_search_call items at the row's per-search rate", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/responses",
		request: `{"model": "gpt-5-mini", "input": "Lyon to Turin?", "tools": [{"type": "web_search"}]}`, fixture: "responses-search.json",
		usage: llm.Usage{InputTokens: 6000, OutputTokens: 400, ReasoningTokens: 256, WebSearches: 2}, usd: 0.0015 + 0.0008 + 0.02}),
	// gpt-4.1: 6,000 × $2/M + 400 × $8/M; a non-reasoning model's search costs $10 or $25 per 1,000 by the tool's version, which the answer does not name
	Entry("OpenAI Responses' web_search_call items of a model billed by the tool's version: the tokens priced, the call unpriced", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/responses",
		request: `{"model": "gpt-4.1", "input": "Lyon to Turin?", "tools": [{"type": "web_search_preview"}]}`, fixture: "responses-search.json",
		usage: llm.Usage{InputTokens: 6000, OutputTokens: 400, ReasoningTokens: 256, WebSearches: 2}, usd: 0.012 + 0.0032, unpriced: true}),
)
