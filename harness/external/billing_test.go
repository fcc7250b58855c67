package external_test

// What a model call costs, from an answer in each provider's shape (whole
// or streamed, testdata/billing) to dollars at testbed's price table: the
// usage read from the traffic as the run reads it, priced as the runner
// prices it. The bodies are written here in the shapes of the providers'
// API references, with numbers of our own; the dollars are worked out by
// hand from the providers' published billing rules, beside each entry.

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/trace"
)

// bill is one model call and what it must cost.
type bill struct {
	endpoint llm.Endpoint
	url      string            // the base URL variable and path the program posts to
	request  string            // the request body
	fixture  string            // the answer, under testdata/billing: .json whole, .sse streamed
	models   map[string]string // the suite's prices: models
	usage    llm.Usage         // what is read of the answer
	usd      float64           // what it costs (what its priced parts cost, when unpriced)
	unpriced bool              // a part of it has no price: the call is counted unpriced
}

// fixtureReply answers with the fixture name, an event stream when it is
// .sse.
func fixtureReply(name string) reply {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join("testdata", "billing", name))
	Expect(err).NotTo(HaveOccurred())
	ct := "application/json"
	if strings.HasSuffix(name, ".sse") {
		ct = "text/event-stream"
	}
	return reply{status: 200, ct: ct, body: string(b)}
}

// billed runs b's call over its fixture and checks what is read of the
// answer and what it costs, through the usage a run keeps of it as the
// runner keeps it (trace.ReportedUsage) and a report prices it again.
func billed(b bill) {
	GinkgoHelper()
	tr := runOver(fixtureReply(b.fixture), b.endpoint, nil, `curl -s -X POST "`+b.url+`" -H 'Content-Type: application/json' -d '`+b.request+`' >/dev/null`)
	Expect(tr.calls).To(HaveLen(1), "one model call read")
	Expect(tr.errs[0]).NotTo(HaveOccurred())
	Expect(tr.resps[0].Usage).To(Equal(b.usage), "the usage read")
	call := &trace.LLMCall{Model: tr.models[0], Reported: trace.ReportedUsage(tr.resps[0].Usage)}
	c := cost.Pricer{Table: cost.Default(), Models: b.models}.Call(b.endpoint.Provider, call)
	Expect(c).NotTo(BeNil(), "%s is priced", tr.models[0])
	Expect(c.From).To(Equal(trace.CostFromReported))
	Expect(c.USD).To(BeNumerically("~", b.usd, 1e-12), "the dollars")
	Expect(c.Unpriced != nil).To(Equal(b.unpriced), "parts unpriced: %q", c.Unpriced)
	m := trace.Measure([]trace.Event{{Kind: trace.KindLLM, LLM: &trace.LLMCall{Model: call.Model, Reported: call.Reported, Cost: c}}})
	Expect(m.UnpricedCalls == 1).To(Equal(b.unpriced), "a call with a part unpriced is counted unpriced, never wholly priced")
}

// The endpoints of the bills that differ from the conformance specs'.
var (
	ollamaBill = llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: llm.OllamaBaseURL, Model: "qwen3:14b"}
	azureBill  = llm.Endpoint{Provider: llm.ProviderAzure, BaseURL: "https://contoso-rail.openai.azure.com", Model: "rail-gpt"}
)

const (
	railChat    = `{"model": "gpt-4.1", "messages": [{"role": "user", "content": "Which platform for the 09:12?"}]}`
	railStream  = `{"model": "o4-mini", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "Paris to Turin?"}]}`
	railCompat  = `{"model": "gpt-4.1-mini", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "Daily?"}]}`
	railMessage = `{"model": "claude-haiku-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": "Which platform?"}]}`
	railSonnet  = `{"model": "claude-sonnet-4-5", "max_tokens": 4096, "stream": true, "messages": [{"role": "user", "content": "Any changes?"}]}`
	railGemini  = `{"contents": [{"role": "user", "parts": [{"text": "Is the 09:12 late?"}]}], "tools": [{"googleSearch": {}}]}`
)

var _ = DescribeTable("a model call is billed from its traffic as the provider bills it",
	billed,
	// 1,760 uncached × $2/M + 10,240 cached × $0.50/M + 300 out × $8/M
	Entry("OpenAI Chat, whole: cached prompt tokens at the cached rate, once", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/chat/completions", request: railChat,
		fixture: "chat-cached.json", usage: llm.Usage{InputTokens: 12000, OutputTokens: 300, CacheReadTokens: 10240}, usd: 0.00352 + 0.00512 + 0.0024}),
	// 1,976 × $1.10/M + 1,024 × $0.275/M + 900 out (768 of them reasoning, inside the 900) × $4.40/M
	Entry("OpenAI Chat, streamed with include_usage: the usage chunk's, reasoning inside the output", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/chat/completions", request: railStream,
		fixture: "chat-stream-reasoning.sse", usage: llm.Usage{InputTokens: 3000, OutputTokens: 900, ReasoningTokens: 768, CacheReadTokens: 1024}, usd: 0.0021736 + 0.0002816 + 0.00396}),
	// the last snapshot: 850 × $0.40/M + 7 × $1.60/M, not the chunks' sum (2,550 and 12)
	Entry("a compatible server's stream with its cumulative usage on every chunk (LiteLLM's proxy, vLLM's continuous_usage_stats): the last, not their sum",
		bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/chat/completions", request: railCompat,
			fixture: "chat-stream-cumulative.sse", usage: llm.Usage{InputTokens: 850, OutputTokens: 7}, usd: 0.00034 + 0.0000112}),
	// 3,616 × $1.25/M + 16,384 × $0.125/M + 1,500 × $10/M
	Entry("OpenAI Responses, whole: input_tokens_details and output_tokens_details", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/responses", request: `{"model": "gpt-5", "input": "Paris to Turin?"}`,
		fixture: "responses.json", usage: llm.Usage{InputTokens: 20000, OutputTokens: 1500, ReasoningTokens: 1152, CacheReadTokens: 16384}, usd: 0.00452 + 0.002048 + 0.015}),
	// 1,952 × $0.25/M + 2,048 × $0.025/M + 600 × $2/M
	Entry("OpenAI Responses, streamed: response.completed's usage", bill{endpoint: openAIEndpoint, url: "$OPENAI_BASE_URL/responses", request: `{"model": "gpt-5-mini", "stream": true, "input": "Hourly?"}`,
		fixture: "responses-stream.sse", usage: llm.Usage{InputTokens: 4000, OutputTokens: 600, ReasoningTokens: 512, CacheReadTokens: 2048}, usd: 0.000488 + 0.0000512 + 0.0012}),
	// the deployment is the model the suite maps: the gpt-4.1 answer's price
	Entry("Azure OpenAI: the deployment's name, mapped to the model it deploys", bill{endpoint: azureBill,
		url: "$AZURE_OPENAI_ENDPOINT/openai/deployments/rail-gpt/chat/completions?api-version=$OPENAI_API_VERSION", request: `{"messages": [{"role": "user", "content": "Which platform for the 09:12?"}]}`,
		fixture: "chat-cached.json", models: map[string]string{"rail-gpt": "gpt-4.1"}, usage: llm.Usage{InputTokens: 12000, OutputTokens: 300, CacheReadTokens: 10240}, usd: 0.00352 + 0.00512 + 0.0024}),
	// 50 × $1/M + 1,000 5-minute writes × $1.25/M + 2,000 1-hour writes × $2/M + 8,000 reads × $0.10/M + 400 × $5/M
	Entry("Anthropic, whole: input_tokens leaves the cache out; writes by their time to live, reads at a tenth", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages", request: railMessage,
		fixture: "anthropic-cache.json", usage: llm.Usage{InputTokens: 11050, OutputTokens: 400, CacheReadTokens: 8000, CacheWriteTokens: 3000, CacheWrite1hTokens: 2000},
		usd: 0.00005 + 0.00125 + 0.004 + 0.0008 + 0.002}),
	// 20 × $3/M + 6,000 reads × $0.30/M + 250 (message_delta's count, not added to message_start's 1) × $15/M
	Entry("Anthropic, streamed: message_start's input, message_delta's cumulative output", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages", request: railSonnet,
		fixture: "anthropic-stream.sse", usage: llm.Usage{InputTokens: 6020, OutputTokens: 250, CacheReadTokens: 6000}, usd: 0.00006 + 0.0018 + 0.00375}),
	// 211,000 prompt tokens, past 200k: 1,000 × $6/M + 150,000 1-hour writes × $12/M (twice the long-context input)
	// + 60,000 reads × $0.60/M + 2,000 × $22.50/M
	Entry("Anthropic past 200k input tokens: every part at the long-context rates, the 1-hour write at twice its input rate", bill{endpoint: anthropicEndpoint, url: "$ANTHROPIC_BASE_URL/v1/messages",
		request: strings.Replace(railMessage, "claude-haiku-4-5", "claude-sonnet-4-5", 1), fixture: "anthropic-long-1h.json",
		usage: llm.Usage{InputTokens: 211000, OutputTokens: 2000, CacheReadTokens: 60000, CacheWriteTokens: 150000, CacheWrite1hTokens: 150000},
		usd:   0.006 + 1.8 + 0.036 + 0.045}),
	// 3,300 uncached (9,000 prompt + 300 tool-use − 6,000 cached) × $0.30/M + 6,000 × $0.03/M + (200 + 700 thoughts) × $2.50/M;
	// + the grounded prompt × $0.035 (Gemini 2.5's $35 per 1,000 grounded prompts)
	Entry("Gemini, whole: cached content inside the prompt, thoughts and the search's prompt beside theirs, the grounded prompt's fee", bill{endpoint: geminiEndpoint,
		url: "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:generateContent", request: railGemini,
		fixture: "gemini.json", usage: llm.Usage{InputTokens: 9300, OutputTokens: 900, ReasoningTokens: 700, CacheReadTokens: 6000, WebSearches: 1},
		usd: 0.00099 + 0.00018 + 0.00225 + 0.035}),
	// the last chunk's: 1,200 × $0.30/M + (80 + 300) × $2.50/M, not the chunks' sum
	Entry("Gemini, streamed: the usage each chunk repeats, the last one's", bill{endpoint: geminiEndpoint,
		url: "$GEMINI_BASE_URL/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", request: railGemini,
		fixture: "gemini-stream.sse", usage: llm.Usage{InputTokens: 1200, OutputTokens: 380, ReasoningTokens: 300}, usd: 0.00036 + 0.00095}),
	// (5,000 + 2,500 tool use) × $0.30/M + (120 + 400 thoughts) × $2.50/M
	Entry("Gemini's Interactions API: the tool-use tokens beside the input's, as generateContent's", bill{endpoint: geminiEndpoint,
		url: "$GEMINI_BASE_URL/v1beta/interactions", request: `{"model": "gemini-2.5-flash", "input": "Any strikes?", "tools": [{"type": "google_search"}]}`,
		fixture: "interactions.json", usage: llm.Usage{InputTokens: 7500, OutputTokens: 520, ReasoningTokens: 400}, usd: 0.00225 + 0.0013}),
	Entry("Ollama: prompt_eval_count and eval_count, at $0 a token", bill{endpoint: ollamaBill, url: "$OLLAMA_HOST/api/chat",
		request: `{"model": "qwen3:14b", "stream": false, "messages": [{"role": "user", "content": "Which platform?"}]}`,
		fixture: "ollama.json", usage: llm.Usage{InputTokens: 620, OutputTokens: 48}, usd: 0}),
)
