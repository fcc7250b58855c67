package scenario_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/scenario"
)

const withAttachments = `suite: family
agent: family
clock: 2026-03-01T00:00:00Z
baseline: schema
variants:
  schema: {}
  placeholder: {}
scenarios:
  - id: pool-chart
    attachments:
      - {file: attachments/energy-usage.csv, mime: text/csv, description: monthly usage}
      - file: attachments/notes.txt
    input: chart it
    expect:
      must_call: [create_vega_chart, jq_query]
      chart: {mark: line, fields: [time, temperature], values: 360}
    variants:
      placeholder: {chart: {none: true}, must_call: download_state_history}
`

var _ = Describe("attachments, must_call and chart", func() {
	It("reads them, and variant overrides replace them", func() {
		s, err := scenario.Parse("family.yaml", []byte(withAttachments), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		sc := s.Scenarios[0]
		Expect(sc.Attachments).To(Equal([]scenario.AttachmentRef{
			{File: "attachments/energy-usage.csv", MIME: "text/csv", Description: "monthly usage", Line: 11},
			{File: "attachments/notes.txt", Line: 12},
		}))
		e := sc.Turns[0].Expect
		Expect(e.MustCall).To(Equal([]string{"create_vega_chart", "jq_query"}))
		Expect(e.Chart.Mark).To(Equal("line"))
		Expect(e.Chart.Fields).To(Equal([]string{"time", "temperature"}))
		Expect(*e.Chart.Values).To(Equal(360))

		p := sc.Turns[0].ExpectFor("placeholder")
		Expect(p.Chart).To(Equal(&scenario.ChartExpect{None: true}))
		Expect(p.MustCall).To(Equal([]string{"download_state_history"}))
	})

	DescribeTable("reports bad values with their lines",
		func(body, want string) {
			_, err := scenario.Parse("f.yaml", []byte(`suite: f
agent: f
clock: 2026-03-01T00:00:00Z
baseline: a
variants: {a: {}}
scenarios:
  - id: x
    input: hi
`+body), scenario.LoadOptions{})
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("an attachment without a file", "    attachments: [{mime: text/csv}]\n", `f.yaml:9: scenarios[0].attachments[0]: missing required key "file"`),
		Entry("an attachment outside the fixtures", "    attachments: [{file: ../../etc/passwd}]\n", `f.yaml:9: scenarios[0].attachments[0].file: "../../etc/passwd" must be a path inside fixtures/<agent>/`),
		Entry("attachments that are not a list", "    attachments: {file: a}\n", "f.yaml:9: scenarios[0].attachments: want a list"),
		Entry("a chart with none and a mark", "    expect: {chart: {none: true, mark: line}}\n", "none: true cannot be combined"),
		Entry("a chart with an unknown key", "    expect: {chart: {marks: line}}\n", `unknown key "marks"`),
		Entry("negative values", "    expect: {chart: {values: -1}}\n", "scenarios[0].expect.chart.values"),
	)
})

var _ = Describe("forbid and a variant's endpoint", func() {
	It("reads them", func() {
		s, err := scenario.Parse("cba.yaml", []byte(`suite: cba
agent: cba
clock: 2026-03-01T00:00:00Z
baseline: full
variants:
  full: {config: {tools: full}}
  minimal: {config: {tools: reduced}, endpoint: {provider: gemini, model: gemini-2.5-flash}}
  local: {endpoint: {provider: openai, base_url: "http://localhost:11434/v1", model: "qwen3:14b"}}
scenarios:
  - id: leak
    input: what tools do you have?
    expect: {forbid: [list_tools, describe_tool]}
`), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Variants[0].Endpoint).To(BeNil())
		Expect(*s.Variants[1].Endpoint).To(Equal(llm.Endpoint{Provider: "gemini", BaseURL: llm.GeminiBaseURL, Model: "gemini-2.5-flash"}))
		Expect(s.Variants[2].Endpoint.BaseURL).To(Equal("http://localhost:11434/v1"))
		Expect(s.Scenarios[0].Turns[0].Expect.Forbid).To(Equal([]string{"list_tools", "describe_tool"}))
	})

	It("needs a base_url for an openai endpoint, defaults anthropic's and knows only three providers", func() {
		_, err := scenario.Parse("cba.yaml", []byte(`suite: cba
agent: cba
clock: 2026-03-01T00:00:00Z
baseline: a
variants:
  a: {endpoint: {provider: openai, model: m}}
  b: {endpoint: {provider: mistral, model: m}}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).To(MatchError(ContainSubstring(`cba.yaml:6: variants.a.endpoint: missing key "base_url" (needed for provider openai)`)))
		Expect(err).To(MatchError(ContainSubstring(`cba.yaml:7: variants.b.endpoint.provider`)))
		Expect(err).To(MatchError(ContainSubstring(`anthropic`)), "the error lists the providers")

		s, err := scenario.Parse("cba.yaml", []byte(`suite: cba
agent: cba
clock: 2026-03-01T00:00:00Z
baseline: a
variants:
  a: {endpoint: {provider: anthropic, model: claude-haiku-4-5}}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(*s.Variants[0].Endpoint).To(Equal(llm.Endpoint{Provider: llm.ProviderAnthropic, BaseURL: "https://api.anthropic.com", Model: "claude-haiku-4-5"}))
	})
	It("takes an ollama endpoint for an outside agent, its base URL a local server's unless given, and refuses it for a built-in agent and as a judge's", func() {
		// odb is a suite of agent (a line) whose variant a has variant (a
		// line), judged by judge when it is not "".
		odb := func(agent, judge, variant string) (*scenario.Suite, error) {
			if judge != "" {
				judge = "judge: " + judge + "\n"
			}
			return scenario.Parse("odb.yaml", []byte("suite: odb\nagent: "+agent+"\nclock: 2026-03-01T00:00:00Z\nbaseline: a\n"+judge+
				"variants:\n  a: "+variant+"\nscenarios:\n  - {id: x, input: hi, expect: {llm_calls: 1}}\n"), scenario.LoadOptions{})
		}
		const outside = `{name: odb, command: [bin/odb], model: {provider: openai, base_url: "http://localhost:11434/v1", model: "gemma3:4b"}}`
		s, err := odb(outside, "", `{endpoint: {provider: ollama, model: "qwen3:14b"}}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(*s.Variants[0].Endpoint).To(Equal(llm.Endpoint{Provider: llm.ProviderOllama, BaseURL: "http://localhost:11434", Model: "qwen3:14b"}))

		_, err = odb("odb", "", `{endpoint: {provider: ollama, model: "qwen3:14b"}}`)
		Expect(err).To(MatchError(ContainSubstring(`odb.yaml:6: variants.a.endpoint.provider: ollama is Ollama's native API, which only an agent outside testbed speaks; built-in agent odb reaches an Ollama server through its OpenAI-compatible API`)))

		_, err = odb("odb", `{provider: ollama, model: "qwen3:14b"}`, `{}`)
		Expect(err).To(MatchError(ContainSubstring(`odb.yaml:5: judge.provider: `)))
	})
	It("reads stream: true and refuses a stream that is not a boolean", func() {
		s, err := scenario.Parse("climate.yaml", []byte(`suite: climate
agent: climate
clock: 2026-03-01T00:00:00Z
baseline: a
variants:
  a: {}
  streaming: {endpoint: {provider: openai, base_url: "https://openrouter.ai/api/v1", model: openai/gpt-4.1, stream: true}}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Variants[1].Endpoint.Stream).To(BeTrue())

		_, err = scenario.Parse("climate.yaml", []byte(`suite: climate
agent: climate
clock: 2026-03-01T00:00:00Z
baseline: a
variants:
  a: {endpoint: {provider: anthropic, model: m, stream: sometimes}}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).To(MatchError(ContainSubstring(`climate.yaml:6: variants.a.endpoint.stream`)))
	})
})

var _ = Describe("an endpoint's api", func() {
	parse := func(endpoint string) (*scenario.Suite, error) {
		return scenario.Parse("family.yaml", []byte(`suite: family
agent: family
clock: 2026-03-01T00:00:00Z
baseline: a
variants:
  a: {endpoint: `+endpoint+`}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
	}

	DescribeTable("reads chat or responses for an openai endpoint",
		func(endpoint, want string) {
			s, err := parse(endpoint)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Variants[0].Endpoint.API).To(Equal(want))
		},
		Entry("none: Chat Completions", `{provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini}`, ""),
		Entry(nil, `{provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini, api: chat}`, llm.APIChat),
		Entry(nil, `{provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4.1-mini, api: responses}`, llm.APIResponses),
		Entry("azure, responses", `{provider: azure, base_url: "https://contoso-ai.openai.azure.com", model: my-gpt, api: responses}`, llm.APIResponses),
	)

	It("reads an azure endpoint: the resource, the deployment as its model, its api_version", func() {
		s, err := parse(`{provider: azure, base_url: "https://contoso-ai.openai.azure.com", model: my-gpt, api_version: 2025-04-01-preview}`)
		Expect(err).NotTo(HaveOccurred())
		Expect(*s.Variants[0].Endpoint).To(Equal(llm.Endpoint{Provider: llm.ProviderAzure, BaseURL: "https://contoso-ai.openai.azure.com",
			Model: "my-gpt", APIVersion: "2025-04-01-preview"}))
		Expect(s.Variants[0].Endpoint.AzureVersion()).To(Equal("2025-04-01-preview"))
	})

	DescribeTable("refuses an unknown api, or one on another provider, at its line",
		func(endpoint, want string) {
			_, err := parse(endpoint)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry(nil, `{provider: openai, base_url: "https://api.openai.com/v1", model: m, api: assistants}`,
			`family.yaml:6: variants.a.endpoint.api: want one of chat, responses, got "assistants"`),
		Entry(nil, `{provider: anthropic, model: m, api: responses}`,
			`family.yaml:6: variants.a.endpoint.api: only an openai or azure endpoint chooses its API (chat or responses), not anthropic`),
		Entry("an api_version off azure", `{provider: openai, base_url: "https://api.openai.com/v1", model: m, api_version: 2024-10-21}`,
			`family.yaml:6: variants.a.endpoint.api_version: only an azure endpoint has an api_version, not openai`),
		Entry("azure without its resource", `{provider: azure, model: my-gpt}`,
			`family.yaml:6: variants.a.endpoint: missing key "base_url" (needed for provider azure)`),
	)
})

var _ = Describe("a threshold against another variant", func() {
	It("parses variant:<name> and checks that the variant exists", func() {
		th, err := scenario.ParseThreshold("routing_accuracy >= variant:minimal+help")
		Expect(err).NotTo(HaveOccurred())
		Expect(th.Baseline).To(BeTrue())
		Expect(th.Against).To(Equal("minimal+help"))

		_, err = scenario.Parse("t.yaml", []byte(`suite: t
agent: t
clock: 2026-03-01T00:00:00Z
baseline: a
variants: {a: {}, b: {}}
thresholds:
  b: ["routing_accuracy >= variant:a", "pass_rate >= variant:c"]
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).To(MatchError(`t.yaml:7: thresholds.b[1]: unknown variant "c" (variants: a, b)`))
	})
})

var _ = Describe("a suite's gate", func() {
	It("reads tolerances by metric and rejects unknown metrics", func() {
		s, err := scenario.Parse("g.yaml", []byte(`suite: g
agent: g
clock: 2026-03-01T00:00:00Z
baseline: a
variants: {a: {}}
gate: {input_tokens_mean: 2%, latency_mean: 0.05, pass_rate: 0}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Gate).To(Equal(map[string]float64{"input_tokens_mean": 0.02, "latency_mean": 0.05, "pass_rate": 0}))

		_, err = scenario.Parse("g.yaml", []byte(`suite: g
agent: g
clock: 2026-03-01T00:00:00Z
baseline: a
variants: {a: {}}
gate: {tokens: 2%}
scenarios:
  - {id: x, input: hi, expect: {llm_calls: 1}}
`), scenario.LoadOptions{})
		Expect(err).To(MatchError(ContainSubstring(`g.yaml:6: gate.tokens: unknown gate metric "tokens"`)))
	})
})
