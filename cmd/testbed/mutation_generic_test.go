package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// An outside mutation deletes or inverts one instruction an outside
// agent's prompt states, in a copy of the example project (the prompt is
// in the agent's own source), and names a scenario whose checks see it.
// The spec records the scenario against the stand-in in a copy as given
// and in a copy as mutated: the stand-in answers an outside agent with
// the generic policy, which reads the prompt's instructions too
// (harness/standin/generic_instruct.go), so its behaviour follows the
// prompt, and so does the verdict.
type outsideMutation struct {
	example  string // the example project, under the repository
	pkg      string // a package its node_modules must hold
	file     string // the agent's source that holds its prompt
	scenario string
	mutate   func(string) string
	// changes: the mutation changes what the agent does; fails: the
	// scenario's verdict goes from pass to fail.
	changes, fails bool
}

// weatherRoute is the routing rule the weather-ts example's prompt states.
const weatherRoute = "Use get_weather for current conditions and get_forecast for the coming days."

// outsideMutations are the instruction mutations of outside agents whose
// count docs/standin.md gives beside the seeds' (promptMutations).
var outsideMutations = map[string]outsideMutation{
	"weather-ts: the route inverted (get_weather for the coming days)": {
		example: "examples/weather-ts", pkg: "openai", file: "agent.js", scenario: "forecast-lima",
		mutate: replacingText(weatherRoute, "Use get_weather for the coming days and get_forecast for current conditions."), changes: true, fails: true},
	"weather-ts: the route deleted (the default, the tools' scores, picks the same tool)": {
		example: "examples/weather-ts", pkg: "openai", file: "agent.js", scenario: "forecast-lima",
		mutate: withoutLines(weatherRoute), changes: false, fails: false},
	"weather-ts: the route inverted, asked for current conditions (the rule as read does not hold for them: the scores decide)": {
		example: "examples/weather-ts", pkg: "openai", file: "agent.js", scenario: "current-oslo",
		mutate: replacingText(weatherRoute, "Use get_weather for the coming days and get_forecast for current conditions."), changes: false, fails: false},
}

// outsideOutcome records scenario in root against the stand-in, replays
// it and returns what it did.
func outsideOutcome(root, scenario string) mutationOutcome {
	GinkgoHelper()
	r := testbed("record", "--root", root, "--scenario", scenario, "--quiet")
	Expect(r.code).To(BeElementOf(exitOK, exitRecordedFailing), "%s", r)
	r = testbed("run", "--root", root, "--scenario", scenario, "--no-baseline", "--out", "", "--json", "--quiet")
	var rep mutationReport
	Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), "%s", r)
	Expect(rep.Suites).To(HaveLen(1))
	Expect(rep.Suites[0].Variants).To(HaveLen(1))
	Expect(rep.Suites[0].Variants[0].Scenarios).To(HaveLen(1))
	s := rep.Suites[0].Variants[0].Scenarios[0]
	o := mutationOutcome{verdict: s.Verdict, answer: strings.Join(s.Answer, "\n")}
	for _, e := range s.Events {
		if e.Kind == "tool" {
			o.tools = append(o.tools, e.Tool.Name)
		}
	}
	return o
}

var _ = Describe("outside agents' prompt mutations re-recorded against the generic stand-in", Label("slow", "examples"), func() {
	for what, m := range outsideMutations {
		It(what, func() {
			given := exampleProjectOf(filepath.Join(repoRoot, m.example), m.pkg)
			mutated := exampleProjectOf(filepath.Join(repoRoot, m.example), m.pkg)
			src := filepath.Join(mutated, m.file)
			text := mustRead(src)
			changed := m.mutate(text)
			Expect(changed).NotTo(Equal(text), "the mutation changes the prompt")
			Expect(os.WriteFile(src, []byte(changed), 0o644)).To(Succeed())

			expectMutated(outsideOutcome(given, m.scenario), outsideOutcome(mutated, m.scenario), m.changes, m.fails)
		})
	}

	It("states the outside agents' prompt sensitivity docs/standin.md gives, and the figure of all the mutations", func() {
		changed, all := 0, 0
		for _, m := range outsideMutations {
			if m.changes {
				changed++
			}
		}
		for _, m := range promptMutations {
			if m.changes {
				all++
			}
		}
		doc := mustRead(filepath.Join(repoRoot, "docs", "standin.md"))
		Expect(doc).To(ContainSubstring(figure(changed, len(outsideMutations))))
		Expect(doc).To(ContainSubstring(figure(changed+all, len(outsideMutations)+len(promptMutations))))
	})
})
