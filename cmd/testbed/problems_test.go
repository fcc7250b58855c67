package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/lint"
)

var _ = Describe("problems in suite files", func() {
	It("are reported all at once: every file, every kind, sorted by path and line, exit 2", func() {
		root := project()
		suite := filepath.Join(root, "scenarios", "odbchat.yaml")
		replace(suite, "\nabout:", "\nabuot:", 1)                                                                       // an unknown key
		replace(suite, `config: {router: legacy}`, `config: {router: legacy, nonsense: 1}`, 1)                          // a config the agent refuses
		replace(suite, `- "routing_accuracy >= 0.95"`, `- "routing_accuracy >= lots"`, 1)                               // a bad threshold
		replace(suite, `answer: {contains: ["2025-11-06", "26.4 °C"`, `answer: {contain: ["2025-11-06", "26.4 °C"`, -1) // a bad expectation
		other := filepath.Join(root, "scenarios", "another.yaml")
		Expect(os.WriteFile(other, []byte("suite: another\nagent: odbchat\nclock: yesterday\n"), 0o644)).To(Succeed())

		for _, cmd := range []string{"run", "lint", "record"} {
			r := testbed(cmd, "--root", root)

			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(`odbchat.yaml:17: unknown key "abuot"`))
			Expect(r.stderr).To(ContainSubstring(`odbchat.yaml:25: variants.legacy.config: json: unknown field "nonsense"`))
			Expect(r.stderr).To(ContainSubstring(`routing_accuracy >= lots`))
			Expect(r.stderr).To(MatchRegexp(`odbchat.yaml:\d+: scenarios\[0\]\.expect\.answer: unknown key "contain"`))
			Expect(r.stderr).To(ContainSubstring(`another.yaml:3: clock: "yesterday" is not an RFC 3339 time`))
			Expect(r.stderr).To(ContainSubstring(`another.yaml:1: missing required key "baseline"`))
			Expect(problemOrder(r.stderr)).To(BeTrue(), "sorted by path and line:\n%s", r.stderr)
		}
	})
})

var problemLine = regexp.MustCompile(`(?m)^(?:testbed: )?(\S+\.yaml):(\d+): `)

// problemOrder reports whether the path:line problems in out are sorted by
// path and then line.
func problemOrder(out string) bool {
	type at struct {
		path string
		line int
	}
	var got []at
	for _, m := range problemLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		got = append(got, at{m[1], n})
	}
	return len(got) > 1 && sort.SliceIsSorted(got, func(i, j int) bool {
		return got[i].path < got[j].path || got[i].path == got[j].path && got[i].line < got[j].line
	}) && !strings.Contains(out, "\n\n")
}

var _ = Describe("testbed lint", func() {
	It("checks every tool an expectation names against the variant's tools", func() {
		root := project()
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), "tools: [ghrsst.bbox_mean]", "tools: [ghrsst.bbox_meen]", -1)

		r := testbed("lint", "--root", root)

		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(MatchRegexp(`scenarios/odbchat.yaml:51: scenario ac1-taiwan-sst: expect.tools names tool "ghrsst.bbox_meen", which variant single-pass of agent odbchat does not have; did you mean "ghrsst.bbox_mean"\?`))
		Expect(r.stdout).NotTo(ContainSubstring("variant legacy"), "legacy overrides the tools it expects")
	})

	It("checks the judge's prompt template as grading reads it: a misspelt field is the suite's problem at its line, exit 2, not the grading run's", func() {
		root := project()
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), "judge: {provider: openai, model: gpt-4.1-mini}",
			"judge:\n  provider: openai\n  model: gpt-4.1-mini\n  prompt: |\n    Rubric: {{.Rubric}}\n    Answer: {{.Answr}}", 1)

		for _, cmd := range []string{"lint", "run"} {
			r := testbed(cmd, "--root", root)

			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(MatchRegexp(`scenarios/odbchat\.yaml:374: judge\.prompt: \.Answr is not something the grader's prompt sees \(it sees \.Rubric, \.Input, \.Answer, \.Tools, \.ToolResults\); did you mean \.Answer\?`))
		}
	})

	It("checks each agent's upstream stubs (fixtures/<agent>/routes.yaml) as a recording loads them, every problem as path:line, exit 2", func() {
		root := project()
		routes := filepath.Join(root, "fixtures", "odbchat", "routes.yaml")
		replace(routes, "file: ghrsst/taiwan_nearby_2025-11-06.json", "file: ghrsst/no_such_day.json", 1)
		replace(routes, "latency: 140ms", "latency: soon", -1)

		r := testbed("lint", "--root", root)

		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(MatchRegexp(`fixtures/odbchat/routes\.yaml:\d+: .*no_such_day\.json`))
		Expect(r.stderr).To(MatchRegexp(`fixtures/odbchat/routes\.yaml:\d+: .*soon`))
		Expect(r.stdout).NotTo(ContainSubstring("agree"), "lint does not say all is well")
	})

	It("reads each suite's prices: file as a run reads it: a missing table and a broken one are path:line, both at once, exit 2, as run refuses them", func() {
		root := project()
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), "prices:\n  models:", "prices:\n  file: prices/none.json\n  models:", 1)
		// a second suite, the same but for its name and its table
		data, err := os.ReadFile(filepath.Join(root, "scenarios", "odbchat.yaml"))
		Expect(err).NotTo(HaveOccurred())
		other := strings.Replace(strings.Replace(string(data), "suite: odbchat\n", "suite: odbchat-again\n", 1), "prices/none.json", "prices/broken.json", 1)
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "odbchat-again.yaml"), []byte(other), 0o644)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(root, "prices"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "prices", "broken.json"), []byte(`{"gpt-4.1": `), 0o644)).To(Succeed())

		r := testbed("lint", "--root", root)

		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(MatchRegexp(`scenarios/odbchat\.yaml:\d+: prices: .*prices/none\.json`))
		Expect(r.stderr).To(MatchRegexp(`scenarios/odbchat-again\.yaml:\d+: prices: .*prices/broken\.json:1: not a LiteLLM price table`))
		Expect(r.stdout).NotTo(ContainSubstring("agree"), "lint does not say all is well")
	})

	It("lists the upstream stubs' and the price table's problems with --json too, each with its path, line and message, as many as it says", func() {
		root := project()
		routes := filepath.Join(root, "fixtures", "odbchat", "routes.yaml")
		replace(routes, "file: ghrsst/taiwan_nearby_2025-11-06.json", "file: ghrsst/no_such_day.json", 1)
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), "prices:\n  models:", "prices:\n  file: prices/none.json\n  models:", 1)

		r := testbed("lint", "--root", root, "--json")

		Expect(r.code).To(Equal(exitUsage), r.String())
		var listed []lint.Problem
		Expect(json.Unmarshal([]byte(r.stdout), &listed)).To(Succeed(), r.stdout)
		Expect(listed).To(ContainElement(And(
			HaveField("Path", HaveSuffix(filepath.Join("fixtures", "odbchat", "routes.yaml"))),
			HaveField("Line", BeNumerically(">", 0)),
			HaveField("Message", ContainSubstring("no_such_day.json")))))
		Expect(listed).To(ContainElement(And(
			HaveField("Path", HaveSuffix(filepath.Join("scenarios", "odbchat.yaml"))),
			HaveField("Line", BeNumerically(">", 0)),
			HaveField("Message", And(HavePrefix("prices: "), ContainSubstring("prices/none.json"))))))
		said := strings.Split(strings.TrimSpace(strings.TrimPrefix(r.stderr, "testbed: ")), "\n")
		Expect(listed).To(HaveLen(len(said)), "one problem in the JSON for each line on stderr")
		for i, p := range listed {
			Expect(p.String()).To(Equal(said[i]))
		}
	})
})
