package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// withRubric writes the project's odbchat suite under root with a judge:
// block and rubric on one scenario, and loads it.
func withRubric(root, rubric string) *scenario.Suite {
	GinkgoHelper()
	path := filepath.Join(root, "scenarios", "odbchat.yaml")
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	s := strings.Replace(unjudged(string(data)), "\nvariants:\n", "\njudge: {provider: openai, model: gpt-4.1-mini}\nvariants:\n", 1)
	s = strings.Replace(s, "    input: \"What is a marine heatwave?\"\n    expect:\n",
		"    input: \"What is a marine heatwave?\"\n    expect:\n      rubric: '"+rubric+"'\n", 1)
	Expect(s).To(ContainSubstring("rubric:"))
	Expect(os.WriteFile(path, []byte(s), 0o644)).To(Succeed())
	return loadSuite(root)
}

// unjudged is a suite file without its judge: block and rubric checks of
// one line, for specs that write their own.
func unjudged(suite string) string {
	var out []string
	for _, l := range strings.Split(suite, "\n") {
		if !strings.HasPrefix(l, "judge: ") && !strings.HasPrefix(strings.TrimSpace(l), "rubric: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

var _ = Describe("rubric checks graded by the stand-in judge", Ordered, func() {
	const id, variant = "explain-marine-heatwave", "single-pass"
	var rec *recording
	var suite *scenario.Suite
	var recorded report.Scenario
	var judgePath string
	var opts runner.Options

	BeforeAll(func() {
		rec = startRecording()
		suite = withRubric(rec.root, "The answer explains that a marine heatwave is a spell of unusually warm sea water")
		Expect(rec.sis.RouteJudges([]*scenario.Suite{suite})).To(Succeed())
		rec.suite = suite
		opts = runner.Options{Scenario: id, Variant: variant, JudgeRoutes: rec.sis.Judges}
		judgePath = cassette.JudgePath(rec.root, "odbchat", variant, id, 1)
		recorded = scenarios(rec.record(nil, opts))[variant+"/"+id]
	})

	It("records the grading in the scenario's grader cassette, labelled and apart from the agent's calls", func() {
		Expect(recorded.Verdict).To(Equal(report.VerdictPass), recorded.Error)
		var rubric *report.Check
		for i, c := range recorded.Checks {
			if c.Name == "rubric[0]" {
				rubric = &recorded.Checks[i]
			}
		}
		Expect(rubric).NotTo(BeNil())
		Expect(rubric.Pass).To(BeTrue())
		Expect(rubric.Judged).To(BeTrue())
		Expect(rubric.Detail).To(MatchRegexp(`^score 1\.00 \(min 0\.70\), rule-based stand-in judge: `))
		Expect(rubric.Score).To(HaveValue(BeNumerically("==", 1)), "the score as a number too")
		Expect(recorded.Grading).NotTo(BeNil())
		Expect(recorded.Grading.Calls).To(Equal(1))
		Expect(recorded.Grading.StandIn).To(BeTrue())
		Expect(recorded.Grading.InputTokens).To(BeNumerically(">", 0))
		// Priced as the judge's model, gpt-4.1-mini: $0.40 and $1.60 per
		// million input and output tokens.
		Expect(recorded.Grading.Unpriced).To(BeFalse())
		Expect(recorded.Grading.CostUSD).To(BeNumerically("~", float64(recorded.Grading.InputTokens)*0.4e-6+float64(recorded.Grading.OutputTokens)*1.6e-6, 1e-12))
		Expect(recorded.Grading.CostUSD).To(BeNumerically(">", 0))
		// The agent's figures hold its own calls only: the explain route's two.
		Expect(recorded.Metrics.LLMCalls).To(Equal(2))
		prov, err := cassette.ReadProvenance(judgePath)
		Expect(err).NotTo(HaveOccurred())
		Expect(prov.Role).To(Equal(cassette.RoleJudge))
		Expect(prov.StandIn).To(BeTrue())
		body, err := os.ReadFile(judgePath)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(ContainSubstring(`"name":"testbed_grade","strict":true`))
		Expect(string(body)).To(ContainSubstring("X-Testbed-Rule:\n                - judge:grade"))
		Expect(string(body)).NotTo(ContainSubstring(cassette.PlaceholderKey))
	})

	It("counts the grader's calls against --max-cost, and refuses them past it", func() {
		agentPath := cassette.Path(rec.root, "odbchat", variant, id)
		agentBefore, err := os.ReadFile(agentPath)
		Expect(err).NotTo(HaveOccurred())
		judgeBefore, err := os.ReadFile(judgePath)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.WriteFile, agentPath, agentBefore, os.FileMode(0o644))
		DeferCleanup(os.WriteFile, judgePath, judgeBefore, os.FileMode(0o644))

		b := &runner.Budget{Max: 10}
		o := opts
		o.Budget = b
		got := scenarios(rec.record(nil, o))[variant+"/"+id]
		Expect(got.Verdict).To(Equal(report.VerdictPass), got.Error)
		Expect(got.Grading.CostUSD).To(BeNumerically(">", 0))
		Expect(b.Spent()).To(BeNumerically("~", got.Metrics.CostUSD+got.Grading.CostUSD, 1e-12), "the spend is the agent's calls and the grader's")

		By("stopping at the grader's call when the agent's calls fit and the grader's cannot")
		// odbchat's model is self-hosted (ollama/gemma3:4b, $0 a token): its
		// calls fit any cap, and half of what the grading cost cannot hold
		// the grader's request, booked at its output cap.
		Expect(got.Metrics.CostUSD).To(BeZero())
		agentBefore, err = os.ReadFile(agentPath)
		Expect(err).NotTo(HaveOccurred())
		b = &runner.Budget{Max: got.Grading.CostUSD / 2}
		o.Budget = b
		stopped := scenarios(rec.record(nil, o))[variant+"/"+id]
		Expect(b.Stopped()).To(BeTrue())
		Expect(stopped.Verdict).NotTo(Equal(report.VerdictPass))
		Expect(stopped.Error).To(ContainSubstring("grading with"))
		Expect(stopped.Error).To(ContainSubstring("over the recording's --max-cost"))
		agentAfter, err := os.ReadFile(agentPath)
		Expect(err).NotTo(HaveOccurred())
		Expect(agentAfter).To(Equal(agentBefore), "a run whose grading was refused writes neither cassette")
	})

	It("puts the agent's cassette back when the grader's cannot be written after it, so the two still agree", func() {
		agentPath := cassette.Path(rec.root, "odbchat", variant, id)
		agentBefore, err := os.ReadFile(agentPath)
		Expect(err).NotTo(HaveOccurred())
		judgeBefore, err := os.ReadFile(judgePath)
		Expect(err).NotTo(HaveOccurred())
		// The grader's file cannot be replaced: a folder, not empty, is where it goes.
		Expect(os.Remove(judgePath)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(judgePath, "in-the-way"), 0o755)).To(Succeed())
		DeferCleanup(func() {
			Expect(os.RemoveAll(judgePath)).To(Succeed())
			Expect(os.WriteFile(judgePath, judgeBefore, 0o644)).To(Succeed())
			Expect(os.WriteFile(agentPath, agentBefore, 0o644)).To(Succeed())
		})
		// A reworded question: the agent's new cassette differs from the old.
		edited := editSuite(rec.root, `input: "What is a marine heatwave?"`, `input: "What is a marine heat wave?"`)
		got := scenarios(rec.record(edited, opts))[variant+"/"+id]
		Expect(got.Verdict).NotTo(Equal(report.VerdictPass))
		Expect(got.Error).To(ContainSubstring(cassette.WriteCause))
		after, err := os.ReadFile(agentPath)
		Expect(err).NotTo(HaveOccurred())
		Expect(bytes.Equal(after, agentBefore)).To(BeTrue(), "the agent's cassette is the one the kept grader's cassette graded")
		Expect(got.Error).To(ContainSubstring("the agent's cassette " + filepath.Join("cassettes", "odbchat", variant, id+".yaml") + " was put back as it was"))
	})

	It("replays the grading byte-identically, offline", func() {
		before, err := os.ReadFile(judgePath)
		Expect(err).NotTo(HaveOccurred())
		got := scenarios(replayAt(rec.root, suite, opts))[variant+"/"+id]
		Expect(got.Verdict).To(Equal(report.VerdictPass), got.Error)
		Expect(got.Checks).To(Equal(recorded.Checks))
		Expect(got.Grading).To(Equal(recorded.Grading))
		after, err := os.ReadFile(judgePath)
		Expect(err).NotTo(HaveOccurred())
		Expect(after).To(Equal(before))
	})

	It("calls a changed answer stale, naming the grader call and the re-grade command", func() {
		agentPath := cassette.Path(rec.root, "odbchat", variant, id)
		data, err := os.ReadFile(agentPath)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.WriteFile, agentPath, data, os.FileMode(0o644))
		// The last word of the answer, where the cassette holds it last (the
		// model's final answer), replaced by one of the same length: the
		// agent's calls still match, and its answer differs.
		words := regexp.MustCompile(`[A-Za-z]{5,}`).FindAllString(recorded.Answer[0], -1)
		Expect(words).NotTo(BeEmpty())
		word := words[len(words)-1]
		at := strings.LastIndex(string(data), word)
		changed := string(data[:at]) + strings.Repeat("x", len(word)) + string(data[at+len(word):])
		Expect(os.WriteFile(agentPath, []byte(changed), 0o644)).To(Succeed())
		got := scenarios(replayAt(rec.root, suite, opts))[variant+"/"+id]
		Expect(got.Verdict).To(Equal(report.VerdictStale))
		Expect(got.Error).To(HavePrefix("stale grading: the answer changed: grader call 1 (turn 1 rubric[0]) in cassettes/odbchat/single-pass/explain-marine-heatwave.judge.yaml"))
		Expect(got.Error).To(HaveSuffix("re-grade with: testbed record --suite odbchat --variant single-pass --scenario explain-marine-heatwave --root " + rec.root + " --record-missing"))
	})

	It("calls a changed rubric stale with the rubric's diff, and --record-missing re-grades only it", func() {
		edited := editSuite(rec.root, "spell of unusually warm sea water", "spell of unusually warm sea water; it names \"Hobday\"")
		got := scenarios(replayAt(rec.root, edited, opts))[variant+"/"+id]
		Expect(got.Verdict).To(Equal(report.VerdictStale))
		Expect(got.Error).To(ContainSubstring("stale grading: the rubric changed: grader call 1 (turn 1 rubric[0])"))
		Expect(got.Error).To(ContainSubstring("\n  - The answer explains that a marine heatwave is a spell of unusually warm sea water\n  + The answer explains that a marine heatwave is a spell of unusually warm sea water; it names \"Hobday\"\n"))

		agent, err := os.ReadFile(cassette.Path(rec.root, "odbchat", variant, id))
		Expect(err).NotTo(HaveOccurred())
		regraded := scenarios(rec.recordMissing(edited, opts))[variant+"/"+id]
		Expect(regraded.Recorded).To(Equal(1))
		Expect(regraded.Verdict).To(Equal(report.VerdictFail)) // the answer does not name Hobday
		Expect(os.ReadFile(cassette.Path(rec.root, "odbchat", variant, id))).To(Equal(agent), "re-grading leaves the agent's cassette as it was")
	})

	It("re-grades a grader cassette whole with --record-missing when the judge itself changed, leaving the agent's cassette", func() {
		rec.recordMissing(suite, opts) // the grades of the rubric as recorded, before the spec above edited it
		edited := editSuite(rec.root, "judge: {provider: openai, model: gpt-4.1-mini}", "judge: {provider: openai, model: gpt-4.1}")
		Expect(edited.Judge.Endpoint.Model).To(Equal("gpt-4.1"))
		got := scenarios(replayAt(rec.root, edited, opts))[variant+"/"+id]
		Expect(got.Verdict).To(Equal(report.VerdictStale))
		Expect(got.Error).To(ContainSubstring("stale grading: the judge's request changed"))
		Expect(got.Error).To(HaveSuffix(" --record-missing"))
		Expect(strings.Count(got.Error, "--record-missing")).To(Equal(1), "the command is given once, as what re-grades: %s", got.Error)
		Expect(got.Error).NotTo(ContainSubstring("re-record with:"))

		agent, err := os.ReadFile(cassette.Path(rec.root, "odbchat", variant, id))
		Expect(err).NotTo(HaveOccurred())
		regraded := scenarios(rec.recordMissing(edited, opts))[variant+"/"+id]
		Expect(regraded.Verdict).To(Equal(report.VerdictPass), "the command the stale verdict gave works: %s", regraded.Error)
		Expect(regraded.Recorded).To(Equal(1), "the grader call recorded again is counted, as record-missing reports it")
		prov, err := cassette.ReadProvenance(judgePath)
		Expect(err).NotTo(HaveOccurred())
		Expect(prov.Model).To(Equal("gpt-4.1"))
		Expect(os.ReadFile(cassette.Path(rec.root, "odbchat", variant, id))).To(Equal(agent), "re-grading leaves the agent's cassette as it was")
		again := scenarios(replayAt(rec.root, edited, opts))[variant+"/"+id]
		Expect(again.Verdict).To(Equal(report.VerdictPass), again.Error)
	})
})

// editSuite replaces old by new once in the odbchat suite under root, for
// the spec (the file is put back after it), and loads it.
func editSuite(root, old, new string) *scenario.Suite {
	GinkgoHelper()
	path := filepath.Join(root, "scenarios", "odbchat.yaml")
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.WriteFile, path, data, os.FileMode(0o644))
	Expect(string(data)).To(ContainSubstring(old))
	Expect(os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644)).To(Succeed())
	return loadSuite(root)
}

// recordMissing records only what s's cassettes lack.
func (r *recording) recordMissing(s *scenario.Suite, opts runner.Options) *report.Report {
	GinkgoHelper()
	opts.Mode, opts.Root, opts.Agents, opts.Routes, opts.JudgeRoutes, opts.Parallel = cassette.ModeRecordMissing, r.root, all.Registry(), r.sis.Routes, r.sis.Judges, 1
	rep, err := runner.Run(context.Background(), []*scenario.Suite{s}, opts)
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// withExamples writes the project's odbchat suite under rec's root with a
// rubric carrying labelled examples on one scenario, and loads it with its
// grader routed to the stand-in judge.
func withExamples(rec *recording) *scenario.Suite {
	GinkgoHelper()
	path := filepath.Join(rec.root, "scenarios", "odbchat.yaml")
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	s := strings.Replace(unjudged(string(data)), "\nvariants:\n", "\njudge: {provider: openai, model: gpt-4.1-mini}\nvariants:\n", 1)
	s = strings.Replace(s, "    input: \"What is a marine heatwave?\"\n    expect:\n", `    input: "What is a marine heatwave?"
    expect:
      rubric:
        - rubric: 'It names "heatwave"'
          pass: ["A marine heatwave is a long spell of warm sea.", "It is a period of unusually warm ocean water."]
          fail: ["I do not know."]
`, 1)
	Expect(os.WriteFile(path, []byte(s), 0o644)).To(Succeed())
	suite := loadSuite(rec.root)
	Expect(rec.sis.RouteJudges([]*scenario.Suite{suite})).To(Succeed())
	return suite
}

var _ = Describe("a rubric's labelled examples", func() {
	It("are graded beside the answer, and the grader's agreement with them is reported", func() {
		rec := startRecording()
		suite := withExamples(rec)
		opts := runner.Options{Scenario: "explain-marine-heatwave", Variant: "single-pass", JudgeRoutes: rec.sis.Judges}
		got := scenarios(rec.record(suite, opts))["single-pass/explain-marine-heatwave"]
		Expect(got.Verdict).To(Equal(report.VerdictPass), got.Error)
		Expect(got.Grading.Calls).To(Equal(4), "the answer and three examples")
		// The stand-in judge reads words: the paraphrase without "heatwave"
		// fails although labelled pass.
		Expect(*got.Grading.Calibration).To(Equal(report.Calibration{TP: 1, FN: 1, TN: 1}))
		// po = 2/3, pe = (2·1 + 1·2)/9 = 4/9: kappa = (2/9)/(5/9) = 0.4.
		kappa, ok := got.Grading.Calibration.Kappa()
		Expect(ok).To(BeTrue())
		Expect(kappa).To(BeNumerically("~", 0.4, 1e-12))

		again := scenarios(replayAt(rec.root, suite, opts))["single-pass/explain-marine-heatwave"]
		Expect(again.Grading).To(Equal(got.Grading))
		var text strings.Builder
		Expect(report.WriteBrief(&text, &report.Report{Suites: []report.Suite{{Name: "odbchat", Variants: []report.Variant{{Name: "single-pass", Summary: report.Summarize([]report.Scenario{again})}}}}})).To(Succeed())
		Expect(text.String()).To(ContainSubstring(fmt.Sprintf("odbchat: 4 grader calls over 1 variant, %d input and %d output tokens", got.Grading.InputTokens, got.Grading.OutputTokens)))
		Expect(text.String()).To(ContainSubstring("by rule-based stand-in judge; it judged 2 of 3 labelled examples as labelled (Cohen's kappa 0.40)"))
	})

	It("are graded again in every sample, recorded in each sample's grader cassette and pooled", func() {
		rec := startRecording()
		suite := withExamples(rec)
		opts := runner.Options{Scenario: "explain-marine-heatwave", Variant: "single-pass", JudgeRoutes: rec.sis.Judges, Repeat: 3}
		got := scenarios(rec.record(suite, opts))["single-pass/explain-marine-heatwave"]
		Expect(got.Sampling).NotTo(BeNil())
		for k := 1; k <= 3; k++ {
			Expect(cassette.JudgePath(rec.root, "odbchat", "single-pass", "explain-marine-heatwave", k)).To(BeARegularFile())
		}
		// The stand-in judge is rule-based: each sample grades the three
		// examples alike, so the pooled counts are three times one
		// sample's, and so is the kappa's n (the kappa itself is 0.4 again).
		Expect(got.Grading.Calls).To(Equal(12), "four grader calls in each of three samples")
		Expect(*got.Grading.Calibration).To(Equal(report.Calibration{TP: 3, FN: 3, TN: 3}))

		sampled := *suite
		sampled.Samples = 3
		opts.Repeat = 0
		again := scenarios(replayAt(rec.root, &sampled, opts))["single-pass/explain-marine-heatwave"]
		Expect(again.Verdict).NotTo(Equal(report.VerdictStale), again.Error)
		Expect(again.Checks).To(Equal(got.Checks), "%v", again.Checks)
		Expect(again.Grading).To(Equal(got.Grading))
		kappa, ok := again.Grading.Calibration.Kappa()
		Expect(ok).To(BeTrue())
		Expect(kappa).To(BeNumerically("~", 0.4, 1e-12))
	})
})

var _ = DescribeTable("a grader model that thinks, recorded against the stand-in judge, grades and replays",
	func(judgeLine, wants string) {
		rec := startRecording()
		withRubric(rec.root, "The answer explains that a marine heatwave is a spell of unusually warm sea water")
		path := filepath.Join(rec.root, "scenarios", "odbchat.yaml")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, []byte(strings.Replace(string(data), "judge: {provider: openai, model: gpt-4.1-mini}", judgeLine, 1)), 0o644)).To(Succeed())
		suite := loadSuite(rec.root)
		Expect(rec.sis.RouteJudges([]*scenario.Suite{suite})).To(Succeed())
		const id, variant = "explain-marine-heatwave", "single-pass"
		opts := runner.Options{Scenario: id, Variant: variant, JudgeRoutes: rec.sis.Judges}
		got := scenarios(rec.record(suite, opts))[variant+"/"+id]
		Expect(got.Verdict).To(Equal(report.VerdictPass), got.Error)
		Expect(got.Grading).NotTo(BeNil())
		Expect(got.Grading.Calls).To(Equal(1))
		body, err := os.ReadFile(cassette.JudgePath(rec.root, "odbchat", variant, id, 1))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(ContainSubstring(wants))
		Expect(string(body)).To(ContainSubstring("X-Testbed-Rule:\n                - judge:grade"), "graded by the stand-in judge, not answered by the generic policy")
		replayed := scenarios(replayAt(rec.root, suite, opts))[variant+"/"+id]
		Expect(replayed.Verdict).To(Equal(report.VerdictPass), replayed.Error)
		Expect(replayed.Checks).To(Equal(got.Checks))
	},
	Entry("OpenAI's gpt-5-mini", "judge: {provider: openai, model: gpt-5-mini}", `"reasoning_effort":"low"`),
	Entry("a model named otherwise, said to reason", "judge: {provider: openai, model: house-grader, reasoning: true}", `"reasoning_effort":"low"`),
	Entry("Anthropic's claude-sonnet-5", "judge: {provider: anthropic, model: claude-sonnet-5}", `"output_config":{"effort":"low","format":{`),
	Entry("Gemini's gemini-2.5-pro", "judge: {provider: gemini, model: gemini-2.5-pro}", `"maxOutputTokens":4096`),
)
