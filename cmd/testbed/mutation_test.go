package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gopkg.in/yaml.v3"
)

// A prompt mutation deletes or inverts one instruction an agent's prompt
// states, and names a committed scenario whose checks see that
// instruction. The spec records the scenario against the stand-in twice,
// with the prompt as given and as mutated, and replays both: the stand-in
// reads instructions from the prompt (harness/standin/instruct), so the
// behaviour follows the prompt, and so does the verdict.
type promptMutation struct {
	suite    string // the committed suite the scenario and the variant come from
	variant  string // its variant whose config the spec copies
	scenario string
	key      string // the config key that points the agent at a prompt file
	prompt   string // the prompt the mutation starts from, under the repository
	mutate   func(string) string
	// changes: the mutation changes what the agent does (its answer or
	// its tool calls); fails: the scenario's verdict goes from pass to fail.
	changes, fails bool
}

// withoutLines deletes the lines of a prompt that hold any of subs; the
// prompt must hold each.
func withoutLines(subs ...string) func(string) string {
	return func(p string) string {
		var keep []string
		for _, s := range subs {
			Expect(p).To(ContainSubstring(s))
		}
	lines:
		for _, l := range strings.Split(p, "\n") {
			for _, s := range subs {
				if strings.Contains(l, s) {
					continue lines
				}
			}
			keep = append(keep, l)
		}
		return strings.Join(keep, "\n")
	}
}

// swapping exchanges every a and b of a prompt.
func swapping(a, b string) func(string) string {
	return func(p string) string {
		Expect(p).To(ContainSubstring(a))
		Expect(p).To(ContainSubstring(b))
		return strings.NewReplacer(a, b, b, a).Replace(p)
	}
}

// replacingText replaces old, which the prompt must hold, by new.
func replacingText(old, new string) func(string) string {
	return func(p string) string {
		Expect(p).To(ContainSubstring(old))
		return strings.Replace(p, old, new, 1)
	}
}

// withLine adds a line at the end of a prompt.
func withLine(line string) func(string) string {
	return func(p string) string { return strings.TrimRight(p, "\n") + "\n" + line + "\n" }
}

// climateKnowledge is the Climate Advisor prompt's condition on calling
// its knowledge search and what follows it, and climateKnowledgeInverted
// the same sentences with the two kinds of question exchanged.
const (
	climateKnowledge         = "only when the user needs sourced climate facts: science, methodology, standards or policy (GPC, scopes, global warming potentials, emission factors, sector methods). Do not call it for CityCatalyst product questions or inventory operations."
	climateKnowledgeInverted = "only when the user asks CityCatalyst product questions or about inventory operations. Do not call it for sourced climate facts: science, methodology, standards or policy (GPC, scopes, global warming potentials, emission factors, sector methods)."
)

// promptMutations are the instruction mutations whose count is the
// stand-in's prompt sensitivity (docs/standin.md): of these, the ones with
// changes set change behaviour.
var promptMutations = map[string]promptMutation{
	"climate: the inventory flow inverted (get_all_datasources before get_inventory)": {
		suite: "climate", variant: "untrimmed", scenario: "datasources-rio", key: "prompt", prompt: "agents/climate/prompts/default.md",
		mutate: swapping("`get_inventory`", "`get_all_datasources`"), changes: true, fails: true},
	"climate: the ordering step deleted (the default order is the request's, the same)": {
		suite: "climate", variant: "untrimmed", scenario: "datasources-rio", key: "prompt", prompt: "agents/climate/prompts/default.md",
		mutate: withoutLines("Only after an inventory is identified"), changes: false, fails: false},
	"climate: the condition on calling the knowledge search inverted (product and inventory questions only)": {
		suite: "climate", variant: "untrimmed", scenario: "knowledge-gpc-levels", key: "prompt", prompt: "agents/climate/prompts/default.md",
		mutate: replacingText(climateKnowledge, climateKnowledgeInverted), changes: true, fails: true},
	"climate: the condition on calling the knowledge search deleted (the default, the lexicon, calls it for the same question)": {
		suite: "climate", variant: "untrimmed", scenario: "knowledge-gpc-levels", key: "prompt", prompt: "agents/climate/prompts/default.md",
		mutate: withoutLines("Call `climate_vector_search` only when"), changes: false, fails: false},
	"kura: the temperature format deleted": {
		suite: "kura", variant: "full-state", scenario: "weather-one-city", key: "synthesizer_prompt", prompt: "agents/kura/prompts/synthesizer.md",
		mutate: withoutLines("Format temperatures"), changes: true, fails: true},
	"kura: the feels-like rule deleted": {
		suite: "kura", variant: "full-state", scenario: "feels-like-only-when-different", key: "synthesizer_prompt", prompt: "agents/kura/prompts/synthesizer.md",
		mutate: withoutLines(`Mention "feels like"`), changes: true, fails: true},
	"kura: the length rule deleted": {
		suite: "kura", variant: "full-state", scenario: "weather-three-cities", key: "synthesizer_prompt", prompt: "agents/kura/prompts/synthesizer.md",
		mutate: withoutLines("one to three short sentences"), changes: true, fails: false},
	"odbchat: the mcp routing rule deleted": {
		suite: "odbchat", variant: "single-pass", scenario: "ac1-taiwan-sst", key: "router_prompt", prompt: "agents/odbchat/prompts/router.md",
		mutate: withoutLines(`"mcp" when`), changes: true, fails: true},
	"odbchat: the JSON output shape deleted": {
		suite: "odbchat", variant: "single-pass", scenario: "ac1-taiwan-sst", key: "router_prompt", prompt: "agents/odbchat/prompts/router.md",
		mutate: withoutLines("Reply with ONE JSON object"), changes: true, fails: true},
	"family: the jq_query instruction deleted": {
		suite: "family", variant: "inline", scenario: "pool-readings-count", key: "prompt", prompt: "agents/family/prompts/default.md",
		mutate: withoutLines("call `jq_query`"), changes: true, fails: true},
	"family: the delegation rule deleted (the chart rule reads the lexicon and the tools' descriptions, not this rule)": {
		suite: "family", variant: "inline", scenario: "pool-chart-5-days", key: "prompt", prompt: "agents/family/prompts/default.md",
		mutate: withoutLines("call `delegate_to_service`"), changes: false, fails: false},
	"family: the visualization service's jq guidance deleted (no change: the note the framework injects with a schema says to use the jq tool too)": {
		suite: "family", variant: "schema", scenario: "pool-chart-5-days", key: "viz_prompt", prompt: "agents/family/prompts/data_visualization.md",
		mutate: withoutLines("with `jq_query`"), changes: false, fails: false},
	"cba: the answer language inverted (French instead of the user's)": {
		suite: "cba", variant: "full", scenario: "upstream-error", key: "prompt", prompt: "agents/cba/prompts/full.md",
		mutate: replacingText("Answer in the user's language.", "Answer in French."), changes: true, fails: true},
	"cba: a one-sentence limit stated (its prompt states none)": {
		suite: "cba", variant: "full", scenario: "feasible-methods-low-cost", key: "prompt", prompt: "agents/cba/prompts/full.md",
		mutate: withLine("Answer in one sentence."), changes: true, fails: true},
	"cba: the prohibition on naming internal tools deleted, asked for its tools": {
		suite: "cba", variant: "minimal-help", scenario: "what-tools-do-you-have", key: "prompt", prompt: "agents/cba/prompts/minimal-help.md",
		mutate: withoutLines("never mention them", "never name the internal tools"), changes: true, fails: true},
	"cba: the prohibition on naming internal tools deleted": {
		suite: "cba", variant: "minimal-help", scenario: "how-did-you-work", key: "prompt", prompt: "agents/cba/prompts/minimal-help.md",
		mutate: withoutLines("never mention them", "never name the internal tools"), changes: true, fails: true},
}

// mutationSuite writes, under root, a suite named name holding the one
// scenario m names from its committed suite, with two variants of m's
// variant: given (the prompt as committed) and mutated (the prompt file
// the mutation wrote).
func mutationSuite(root, name string, m promptMutation) {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "scenarios", m.suite+".yaml"))
	Expect(err).NotTo(HaveOccurred())
	var suite map[string]any
	Expect(yaml.Unmarshal(data, &suite)).To(Succeed())
	var scenario map[string]any
	for _, s := range suite["scenarios"].([]any) {
		if s.(map[string]any)["id"] == m.scenario {
			scenario = s.(map[string]any)
		}
	}
	Expect(scenario).NotTo(BeNil(), "%s in %s", m.scenario, m.suite)
	if per, ok := scenario["variants"].(map[string]any); ok {
		scenario["variants"] = map[string]any{"given": per[m.variant], "mutated": per[m.variant]}
		if per[m.variant] == nil {
			delete(scenario, "variants")
		}
	}
	variant := suite["variants"].(map[string]any)[m.variant].(map[string]any)
	config, _ := variant["config"].(map[string]any)
	mutated := map[string]any{}
	for k, v := range config {
		mutated[k] = v
	}
	given, err := os.ReadFile(filepath.Join(repoRoot, m.prompt))
	Expect(err).NotTo(HaveOccurred())
	text := m.mutate(string(given))
	Expect(text).NotTo(Equal(string(given)), "the mutation changes the prompt")
	Expect(os.MkdirAll(filepath.Join(root, "scenarios", "prompts"), 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(root, "scenarios", "prompts", name+".md"), []byte(text), 0o644)).To(Succeed())
	mutated[m.key] = "prompts/" + name + ".md"
	copyOf := func(config map[string]any) map[string]any {
		v := map[string]any{}
		for k, x := range variant {
			v[k] = x
		}
		v["config"] = config
		return v
	}
	for _, k := range []string{"thresholds", "about", "judge", "baseline"} {
		delete(suite, k)
	}
	suite["suite"] = name
	suite["baseline"] = "given"
	suite["variants"] = map[string]any{"given": copyOf(config), "mutated": copyOf(mutated)}
	suite["scenarios"] = []any{scenario}
	out, err := yaml.Marshal(suite)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(root, "scenarios", name+".yaml"), out, 0o644)).To(Succeed())
}

// mutationOutcome is what one variant's run of the scenario did.
// expectMutated checks a mutation's outcome: the committed scenario passes
// with the prompt as given, the behaviour (answer or tools called) changes
// exactly when changes says so, and the mutated run fails exactly when fails
// says so.
func expectMutated(given, mutated mutationOutcome, changes, fails bool) {
	GinkgoHelper()
	Expect(given.verdict).To(Equal("pass"), "the committed scenario passes with the prompt as given: %+v", given)
	changed := given.answer != mutated.answer || strings.Join(given.tools, ",") != strings.Join(mutated.tools, ",")
	Expect(changed).To(Equal(changes), "behaviour: as given %+v, mutated %+v", given, mutated)
	want := "pass"
	if fails {
		want = "fail"
	}
	Expect(mutated.verdict).To(Equal(want), "mutated: %+v", mutated)
}

// mutationReport is the part of a `run --json` report the mutation specs
// read: each scenario's verdict, answer and tool calls, by variant.
type mutationReport struct {
	Suites []struct {
		Variants []struct {
			Name      string `json:"name"`
			Scenarios []struct {
				Verdict string   `json:"verdict"`
				Answer  []string `json:"answer"`
				Events  []struct {
					Kind string `json:"kind"`
					Tool struct {
						Name string `json:"name"`
					} `json:"tool"`
				} `json:"events"`
			} `json:"scenarios"`
		} `json:"variants"`
	} `json:"suites"`
}

type mutationOutcome struct {
	verdict string
	answer  string
	tools   []string
}

// outcomes replays suite name under root and returns each variant's
// mutationOutcome of its one scenario.
func mutationOutcomes(root, name string) map[string]mutationOutcome {
	GinkgoHelper()
	r := testbed("run", "--root", root, "--suite", name, "--json", "--quiet")
	var rep mutationReport
	Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), "%s", r)
	out := map[string]mutationOutcome{}
	for _, v := range rep.Suites[0].Variants {
		Expect(v.Scenarios).To(HaveLen(1))
		s := v.Scenarios[0]
		o := mutationOutcome{verdict: s.Verdict, answer: strings.Join(s.Answer, "\n")}
		for _, e := range s.Events {
			if e.Kind == "tool" {
				o.tools = append(o.tools, e.Tool.Name)
			}
		}
		out[v.Name] = o
	}
	return out
}

var _ = Describe("prompt mutations re-recorded against the stand-in", Label("slow"), func() {
	for what, m := range promptMutations {
		It(what, func() {
			root := projectOf(m.suite, m.suite)
			name := m.suite + "-mutation"
			mutationSuite(root, name, m)
			r := testbed("record", "--root", root, "--suite", name, "--quiet")
			Expect(r.code).To(BeElementOf(exitOK, exitRecordedFailing), "%s", r)
			got := mutationOutcomes(root, name)
			expectMutated(got["given"], got["mutated"], m.changes, m.fails)
		})
	}

	It("states the prompt sensitivity docs/standin.md gives: of the instruction mutations, how many change behaviour", func() {
		changed := 0
		for _, m := range promptMutations {
			if m.changes {
				changed++
			}
		}
		doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "standin.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(doc)).To(ContainSubstring(figure(changed, len(promptMutations))))
	})
})

// figure is how docs/standin.md writes the prompt sensitivity.
func figure(changed, of int) string {
	return fmt.Sprintf("**%d of %d** instruction mutations change", changed, of)
}
