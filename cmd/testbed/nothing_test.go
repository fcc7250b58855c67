package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// echoSuite is a suite whose outside agent answers every turn "hello"
// without calling a model or an upstream: whatever it is judged on, it
// gives a run nothing to measure but its answer.
const echoSuite = `suite: echo
agent:
  name: echo
  command: [sh, -c, 'while read l; do echo "{\"text\": \"hello\"}"; done']
  model: {provider: openai, base_url: "https://api.openai.com/v1", model: gpt-4o-mini}
clock: 2025-11-06T10:00:00Z
baseline: a
variants:
  a: {}
  b: {}
scenarios:
  - id: one
    input: hi
    expect: {answer: {contains: [hello]}}
  - id: two
    input: ho
    expect: {answer: {contains: [hello]}}
`

// echoProject writes echoSuite, changed by edit, into a fresh project and
// records its cassettes.
func echoProject(edit func(string) string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	Expect(os.MkdirAll(filepath.Join(root, "scenarios"), 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(root, "scenarios", "echo.yaml"), []byte(echoSuite), 0o644)).To(Succeed())
	rec := testbed("record", "--root", root, "--quiet")
	Expect(rec.code).To(Equal(exitOK), rec.String())
	if edit != nil {
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "echo.yaml"), []byte(edit(echoSuite)), 0o644)).To(Succeed())
	}
	return root
}

// blessWithout writes, as root's blessed baseline, the replay of root with
// drop applied to the report's suites.
func blessWithout(root string, drop func([]any) []any) {
	GinkgoHelper()
	r := testbed("run", "--root", root, "--json", "--out", "", "--no-baseline", "--quiet")
	Expect(r.code).To(Equal(exitOK), r.String())
	var rep map[string]any
	Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
	rep["suites"] = drop(rep["suites"].([]any))
	data, err := json.Marshal(rep)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(filepath.Join(root, "reports"), 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(root, "reports", "baseline.json"), data, 0o644)).To(Succeed())
}

// judged is what a way to judge nothing does: the command run on the
// project, and what the user must see.
type judged struct {
	code   int
	says   []string // on stdout or stderr
	noPass bool     // the verdict line must not say PASS
	keeps  []string // files under the project that must still be there
}

var _ = Describe("a verdict never rests on nothing", func() {
	DescribeTable("every way to judge nothing fails, saying what was not judged and what to do",
		func(setup func() (root string, args []string), want judged) {
			root, args := setup()
			r := testbed(append(args, "--root", root)...)
			Expect(r.code).To(Equal(want.code), r.String())
			for _, s := range want.says {
				Expect(r.stdout+r.stderr).To(ContainSubstring(s), r.String())
			}
			if want.noPass {
				Expect(r.stdout).NotTo(ContainSubstring("PASS"), r.String())
			}
			for _, f := range want.keeps {
				Expect(filepath.Join(root, f)).To(BeARegularFile(), "a cassette is never deleted silently")
			}
		},
		Entry("a recording of fewer samples than the suite declares", func() (string, []string) {
			root := echoProject(func(s string) string { return strings.Replace(s, "baseline: a\n", "baseline: a\nsamples: 5\n", 1) })
			r := testbed("record", "--root", root, "--quiet", "--variant", "a", "--scenario", "one")
			Expect(r.code).To(Equal(exitOK), r.String())
			return root, []string{"record", "--quiet", "--variant", "a", "--scenario", "one", "--repeat", "2"}
		}, judged{code: exitOK, keeps: []string{"cassettes/echo/a/one.sample3.yaml", "cassettes/echo/a/one.sample4.yaml", "cassettes/echo/a/one.sample5.yaml"},
			says: []string{"kept 3 earlier samples of echo/a/one (" + filepath.Join("cassettes", "echo", "a", "one.sample3.yaml") + " to one.sample5.yaml): the suite declares samples: 5"}}),
		Entry("a shard with no scenario run", func() (string, []string) {
			return echoProject(nil), []string{"run", "--shard", "5/5", "--out", ""}
		}, judged{code: exitUsage, noPass: true, says: []string{
			"--shard 5/5 would judge nothing: the run has 4 scenario × variant pairs, so only shards 1 to 4 of 5 hold any; split it into at most 4 shards"}}),
		Entry("a blessed baseline without the suite, in CI", func() (string, []string) {
			root := echoProject(nil)
			blessWithout(root, func([]any) []any { return []any{} })
			GinkgoT().Setenv("CI", "1")
			return root, []string{"run", "--out", ""}
		}, judged{code: exitFailed, noPass: true, says: []string{
			"reports/baseline.json has no suite echo, so the gate did not compare it",
			"bless it with: testbed baseline bless"}}),
		Entry("a blessed baseline without a variant, in CI", func() (string, []string) {
			root := echoProject(nil)
			blessWithout(root, func(suites []any) []any {
				s := suites[0].(map[string]any)
				s["variants"] = s["variants"].([]any)[:1]
				return suites
			})
			GinkgoT().Setenv("CI", "1")
			return root, []string{"run", "--out", ""}
		}, judged{code: exitFailed, noPass: true, says: []string{
			"reports/baseline.json has no variant echo/b, so the gate did not compare it",
			"bless it with: testbed baseline bless"}}),
		Entry("thresholds over no model call", func() (string, []string) {
			return echoProject(func(s string) string {
				return strings.Replace(s, "scenarios:\n", "thresholds:\n  b:\n    - \"latency_p95 < 1s\"\n    - \"llm_calls_mean <= baseline\"\n    - \"input_tokens_mean < 10\"\nscenarios:\n", 1)
			}), []string{"run", "--out", ""}
		}, judged{code: exitFailed, noPass: true, says: []string{
			"echo/b: latency_p95 < 1s — not evaluated: its 2 runs made no model call, so latency_p95 was not measured",
			"echo/b: llm_calls_mean <= baseline — not evaluated: its 2 runs made no model call",
			"echo/b: input_tokens_mean < 10 — not evaluated: its 2 runs made no model call"}}),
		Entry("a threshold comparing the baseline variant with itself", func() (string, []string) {
			return echoProject(func(s string) string {
				return strings.Replace(s, "scenarios:\n", "thresholds:\n  a:\n    - \"llm_calls_mean <= baseline\"\n    - \"latency_mean <= variant:a\"\nscenarios:\n", 1)
			}), []string{"run", "--out", ""}
		}, judged{code: exitUsage, says: []string{
			`echo.yaml:13: thresholds.a[0]: "llm_calls_mean <= baseline" compares a, the baseline, with itself`,
			`echo.yaml:14: thresholds.a[1]: "latency_mean <= variant:a" compares a with itself`}}),
		Entry("a suite with gating: false whose cassettes are missing", func() (string, []string) {
			root := echoProject(func(s string) string { return strings.Replace(s, "baseline: a\n", "baseline: a\ngating: false\n", 1) })
			Expect(os.RemoveAll(filepath.Join(root, "cassettes", "echo", "b"))).To(Succeed())
			return root, []string{"run", "--out", ""}
		}, judged{code: exitStale, noPass: true, says: []string{
			"not gating: 2 of 4 scenarios failed (2 stale or missing cassettes, which fail the run)",
			"record it with: testbed record --suite echo --variant b --scenario one",
			"2 scenario runs have stale or missing cassettes"}}),
		Entry("a scenario that expects nothing", func() (string, []string) {
			return echoProject(func(s string) string { return s + "  - id: three\n    input: hey\n" }), []string{"run", "--out", ""}
		}, judged{code: exitUsage, says: []string{`echo.yaml:18: scenarios[2]: scenario "three" expects nothing`}}),
		Entry("a scenario that expects nothing of one variant", func() (string, []string) {
			return echoProject(func(s string) string {
				return s + "  - id: three\n    input: hey\n    variants:\n      a: {answer: {contains: [hello]}}\n"
			}), []string{"run", "--out", ""}
		}, judged{code: exitUsage, says: []string{`echo.yaml:18: scenarios[2]: scenario "three" expects nothing of variant b`}}),
		Entry("variants whose names differ only in case", func() (string, []string) {
			return echoProject(func(s string) string { return strings.Replace(s, "  b: {}\n", "  b: {}\n  B: {}\n", 1) }), []string{"run", "--out", ""}
		}, judged{code: exitUsage, says: []string{`echo.yaml:11: variants.B: variant "B" differs from "b" (line 10) only in case`}}),
		Entry("a scenario id named like another's sample in another case", func() (string, []string) {
			return echoProject(func(s string) string {
				return s + "  - id: one.SAMPLE2\n    input: hey\n    expect: {answer: {contains: [hello]}}\n"
			}), []string{"run", "--out", ""}
		}, judged{code: exitUsage, says: []string{`echo.yaml:18: scenarios[2].id: invalid id "one.SAMPLE2"`}}),
	)

	It("says which samples a recording removes beyond the suite's samples", func() {
		root := echoProject(func(s string) string { return strings.Replace(s, "baseline: a\n", "baseline: a\nsamples: 5\n", 1) })
		r := testbed("record", "--root", root, "--quiet", "--variant", "a", "--scenario", "one")
		Expect(r.code).To(Equal(exitOK), r.String())
		sample := func(k int) string {
			return filepath.Join(root, "cassettes", "echo", "a", fmt.Sprintf("one.sample%d.yaml", k))
		}
		Expect(sample(5)).To(BeARegularFile())

		Expect(os.WriteFile(filepath.Join(root, "scenarios", "echo.yaml"), []byte(echoSuite), 0o644)).To(Succeed())
		r = testbed("record", "--root", root, "--quiet", "--variant", "a", "--scenario", "one", "--repeat", "2")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(sample(3)).NotTo(BeAnExistingFile())
		Expect(r.stderr).To(ContainSubstring("removed 3 samples of echo/a/one beyond the 2 recorded and the suite's samples: 1 (" + filepath.Join("cassettes", "echo", "a", "one.sample3.yaml") + " to one.sample5.yaml)"))
	})

	It("says, outside CI, which gated variants the blessed baseline lacks, and that the gate did not compare them", func() {
		root := echoProject(nil)
		blessWithout(root, func(suites []any) []any {
			s := suites[0].(map[string]any)
			s["variants"] = s["variants"].([]any)[:1]
			return suites
		})
		r := testbed("run", "--root", root, "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(ContainSubstring("reports/baseline.json has no variant echo/b, so the gate did not compare it; bless it with: testbed baseline bless"))
		Expect(r.stdout).To(MatchRegexp(`the gate found no regression against \S+reports/baseline\.json but did not compare variant echo/b \(not in it\)\n$`))
	})

	It("names in every PASS what it judged", func() {
		root := echoProject(nil)
		r := testbed("run", "--root", root, "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("PASS: all 4 scenarios and 0 thresholds passed, judging 1 suite, 2 variants, 4 runs and 0 model calls; the gate did not run (no blessed baseline)"))
	})
})
