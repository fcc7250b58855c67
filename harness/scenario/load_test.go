package scenario_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/tools/txtar"

	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/scenario"
)

// opts are the agents and metrics the golden files are checked against.
var opts = scenario.LoadOptions{
	Agents: []string{"odbchat", "ragbot"},
	Metrics: []string{
		"routing_accuracy", "pass_rate", "token_reduction", "input_tokens_mean", "llm_calls_mean",
		"latency_mean", "latency_p50", "latency_p95", "latency_p99",
	},
	Faults: map[string][]string{"model": {"429", "timeout"}, "upstream": {"500", "slow"}},
	JQ:     check.CompileJQ,
}

func ptr[T any](v T) *T { return &v }

var _ = Describe("Load", func() {
	It("reads every field of a valid suite", func() {
		s, err := scenario.Load("testdata/valid.yaml", opts)
		Expect(err).NotTo(HaveOccurred())

		Expect(s.Clock).To(BeTemporally("==", time.Date(2025, 11, 6, 2, 0, 0, 0, time.UTC)))
		_, offset := s.Clock.Zone()
		Expect(offset).To(Equal(8 * 3600))
		s.Clock = time.Time{}

		Expect(s).To(Equal(&scenario.Suite{
			Path:              "testdata/valid.yaml",
			Name:              "odbchat",
			NameLine:          2,
			Agent:             "odbchat",
			Tokenizer:         "cl100k_base",
			Baseline:          "legacy",
			Samples:           1,
			MinSamplePassRate: 0.8,
			Variants: []scenario.Variant{
				{Name: "legacy", Description: "2-way classifier, then RAG one-pass", Config: map[string]any{"router": "legacy"}, Line: 8},
				{Name: "single-pass", Description: "single-pass classifier+router", Config: map[string]any{
					"router":  "single-pass",
					"prompt":  "prompts/single-pass.md",
					"retries": 2,
					"models":  []any{"gemma3:4b", "qwen3:8b"},
				}, Line: 9},
				{Name: "bare", Line: 16},
			},
			Thresholds: map[string][]scenario.Threshold{
				"single-pass": {
					{Source: "routing_accuracy >= 0.95", Metric: "routing_accuracy", Op: ">=", Value: 0.95, Line: 19},
					{Source: "llm_calls_mean <= baseline", Metric: "llm_calls_mean", Op: "<=", Baseline: true, Line: 20},
					{Source: "latency_p95 < 2s", Metric: "latency_p95", Op: "<", Value: 2, Unit: "s", Line: 21},
					{Source: "pass_rate == 100%", Metric: "pass_rate", Op: "==", Value: 1, Unit: "%", Line: 22},
					{Source: "latency_mean!=350ms", Metric: "latency_mean", Op: "!=", Value: 0.35, Unit: "s", Line: 23},
				},
				"bare": {},
			},
			Scenarios: []scenario.Scenario{
				{
					ID:        "ac1-taiwan-sst",
					Criterion: "AC-1",
					Tags:      []string{"zh", "bbox"},
					Line:      26,
					Turns: []scenario.Turn{{
						Input: "現在台灣周遭海溫多少？",
						Line:  29,
						Expect: scenario.Expect{
							Line:      31,
							Route:     &scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"},
							Tools:     &scenario.ToolSequence{Match: "exact", Names: []string{"ghrsst.bbox_mean"}},
							Args:      map[string]any{"bbox": []any{118.0, 20.0, 123.5, 26.5}, "date": "2025-11-06"},
							Tolerance: 0.01,
							Answer: &scenario.AnswerExpect{
								Contains:    []string{"°C"},
								NotContains: []string{"error", "sorry"},
								Matches:     `\d+(\.\d+)?\s*°C`,
								Language:    "zh",
							},
							JQ:        []string{`.raw.tool_result.date == "2025-11-06"`, `.raw.tool_result.mean > 20`},
							LLMCalls:  ptr(1),
							ToolCalls: ptr(1),
							Budget:    &scenario.Budget{Latency: 2 * time.Second, InputTokens: 4000, ContextTokens: 8000, TokenReduction: 0.69},
						},
						Overrides: map[string]scenario.Expect{
							"legacy": {Line: 41, Route: &scenario.Route{Mode: "code"}, LLMCalls: ptr(2)},
						},
					}},
				},
				{
					ID:   "multi",
					Line: 42,
					Turns: []scenario.Turn{
						{
							Input: "What is SST?",
							Line:  44,
							Expect: scenario.Expect{
								Line:   46,
								Tools:  &scenario.ToolSequence{Match: "subset", Names: []string{"docs.search"}, NotCall: []string{"ghrsst.bbox_mean"}},
								Answer: &scenario.AnswerExpect{Contains: []string{"sea surface temperature"}, Language: "en"},
								JQ:     []string{".answer | length > 0"},
								Budget: &scenario.Budget{Latency: 350 * time.Millisecond, TokenReduction: 0.69},
							},
						},
						{
							Input: "And near Taiwan?",
							Line:  50,
							Expect: scenario.Expect{
								Line:      52,
								Tools:     &scenario.ToolSequence{Match: "exact", NotCall: []string{"docs.search"}},
								ToolCalls: ptr(0),
							},
							Overrides: map[string]scenario.Expect{
								"single-pass": {
									Line:   55,
									Tools:  &scenario.ToolSequence{Match: "exact", Names: []string{}},
									Budget: &scenario.Budget{Latency: 1500 * time.Millisecond},
								},
							},
						},
					},
				},
				{
					ID:    "calls-once",
					Line:  56,
					Turns: []scenario.Turn{{Input: "hello", Line: 57, Expect: scenario.Expect{Line: 58, LLMCalls: ptr(1)}}},
				},
			},
		}))
	})

	It("defaults the tokenizer to o200k_base", func() {
		s, err := scenario.Parse("s.yaml", []byte(minimal), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Tokenizer).To(Equal("o200k_base"))
	})

	It("reads a goodput budget, and names what is wrong with one at its line", func() {
		s, err := scenario.Parse("s.yaml", []byte(minimal+"goodput: {ttft: 500ms, tpot: 40ms}\n"), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Goodput).To(Equal(&scenario.Goodput{TTFT: 500 * time.Millisecond, TPOT: 40 * time.Millisecond}))

		_, err = scenario.Parse("s.yaml", []byte(minimal+"goodput:\n  ttft: soon\n  tpot: -1s\n"), opts)
		Expect(err).To(MatchError(ContainSubstring(`goodput.ttft: "soon" is not a duration above 0; write it like 500ms`)))
		Expect(err).To(MatchError(ContainSubstring(`goodput.tpot: "-1s" is not a duration above 0`)))
		_, err = scenario.Parse("s.yaml", []byte(minimal+"goodput: {ttft: 1s}\n"), opts)
		Expect(err).To(MatchError(ContainSubstring(`tpot`)))
	})

	It("reads what a suite's figures measure and which checks are the model's judgement", func() {
		s, err := scenario.Parse("s.yaml", []byte(minimal+"about: |\n  Legacy routing has a ceiling.\njudged: [route, answer.not_contains]\n"), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.About).To(Equal("Legacy routing has a ceiling."))
		Expect(s.Judges("route")).To(BeTrue())
		Expect(s.Judges("answer.not_contains")).To(BeTrue())
		Expect(s.Judges("answer.contains")).To(BeFalse())
		Expect(s.Judges("routes")).To(BeFalse())
		_, err = scenario.Parse("s.yaml", []byte(minimal+"judged: [routing]\n"), opts)
		Expect(err).To(MatchError(ContainSubstring(`judged: "routing" is not a check kind (want one of route, tools, args, must_call, answer, forbid, chart, jq, llm_calls, tool_calls`)))
	})

	It("takes time-to-first-token thresholds as durations", func() {
		streaming := opts
		streaming.Metrics = append(append([]string(nil), opts.Metrics...), "ttft_p95", "goodput")
		s, err := scenario.Parse("s.yaml", []byte(minimal+"thresholds:\n  legacy: [\"ttft_p95 < 800ms\", \"goodput >= 90%\"]\n"), streaming)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Thresholds["legacy"][0].Unit).To(Equal("s"))
		_, err = scenario.Parse("s.yaml", []byte(minimal+"thresholds:\n  legacy: [\"ttft_p95 < 800\"]\n"), streaming)
		Expect(err).To(MatchError(ContainSubstring("ttft_p95 is a latency: write its target as a duration")))
	})

	It("checks agents and metrics only against the lists it is given", func() {
		src := strings.Replace(minimal, "agent: odbchat", "agent: someone-else", 1) +
			"thresholds:\n  legacy: [\"made_up_metric > 1\"]\n"
		_, err := scenario.Parse("s.yaml", []byte(src), opts)
		Expect(err).To(MatchError(ContainSubstring(`unknown agent "someone-else"`)))
		Expect(err).To(MatchError(ContainSubstring(`unknown metric "made_up_metric"`)))

		s, err := scenario.Parse("s.yaml", []byte(src), scenario.LoadOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Agent).To(Equal("someone-else"))
		Expect(s.Thresholds["legacy"][0].Metric).To(Equal("made_up_metric"))
	})

	It("follows anchors, aliases and merge keys", func() {
		s, err := scenario.Parse("s.yaml", []byte(`
suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00Z
baseline: legacy
variants:
  legacy: &common {description: shared, config: {router: legacy, retries: 1}}
  single-pass:
    <<: *common
    description: own
scenarios:
  - id: a
    input: hi
    expect: &sst {llm_calls: 1, answer: {contains: °C}}
  - id: b
    input: hello
    expect:
      <<: *sst
      llm_calls: 2
`), opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Variants[1].Description).To(Equal("own"))
		Expect(s.Variants[1].Config).To(Equal(map[string]any{"router": "legacy", "retries": 1}))
		Expect(*s.Scenarios[1].Turns[0].Expect.LLMCalls).To(Equal(2))
		Expect(s.Scenarios[1].Turns[0].Expect.Answer.Contains).To(Equal([]string{"°C"}))
	})

	It("expands nested merge keys once each: a 654-byte merge bomb is rejected with bounded work", func() {
		data, err := os.ReadFile("testdata/merge-bomb.yaml")
		Expect(err).NotTo(HaveOccurred())
		var perr error
		// Each level merges the one below nine times: re-expanded, the
		// bottom mapping would be visited 9^8 (43 million) times.
		allocs := testing.AllocsPerRun(1, func() { _, perr = scenario.Parse("merge-bomb.yaml", data, opts) })
		Expect(perr).To(MatchError(scenario.ErrInvalidSuite))
		Expect(allocs).To(BeNumerically("<", 100_000))
	})

	It("returns read errors as they are, not as invalid suites", func() {
		_, err := scenario.Load("testdata/no-such-file.yaml", opts)
		Expect(err).To(MatchError(fs.ErrNotExist))
		Expect(errors.Is(err, scenario.ErrInvalidSuite)).To(BeFalse())
	})
})

// minimal is the smallest valid suite.
const minimal = `suite: odbchat
agent: odbchat
clock: 2025-11-06T10:00:00+08:00
baseline: legacy
variants:
  legacy: {config: {router: legacy}}
scenarios:
  - id: ac1
    input: hi
    expect: {llm_calls: 1}
`

var _ = Describe("Parse, on a broken suite", func() {
	files, err := filepath.Glob("testdata/invalid/*.txtar")
	if err != nil {
		panic(err)
	}

	It("has golden files to check", func() {
		Expect(len(files)).To(BeNumerically(">=", 13))
	})

	var entries []TableEntry
	for _, f := range files {
		entries = append(entries, Entry(strings.TrimSuffix(filepath.Base(f), ".txtar"), f))
	}
	DescribeTable("reports every problem as path:line: message",
		func(file string) {
			ar, err := txtar.ParseFile(file)
			Expect(err).NotTo(HaveOccurred())
			src, want := section(ar, "suite.yaml"), section(ar, "errors")
			Expect(src).NotTo(BeNil(), "%s has no suite.yaml section", file)
			Expect(want).NotTo(BeNil(), "%s has no errors section", file)

			s, err := scenario.Parse("suite.yaml", src, opts)
			Expect(s).To(BeNil())
			Expect(err).To(MatchError(scenario.ErrInvalidSuite))
			var errs scenario.Errors
			Expect(errors.As(err, &errs)).To(BeTrue())
			for _, e := range errs {
				var se *scenario.Error
				Expect(errors.As(e, &se)).To(BeTrue())
				Expect(se.Path).To(Equal("suite.yaml"))
				Expect(se.Line).To(BeNumerically(">=", 1))
				Expect(se.Msg).NotTo(ContainSubstring("\n"))
			}

			got := err.Error() + "\n"
			if *update {
				setSection(ar, "errors", []byte(got))
				Expect(os.WriteFile(file, txtar.Format(ar), 0o644)).To(Succeed())
				return
			}
			Expect(got).To(Equal(string(want)), "run go test ./harness/scenario/ -update and review the diff")
		},
		entries,
	)

	It("reports all four problems of a file with four, each at its line", func() {
		ar, err := txtar.ParseFile("testdata/invalid/four-problems.txtar")
		Expect(err).NotTo(HaveOccurred())
		_, err = scenario.Parse("suite.yaml", section(ar, "suite.yaml"), opts)
		var errs scenario.Errors
		Expect(errors.As(err, &errs)).To(BeTrue())
		var lines []int
		for _, e := range errs {
			lines = append(lines, e.(*scenario.Error).Line)
		}
		Expect(lines).To(Equal([]int{1, 12, 16, 24}))
	})
})

func section(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func setSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

var _ = Describe("LoadDir", func() {
	var dir string
	write := func(name, data string) {
		Expect(os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)).To(Succeed())
	}
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		write("b.yaml", strings.Replace(minimal, "suite: odbchat", "suite: bee", 1))
		write("a.yaml", strings.Replace(minimal, "suite: odbchat", "suite: ay", 1))
		write("notes.md", "not a suite")
		write("prompts/x.yaml", "not: a suite")
	})

	It("loads every *.yaml file in the directory, by name", func() {
		suites, err := scenario.LoadDir(dir, opts)
		Expect(err).NotTo(HaveOccurred())
		Expect(suites).To(HaveLen(2))
		Expect(suites[0].Name).To(Equal("ay"))
		Expect(suites[0].Path).To(Equal(filepath.Join(dir, "a.yaml")))
		Expect(suites[1].Name).To(Equal("bee"))
	})

	It("puts a suite before the suites whose names extend it", func() {
		Expect(os.WriteFile(filepath.Join(dir, "a-chaos.yaml"), []byte(strings.Replace(minimal, "suite: odbchat", "suite: ay-chaos", 1)), 0o644)).To(Succeed())
		suites, err := scenario.LoadDir(dir, opts)
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, s := range suites {
			names = append(names, s.Name)
		}
		Expect(names).To(Equal([]string{"ay", "ay-chaos", "bee"}))
	})

	It("refuses two files that define one suite, naming both", func() {
		Expect(os.WriteFile(filepath.Join(dir, "copy.yaml"), []byte("# a copy\n"+strings.Replace(minimal, "suite: odbchat", "suite: bee", 1)), 0o644)).To(Succeed())
		suites, err := scenario.LoadDir(dir, opts)
		Expect(suites).To(BeNil())
		Expect(err).To(MatchError(scenario.ErrInvalidSuite))
		Expect(err.Error()).To(Equal(filepath.Join(dir, "copy.yaml") + `:2: suite: "bee" is also the name of the suite in ` +
			filepath.Join(dir, "b.yaml") + `:1; each suite needs its own name (it names its cassette folder); rename one`))
	})

	Describe("two suites of one agent outside testbed", func() {
		outside := func(suite, agent string) string {
			return strings.Replace(strings.Replace(minimal, "suite: odbchat", "suite: "+suite, 1), "agent: odbchat\n", agent, 1)
		}
		const weather = "agent:\n  name: weather\n  command: [node, agent.js]\n  model: {provider: openai, base_url: \"https://api.openai.com/v1\", model: gpt-4.1-mini}\n"

		It("loads them when they describe it alike", func() {
			write("w1.yaml", outside("w1", weather))
			write("w2.yaml", "# the same agent, its chaos suite\n"+outside("w2", weather))
			suites, err := scenario.LoadDir(dir, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(suites).To(HaveLen(4))
		})

		DescribeTable("refuses them when they describe it otherwise, naming both and what differs",
			func(other, key string) {
				write("w1.yaml", outside("w1", weather))
				write("w2.yaml", "# another program, one name\n"+outside("w2", other))
				suites, err := scenario.LoadDir(dir, opts)
				Expect(suites).To(BeNil())
				Expect(err).To(MatchError(scenario.ErrInvalidSuite))
				Expect(err.Error()).To(Equal(filepath.Join(dir, "w2.yaml") + `:4: agent.name: "weather" is also the name of the agent described in ` +
					filepath.Join(dir, "w1.yaml") + `:3, whose ` + key + ` differs; one name is one program, run for every suite that names it: describe it the same way in both, or give one another name`))
			},
			Entry("its command", strings.Replace(weather, "agent.js", "struct.js", 1), "command"),
			Entry("its model", strings.Replace(weather, "gpt-4.1-mini", "gpt-4.1", 1), "model"),
			Entry("how it is kept alive", weather+"  keep_alive: variant\n", "keep_alive"),
		)
	})

	It("reports the problems of all files together, a typo not also as a missing key", func() {
		Expect(os.WriteFile(filepath.Join(dir, "c.yaml"), []byte("suite: c\n"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("suite: a\nagnet: odbchat\n"), 0o644)).To(Succeed())
		suites, err := scenario.LoadDir(dir, opts)
		Expect(suites).To(BeNil())
		Expect(err).To(MatchError(scenario.ErrInvalidSuite))
		a, c := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "c.yaml")
		Expect(strings.Split(err.Error(), "\n")).To(Equal([]string{
			a + `:1: missing required key "clock"`,
			a + `:1: missing required key "baseline"`,
			a + `:1: missing required key "variants"`,
			a + `:1: missing required key "scenarios"`,
			a + `:2: unknown key "agnet" (allowed: suite, agent, clock, tokenizer, baseline, variants, thresholds, gate, gating, goodput, about, judged, reduction_without, samples, min_sample_pass_rate, faults, match, redact, prices, judge, scenarios, scenarios_from); did you mean "agent"?`,
			c + `:1: missing required key "agent"`,
			c + `:1: missing required key "clock"`,
			c + `:1: missing required key "baseline"`,
			c + `:1: missing required key "variants"`,
			c + `:1: missing required key "scenarios"`,
		}))
	})

	It("fails on a directory it cannot read", func() {
		_, err := scenario.LoadDir(filepath.Join(dir, "missing"), opts)
		Expect(err).To(MatchError(fs.ErrNotExist))
	})
})
