package runner_test

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/judge"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/tokens"
)

var _ = Describe("what --max-cost books before a request leaves", func() {
	p := cost.Pricer{Table: cost.Default()}
	counter, err := tokens.New("o200k_base")
	Expect(err).NotTo(HaveOccurred())

	ids := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = "1"
		}
		return "[" + strings.Join(s, ",") + "]"
	}

	DescribeTable("prices an embeddings request at its own model's input rate, whatever the chat model",
		func(path, body string, usd float64) {
			got, err := runner.EstimateRequest(p, "openai", "openai/gpt-4.1", path, []byte(body), counter)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(BeNumerically("~", usd, 1e-15))
		},
		// 50,000 token ids at $0.02/M
		Entry("OpenAI, token ids", "/v1/embeddings", fmt.Sprintf(`{"model":"text-embedding-3-small","input":%s}`, ids(50000)), 0.001),
		// "hello world" twice, 2 tokens each, at $0.02/M
		Entry("OpenAI, texts", "/v1/embeddings", `{"model":"text-embedding-3-small","input":["hello world","hello world"]}`, 4*0.02e-6),
		// 2 tokens at $0.15/M
		Entry("Gemini", "/v1beta/models/gemini-embedding-001:embedContent", `{"content":{"parts":[{"text":"hello world"}]}}`, 2*0.15e-6),
	)

	It("books a chat request at its tokens and its max_tokens", func() {
		body := `{"model":"openai/gpt-4.1","max_tokens":1000,"messages":[{"role":"user","content":"hi"}]}`
		got, err := runner.EstimateRequest(p, "openai", "openai/gpt-4.1", "/v1/chat/completions", []byte(body), counter)
		Expect(err).NotTo(HaveOccurred())
		// the body's tokens at $2/M and 1,000 out at $8/M
		Expect(got).To(BeNumerically("~", float64(counter.CountBytes([]byte(body)))*2e-6+1000*8e-6, 1e-15))
	})

	It("refuses an embeddings request it cannot price or read: the cap cannot be kept", func() {
		_, err := runner.EstimateRequest(p, "openai", "openai/gpt-4.1", "/v1/embeddings", []byte(`{"model":"mystery-embedder","input":"x"}`), counter)
		Expect(err).To(MatchError(runner.ErrOverBudget))
		Expect(err).To(MatchError(ContainSubstring("embeddings model mystery-embedder has no price")))
		_, err = runner.EstimateRequest(p, "openai", "openai/gpt-4.1", "/v1/embeddings", []byte(`{"model":"text-embedding-3-small","input":{}}`), counter)
		Expect(err).To(MatchError(runner.ErrOverBudget))
	})
})

var _ = Describe("the --max-cost refusal", func() {
	It("says what finished runs spent apart from what it holds for calls in flight", func() {
		b := &runner.Budget{Max: 0.1}
		Expect(b.Reserve(0.04)).To(Succeed()) // a run's call…
		b.Settle(0.04, 0.03)                  // …which cost $0.03 when the run ended
		Expect(b.Reserve(0.05)).To(Succeed()) // another run's call, in flight
		err := b.Reserve(0.05)
		Expect(err).To(MatchError(runner.ErrOverBudget))
		Expect(err).To(MatchError(ContainSubstring("the next model call may cost up to $0.0500 and $0.1 is the cap, $0.0300 spent by finished scenario runs, up to $0.0500 booked for calls in flight;")))
		Expect(b.Spent()).To(BeNumerically("~", 0.03, 1e-12), "an estimate in flight is not spent")
		Expect(b.InFlight()).To(BeNumerically("~", 0.05, 1e-12))
		b.Settle(0.05, 0.01)
		Expect(b.Spent()).To(BeNumerically("~", 0.04, 1e-12))
		Expect(b.InFlight()).To(BeZero())
	})
})

var _ = DescribeTable("a rubric grader's request, booked by --max-cost at the grade's output cap, not 4,096 tokens",
	func(params any) {
		body, err := json.Marshal(params)
		Expect(err).NotTo(HaveOccurred())
		Expect(runner.MaxOutput(body)).To(Equal(judge.MaxTokens))
		Expect(judge.MaxTokens).To(BeNumerically("<", runner.DefaultMaxOutput))
	},
	Entry("OpenAI Chat Completions", judge.OpenAIParams("gpt-4.1-mini", []llm.Message{{Role: llm.RoleUser, Content: "grade"}}, judge.GradeSchema, map[string]any{})),
	Entry("Anthropic Messages", judge.AnthropicParams("claude-haiku-4-5", []llm.Message{{Role: llm.RoleUser, Content: "grade"}}, judge.GradeSchema,
		map[string]any{"properties": map[string]any{}, "required": []string{}})),
)

var _ = DescribeTable("the output cap read from a model request, as each wire names it",
	func(body string, want int) {
		Expect(runner.MaxOutput([]byte(body))).To(Equal(want))
	},
	Entry("Chat Completions' max_tokens", `{"max_tokens": 300}`, 300),
	Entry("Chat Completions' max_completion_tokens", `{"max_completion_tokens": 700}`, 700),
	Entry("the Responses API's max_output_tokens", `{"max_output_tokens": 64}`, 64),
	Entry("Gemini's generationConfig.maxOutputTokens", `{"generationConfig": {"maxOutputTokens": 128}}`, 128),
	Entry("Gemini's generation_config.max_output_tokens", `{"generation_config": {"max_output_tokens": 256}}`, 256),
	Entry("Ollama's options.num_predict", `{"model": "qwen3:14b", "options": {"num_predict": 96}}`, 96),
	Entry("Ollama's num_predict -1, no limit", `{"model": "qwen3:14b", "options": {"num_predict": -1}}`, runner.DefaultMaxOutput),
	Entry("none", `{"contents": []}`, runner.DefaultMaxOutput),
)

var _ = DescribeTable("a call counts as the model's by its path, unless it goes to one of the agent's upstreams",
	func(rawURL, target string, model bool) {
		upstreams := map[string]string{"crm": "https://crm.example", "helpdesk": "https://desk.example/app"}
		got, isModel := runner.FaultTarget(upstreams, rawURL)
		Expect(got).To(Equal(target))
		Expect(isModel).To(Equal(model))
	},
	Entry("Chat Completions", "https://api.openai.com/v1/chat/completions", "model", true),
	Entry("the Responses API", "https://api.openai.com/v1/responses", "model", true),
	Entry("Azure OpenAI's Responses API", "https://res.openai.azure.com/openai/responses", "model", true),
	Entry("the Interactions API", "https://generativelanguage.googleapis.com/v1beta/interactions", "model", true),
	Entry("Ollama's chat", "http://localhost:11434/api/chat", "model", true),
	Entry("an upstream", "https://crm.example/v1/contacts", "upstream", false),
	Entry("an upstream's own /v1/interactions", "https://crm.example/v1/interactions", "upstream", false),
	Entry("an upstream's own /api/chat", "https://desk.example/app/api/chat", "upstream", false),
	Entry("an upstream's own /responses", "https://crm.example/v1/responses", "upstream", false),
)
