package standin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// promptMarks are the stretches of committed prompts the stand-in's code
// may hold, each with its reason: the mark by which a policy accepts the
// requests of its agent's role (its Accepts). They select a policy; they
// are not an instruction the policy follows. Every other stretch of
// guardMinRun characters of a committed prompt or tool description is a
// behaviour the stand-in must read from the request, not carry.
var promptMarks = map[string]string{
	"you are climate advisor":                    "climate/advisor accepts the Climate Advisor's requests by it",
	"data assistant for sustainable agriculture": "cba/assistant accepts the CBA assistant's requests by it",
	"you are the family assistant":               "family/default accepts the family assistant's requests by it",
	"you are the data visualization service":     "family/data_visualization accepts the visualization service's requests by it",
	"you are the executor of vaya":               "kura/executor accepts Kura's executor requests by it",
	"you are the planner of vaya":                "kura/planner accepts Kura's planner requests by it",
	"you are the synthesizer of vaya":            "kura/synthesizer accepts Kura's synthesizer requests by it",
	"single-pass classifier+router":              "odbchat/router accepts ODBchat's single-pass router requests by it",
}

// Why an agent-specific literal is still in the stand-in's code.
const (
	literalPrescribed = "a reply or flow the agent's prompt prescribes, written in the policy: not an instruction form instruct reads yet"
	literalField      = "a key, path or value of the agent's wire format (JSON keys, world-state paths, dataset fields, an example id) the policy reads or writes: domain data"
	literalCommon     = "a common English phrase that states no instruction"
)

// knownLiterals are the stretches of committed prompts and tool
// descriptions the stand-in's code still holds (its subpackages
// included), each with the file that holds it and why. The list only
// shrinks: a new stretch fails the guard, and so does an entry the code no
// longer holds (delete it).
var knownLiterals = []struct{ stretch, reason string }{
	{" minimum and maximum", literalCommon + " (generic_args.go: a range's bounds)"},
	{" question about the ", literalCommon + " (cba.go: a rule's doc)"},
	{"the user asks about ", literalCommon + " (cba.go: a rule's doc)"},
	{"the user asks about the", literalCommon + " (cba.go: a rule's doc)"},
	{" the cba monitoring indicators", literalPrescribed + " (cba.go: the no-intent rule's question back, in the agent's domain words)"},
	{" cba monitoring indicators", literalPrescribed + " (cba.go: the same reply)"},
	{" weather and climate", literalPrescribed + " (cba.go: own-tools lists the user-facing categories in the prompt's words when the prompt forbids naming tools; the categories are not read from the prompt yet)"},
	{" the internal climate knowledge base.", literalPrescribed + " (climate_results.go: the prompt says to say excerpts come from it; the policy says it itself)"},
	{" the internal climate knowledge base (", literalPrescribed + " (climate_results.go: the same, before the source)"},
	{"data sources available for ", literalPrescribed + " (climate_results.go: count-sources says how many, as the prompt asks; worded in the policy)"},
	{" answer a question about ", literalCommon + " (cba.go: a rule's doc)"},
	{" with the attachment", literalCommon + " (family.go: a comment)"},
	{" the first and last ", literalCommon + " (family_rules.go, family_viz.go: rule docs)"},
	{" with a jq program that ", literalPrescribed + " (family_viz.go: the visualization service's jq attachment, the shape its prompt prescribes, built by the policy)"},
	{"\"unavailable\", \"unknown\"", literalField + " (lexicon.go: Home Assistant's non-numeric states)"},
	{" and context.lastweather ", literalField + " (kura.go, kura_results.go: world-state paths the executor writes)"},
	{" context.places_found", literalField + " (kura.go, kura_results.go: a world-state path)"},
	{" context.reverse_geocode_result", literalField + " (kura_results.go: a world-state path)"},
	{" the step and the world state", literalCommon + " (kura_executor.go: a comment on the executor's input)"},
	{" and the world state", literalCommon + " (kura_executor.go: a comment)"},
	{", taking coordinates from ", literalPrescribed + " (kura.go: the executor takes coordinates from context.places, as its prompt says; not read from the prompt)"},
	{" against world_state.meta.now in ", literalField + " (kura.go: the planner's clock field)"},
	{" geocode or geolocate ", literalPrescribed + " (kura_planner.go: the planner puts a Weather step after the Geocode or Geolocate it needs, as its prompt's action list says; not read from the prompt)"},
	{" geolocate, then reversegeocode", literalPrescribed + " (kura_planner.go: the where-am-I plan the prompt prescribes, written in the policy)"},
	{", \"status\": \"planning\", \"confidence\": 0.", literalField + " (kura_planner.go: the plan's JSON, the planner's protocol)"},
	{"\", \"confidence\": 0.8", literalField + " (kura_planner.go: the plan's JSON)"},
	{" \"mean sst over a box", literalField + " (odbchat.go: the router's rationale, beside the catalog's words)"},
	{": \"asks for a program.\"", literalPrescribed + " (odbchat.go: the code route's rationale)"},
	{"e words relative to ", literalCommon + " (standin.go: a comment on date words)"},
	{" sensor.pool_temperature", literalField + " (family.go, family_rules.go: the history tool's example entity id, quoted in a doc and asked back for all sensors)"},
	{" the coordinates of a", literalCommon + " (kura.go: a comment)"},
}

// committedPrompts returns the committed prompts (scenarios/prompts and
// agents/*/prompts), folded, by path.
func committedPrompts(root string) map[string]string {
	var files []string
	for _, glob := range []string{"scenarios/prompts/*", "agents/*/prompts/*"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		Expect(err).NotTo(HaveOccurred())
		files = append(files, m...)
	}
	Expect(files).NotTo(BeEmpty())
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		rel, _ := filepath.Rel(root, f)
		out[rel] = guardFold(string(b))
	}
	return out
}

// descriptionRe is a tool's or parameter's description in a recorded
// request body, as the cassette's YAML quotes it.
var descriptionRe = regexp.MustCompile(`"description":"((?:[^"\\]|\\.)*)"`)

// committedDescriptions returns the tool and parameter descriptions the
// committed cassettes' model requests carry, folded, by the first cassette
// that carries each. One cassette per suite and variant is read: its
// agent offers the same tools in every scenario.
func committedDescriptions(root string) map[string]string {
	dirs, err := filepath.Glob(filepath.Join(root, "cassettes", "*", "*"))
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.yaml"))
		if len(files) == 0 {
			continue
		}
		b, err := os.ReadFile(files[0])
		Expect(err).NotTo(HaveOccurred())
		text := strings.ReplaceAll(string(b), "''", "'")
		for _, m := range descriptionRe.FindAllStringSubmatch(text, -1) {
			desc := guardFold(strings.NewReplacer(`\n`, " ", `\"`, `"`, `\\`, `\`).Replace(m[1]))
			if _, seen := out[desc]; !seen {
				rel, _ := filepath.Rel(root, files[0])
				out[desc] = rel
			}
		}
	}
	Expect(out).NotTo(BeEmpty())
	return out
}

// windowsOf indexes every stretch of guardMinRun runes of each source, by
// stretch, with the files holding it.
func windowsOf(src map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, f := range slices.Sorted(mapKeys(src)) {
		runes := []rune(src[f])
		for i := 0; i+guardMinRun <= len(runes); i++ {
			w := string(runes[i : i+guardMinRun])
			if fs := out[w]; len(fs) == 0 || fs[len(fs)-1] != f {
				out[w] = append(out[w], f)
			}
		}
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// stretch is a stretch of a committed text found in the stand-in's code.
type stretch struct {
	text  string
	files []string
}

// stretchesIn returns, for text, each longest stretch of guardMinRun runes
// or more that a source holds and no allowed mark covers, with its files.
func stretchesIn(text string, windows map[string][]string, allowed map[string]string) []stretch {
	runes := []rune(text)
	var out []stretch
	for i := 0; i+guardMinRun <= len(runes); {
		fs, ok := windows[string(runes[i:i+guardMinRun])]
		if !ok {
			i++
			continue
		}
		j := i + guardMinRun
		for j < len(runes) {
			if _, more := windows[string(runes[j+1-guardMinRun:j+1])]; !more {
				break
			}
			j++
		}
		st := string(runes[i:j])
		if !slices.ContainsFunc(slices.Collect(mapKeys(allowed)), func(mark string) bool { return strings.Contains(mark, strings.TrimSpace(st)) }) {
			out = append(out, stretch{st, fs})
		}
		i = j
	}
	return out
}

var _ = Describe("the stand-in's code against the committed prompts and tool descriptions", func() {
	root := filepath.Join("..", "..")

	It("holds no 20-character stretch of a committed prompt or tool description but the marks that select a policy and the listed literals", func() {
		windows := windowsOf(standinSource())
		texts := committedPrompts(root)
		for d, cassette := range committedDescriptions(root) {
			texts[cassette+" (a tool description)"] += "\n" + d
		}
		known := map[string]bool{}
		for _, k := range knownLiterals {
			known[k.stretch] = true
		}
		found := map[string]bool{}
		var violations []string
		for _, p := range slices.Sorted(mapKeys(texts)) {
			for _, st := range stretchesIn(texts[p], windows, promptMarks) {
				found[st.text] = true
				if !known[st.text] {
					violations = append(violations, fmt.Sprintf("%s: %q (in %s)", p, st.text, strings.Join(st.files, ", ")))
				}
			}
		}
		for _, k := range knownLiterals {
			if !found[k.stretch] {
				violations = append(violations, fmt.Sprintf("%q is listed in knownLiterals but no longer in the code: delete the entry", k.stretch))
			}
		}
		Expect(violations).To(BeEmpty(), "%d violations:\n%s", len(violations), strings.Join(violations, "\n"))
	})

	It("allows only marks some committed prompt holds, each with a reason", func() {
		all := strings.Join(slices.Collect(func(yield func(string) bool) {
			for _, p := range committedPrompts(root) {
				if !yield(p) {
					return
				}
			}
		}), "\n")
		for mark, reason := range promptMarks {
			Expect(all).To(ContainSubstring(mark), "a mark no prompt holds guards nothing")
			Expect(reason).NotTo(BeEmpty(), mark)
		}
	})

	It("finds a planted stretch, and lets a mark through", func() {
		windows := windowsOf(map[string]string{"x.go": guardFold(`if strings.Contains(sys, "Never show raw coordinates to the user") {`)})
		Expect(stretchesIn(guardFold("Rules: never show raw coordinates to the user."), windows, nil)).To(ConsistOf(stretch{"never show raw coordinates to the user", []string{"x.go"}}))
		Expect(stretchesIn(guardFold("never show raw coordinates"), windows, map[string]string{"never show raw coordinates to the user": "a test"})).To(BeEmpty())
		Expect(stretchesIn(guardFold("nothing like it anywhere in that code"), windows, nil)).To(BeEmpty())
	})
})
