package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// climateProject copies what the climate suite needs, and the blessed
// baseline, into a temporary folder.
func climateProject() string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	for _, dir := range []string{"cassettes/climate", "fixtures/climate"} {
		Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join("../..", dir)))).To(Succeed())
	}
	Expect(os.MkdirAll(filepath.Join(root, "scenarios", "prompts"), 0o755)).To(Succeed())
	Expect(os.MkdirAll(filepath.Join(root, "reports"), 0o755)).To(Succeed())
	for _, f := range []string{"scenarios/climate.yaml", "reports/baseline.json"} {
		data, err := os.ReadFile(filepath.Join("../..", f))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(root, f), data, 0o644)).To(Succeed())
	}
	return root
}

var _ = Describe("the baseline gate", func() {
	It("passes an unchanged replay", func() {
		root := climateProject()
		r := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
	})

	It("fails a cassette re-recorded with a longer prompt, naming the scenario and the token delta", func() {
		root := climateProject()
		prompt, err := os.ReadFile("../../agents/climate/prompts/default.md")
		Expect(err).NotTo(HaveOccurred())
		longer := string(prompt) + "\n## Tone\nBe warm, precise and brief. Prefer plain words to jargon, and say what a number means for the city.\n"
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "prompts", "longer.md"), []byte(longer), 0o644)).To(Succeed())
		replace(filepath.Join(root, "scenarios", "climate.yaml"), "config: {trim: ours, top_k: 3}", "config: {trim: ours, top_k: 3, prompt: prompts/longer.md}", -1) // the trimmed variant, the first

		rec := testbed("record", "--root", root, "--suite", "climate", "--variant", "trimmed", "--quiet")
		Expect(rec.code).To(Equal(exitOK), rec.String())

		junit := filepath.Join(root, "junit.xml")
		r := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "", "--junit", junit)
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring("regressions against the blessed baseline"))
		doc := readJUnit(junit)
		Expect(doc.Failures).To(BeNumerically(">", 0), "JUnit counts the regressions as failures")
		Expect(doc.Suites[len(doc.Suites)-1].Name).To(Equal("regression gate"))
		Expect(doc.Suites[len(doc.Suites)-1].Failures).To(Equal(doc.Failures), "the scenarios passed; the gate failed")
		Expect(r.stdout).To(MatchRegexp(`climate\s+trimmed\s+product-upload\s+input_tokens\s+831\s+857\s+\+26 \(\+3\.1%\)\s+2%`))
		Expect(r.stdout).To(MatchRegexp(`climate\s+trimmed\s+\(summary\)\s+input_tokens_mean\s+3229\s+3295`))
		Expect(r.stdout).NotTo(MatchRegexp(`browse-inventories\s+input_tokens`), "+1.9% is within the 2% tolerance")
		Expect(r.stderr).To(ContainSubstring("if they are intended, run: testbed baseline bless"))
		Expect(r.stdout).To(MatchRegexp(`\nFAIL: all \d+ scenarios and \d+ thresholds passed.*, but the gate found \d+ regressions against \S*reports/baseline\.json\n$`),
			"the last line agrees with the exit code")

		By("writing the gate's table to stderr when stdout holds the JSON report")
		js := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "", "--json")
		Expect(js.code).To(Equal(exitFailed), js.String())
		var parsed report.Report
		Expect(json.Unmarshal([]byte(js.stdout), &parsed)).To(Succeed(), "stdout is the JSON report alone")
		Expect(js.stderr).To(MatchRegexp(`climate\s+trimmed\s+product-upload\s+input_tokens\s+831\s+857`))

		By("stating the gate's verdict in every file the run writes, as the exit does")
		files := testbed("run", "--root", root, "--suite", "climate", "--quiet")
		Expect(files.code).To(Equal(exitFailed), files.String())
		read := func(name string) string {
			data, err := os.ReadFile(filepath.Join(root, "reports", name))
			Expect(err).NotTo(HaveOccurred())
			return string(data)
		}
		brief := read("latest.md")
		Expect(brief).To(MatchRegexp(`^\*\*FAIL: all \d+ scenarios and \d+ thresholds passed.*, but the gate found \d+ regressions against \S*reports/baseline\.json\*\*`))
		Expect(brief).To(ContainSubstring("### Regressions against"))
		Expect(brief).To(ContainSubstring("climate/trimmed/product-upload input_tokens: 831 → 857, more than the 2.0% allowed"))
		full := read("latest-full.md")
		Expect(full).To(MatchRegexp(`\n## regression gate\n`))
		Expect(full).To(MatchRegexp(`\| climate \| trimmed \| product-upload \| input_tokens \| +831 \| +857 \|`))
		Expect(full).To(MatchRegexp(`\*\*FAIL: [^\n]*, but the gate found \d+ regressions[^\n]*\*\*\n$`))
		var saved report.Report
		Expect(json.Unmarshal([]byte(read("latest.json")), &saved)).To(Succeed())
		Expect(saved.Gate).NotTo(BeNil())
		Expect(saved.Gate.Failed).To(BeTrue())
		Expect(saved.Gate.Regressions).NotTo(BeEmpty())
		Expect(saved.Passed()).To(BeFalse())
		html := testbed("report", "--root", root, "--html", filepath.Join(root, "reports", "latest.html"), filepath.Join(root, "reports", "latest.json"))
		Expect(html.code).To(Equal(exitOK), html.String())
		Expect(read("latest.html")).To(ContainSubstring("but the gate found"))
		Expect(read("latest.html")).To(MatchRegexp(`regression gate against \S*reports/baseline\.json: regressions \(\d+\)`))
		Expect(read("latest.html")).To(MatchRegexp(`<td>product-upload</td>\s*<td>input_tokens</td>`))

		By("showing the regressions once with --tables, in the gate's own block")
		tables := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "", "--tables")
		Expect(tables.code).To(Equal(exitFailed), tables.String())
		Expect(regexp.MustCompile(`product-upload\s+input_tokens\s+831\s+857`).FindAllString(tables.stdout, -1)).To(HaveLen(1))

		By("saying what the gate found when a threshold fails too")
		suite := filepath.Join(root, "scenarios", "climate.yaml")
		original, err := os.ReadFile(suite)
		Expect(err).NotTo(HaveOccurred())
		replace(suite, "  trimmed:\n    - \"pass_rate == 100%\"\n", "  trimmed:\n    - \"llm_calls_mean < 1\"\n    - \"pass_rate == 100%\"\n", 1)
		th := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
		Expect(th.code).To(Equal(exitFailed), th.String())
		Expect(th.stderr).To(ContainSubstring("scenario runs or thresholds failed"))
		Expect(th.stderr).To(ContainSubstring("regressions against"), "the gate's word is not hidden by the threshold's")
		Expect(os.WriteFile(suite, original, 0o644)).To(Succeed())

		By("blessing the change on purpose, after which the gate passes")
		bless := testbed("baseline", "bless", "--root", root, "--quiet")
		Expect(bless.code).To(Equal(exitOK), bless.String())
		Expect(bless.stdout).To(ContainSubstring("blessed 108 scenario runs as reports/baseline.json"))
		again := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
		Expect(again.code).To(Equal(exitOK), again.String())
		Expect(again.stdout).To(MatchRegexp(`; the gate found no regression against \S*reports/baseline\.json\n$`), "a gate that passed says so")
	})

	It("blesses one suite into the baseline, carrying its failures as known failures, listed in every verdict, failing on a new one, saying when one passes, and never hiding a stale cassette", func() {
		root := project()
		for _, dir := range []string{"cassettes/climate", "fixtures/climate"} {
			Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join("../..", dir)))).To(Succeed())
		}
		data, err := os.ReadFile("../../scenarios/climate.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "climate.yaml"), data, 0o644)).To(Succeed())
		suite := filepath.Join(root, "scenarios", "odbchat.yaml")
		baseline := filepath.Join(root, "reports", "baseline.json")
		Expect(testbed("baseline", "bless", "--root", root, "--quiet").code).To(Equal(exitOK))
		before := mustReport(baseline)

		By("an expectation the agent does not meet: bless refuses, and says how to carry it")
		replace(suite, `contains: ["2025-11-06", "26.4 °C", "+0.21 °C"]`, `contains: ["no such answer"]`, 1)
		r := testbed("baseline", "bless", "--root", root, "--suite", "odbchat", "--quiet")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stderr).To(ContainSubstring("odbchat/single-pass/ac1-taiwan-sst [answer.contains]"))
		Expect(r.stderr).To(ContainSubstring("or carry the failures as known failures with: testbed baseline bless --suite odbchat --root " + root + " --known-failures"))

		r = testbed("baseline", "bless", "--root", root, "--suite", "odbchat", "--known-failures", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("blessed 60 scenario runs of suite odbchat (the other suites' part kept) as reports/baseline.json"))
		Expect(r.stdout).To(ContainSubstring("  · odbchat/single-pass/ac1-taiwan-sst [answer.contains]\n"))
		Expect(r.stdout).To(ContainSubstring("  · odbchat/single-pass threshold pass_rate == 100%\n"))
		after := mustReport(baseline)
		Expect(after.Suites).To(HaveLen(2))
		Expect(after.Suites[0].Name).To(Equal("climate"), "the climate part is kept where it was")
		Expect(after.Suites[0]).To(Equal(before.Suites[0]))
		Expect(after.KnownFailures).NotTo(BeEmpty())
		for _, k := range after.KnownFailures {
			Expect(k.Suite).To(Equal("odbchat"))
		}

		By("a run lists them in its verdict and passes")
		r = testbed("run", "--root", root, "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`\nPASS: \d+ of \d+ scenarios and \d+ of \d+ thresholds passed, judging [^(]+ \(\d+ known failures blessed in the baseline: odbchat/single-pass/ac1-taiwan-sst \[answer.contains\], odbchat/single-pass threshold pass_rate == 100%\).*; the gate found no regression`))
		Expect(r.stdout).To(ContainSubstring("known failures, blessed in the baseline ("))

		By("a known failure that fails one check more fails the run")
		replace(suite, "tools: [ghrsst.bbox_mean]\n      args: {bbox: [118.0, 20.0, 123.5, 26.5]", "tools: [ghrsst.point_value]\n      args: {bbox: [118.0, 20.0, 123.5, 26.5]", 1)
		r = testbed("run", "--root", root, "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring("ac1-taiwan-sst turn 1 tools"))
		replace(suite, "tools: [ghrsst.point_value]\n      args: {bbox: [118.0, 20.0, 123.5, 26.5]", "tools: [ghrsst.bbox_mean]\n      args: {bbox: [118.0, 20.0, 123.5, 26.5]", 1)

		By("a new failure fails the run")
		climate := filepath.Join(root, "scenarios", "climate.yaml")
		original, err := os.ReadFile(climate)
		Expect(err).NotTo(HaveOccurred())
		replace(climate, `contains: ["51.1 million tCO2e", "2022"]`, `contains: ["no such answer"]`, 1)
		r = testbed("run", "--root", root, "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(MatchRegexp(`\nFAIL: [1-9]\d* of \d+ scenarios`))
		Expect(os.WriteFile(climate, original, 0o644)).To(Succeed())

		By("a known failure that passes now is said, with the command that re-blesses, and does not fail")
		replace(suite, `contains: ["no such answer"]`, `contains: ["2025-11-06", "26.4 °C", "+0.21 °C"]`, 1)
		r = testbed("run", "--root", root, "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`\nPASS: all \d+ scenarios and \d+ thresholds passed, judging [^(]+ \(\d+ known failures now pass \(improved: odbchat/single-pass/ac1-taiwan-sst \[answer.contains\], odbchat/single-pass threshold pass_rate == 100%\); re-bless with: testbed baseline bless --suite odbchat --known-failures\)`))

		By("a stale cassette fails, known failure or not, gating or not")
		replace(suite, `contains: ["2025-11-06", "26.4 °C", "+0.21 °C"]`, `contains: ["no such answer"]`, 1)
		replace(suite, `input: "現在台灣周遭海溫多少？"`, `input: "現在台灣周遭海溫是多少？"`, 1)
		r = testbed("run", "--root", root, "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitStale), r.String())
		r = testbed("baseline", "bless", "--root", root, "--suite", "odbchat", "--known-failures", "--quiet")
		Expect(r.code).To(Equal(exitStale), "a stale cassette is exit 3, in bless as in run: %s", r.String())
		Expect(r.stderr).To(ContainSubstring("the replay cannot be blessed, not even as known failures: odbchat/legacy/ac1-taiwan-sst is stale"))
		replace(suite, "\nagent: odbchat\n", "\nagent: odbchat\ngating: false\n", 1)
		r = testbed("run", "--root", root, "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(ContainSubstring("(2 stale or missing cassettes, which fail the run)"))
	})

	It("names, for each stale run, the command that writes it again: one that re-grades when its grades are stale, and that command makes it blessable", func() {
		root := project()
		suite := filepath.Join(root, "scenarios", "odbchat.yaml")
		replace(suite, "that lasts for days or longer", "that lasts for days or more", 1) // the rubric changed: the grades are stale
		replace(suite, `input: "現在台灣周遭海溫多少？"`, `input: "現在台灣周遭海溫是多少？"`, 1)                // the input changed: the agent's cassettes are

		r := testbed("baseline", "bless", "--root", root, "--suite", "odbchat", "--quiet")

		Expect(r.code).To(Equal(exitStale), r.String())
		for _, v := range []string{"legacy", "single-pass"} {
			Expect(r.stderr).To(ContainSubstring("odbchat/%s/explain-marine-heatwave is stale (re-grade with: testbed record --suite odbchat --variant %s --scenario explain-marine-heatwave --root %s --record-missing)", v, v, root))
			Expect(r.stderr).To(ContainSubstring("odbchat/%s/ac1-taiwan-sst is stale (re-record it with: testbed record --suite odbchat --variant %s --scenario ac1-taiwan-sst --root %s)", v, v, root))
		}
		Expect(r.stderr).To(ContainSubstring("; re-record or re-grade each stale run as it says, fix the errors, or give a threshold not evaluated something to measure (or drop it from the suite), then run: testbed baseline bless --suite odbchat --root " + root))

		By("the command named re-grades, and the grades are blessable again")
		replace(suite, `input: "現在台灣周遭海溫是多少？"`, `input: "現在台灣周遭海溫多少？"`, 1)
		r = testbed("record", "--suite", "odbchat", "--scenario", "explain-marine-heatwave", "--root", root, "--record-missing", "--quiet")
		for _, v := range []string{"legacy", "single-pass"} {
			Expect(r.stderr).To(ContainSubstring("odbchat/%s/explain-marine-heatwave: recorded 1\n", v), "one grade, the agent's calls replayed: %s", r.String())
		}
		r = testbed("baseline", "bless", "--root", root, "--suite", "odbchat", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
	})

	It("holds a run of one scenario to the baseline's figures of that scenario, not to the whole suite's means", func() {
		root := climateProject()
		// three model calls, where the suite's mean is 2.6: above every variant's means
		r := testbed("run", "--root", root, "--suite", "climate", "--scenario", "city-new-york-one-year", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`the gate found no regression against \S*reports/baseline\.json\n$`))
	})

	It("does not compare a scenario the baseline lacks, and says so (failing in CI)", func() {
		root := climateProject()
		path := filepath.Join(root, "reports", "baseline.json")
		base := mustReport(path)
		for si := range base.Suites {
			for vi := range base.Suites[si].Variants {
				v := &base.Suites[si].Variants[vi]
				if v.Name == "trimmed" {
					v.Scenarios = slices.DeleteFunc(v.Scenarios, func(sc report.Scenario) bool { return sc.ID == "off-topic" })
				}
			}
		}
		f, err := os.Create(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(report.WriteJSON(f, base)).To(Succeed())
		Expect(f.Close()).To(Succeed())

		r := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(ContainSubstring("has no scenario climate/trimmed/off-topic, so the gate did not compare it"))
		Expect(r.stdout).To(ContainSubstring("but did not compare scenario climate/trimmed/off-topic (not in it)"))

		GinkgoT().Setenv("CI", "true")
		r = testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
		Expect(r.code).To(Equal(exitFailed), r.String())
	})

	It("blesses a suite or the project, not a variant or a scenario", func() {
		r := testbed("baseline", "bless", "--root", "../..", "--suite", "odbchat", "--variant", "legacy")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(ContainSubstring("bless a whole suite (--suite) or the whole project"))
	})

	It("writes --out where it says when the path is absolute, mode 0644", func() {
		root := climateProject()
		Expect(os.Remove(filepath.Join(root, "scenarios", "prompts"))).To(Succeed())
		out := filepath.Join(GinkgoT().TempDir(), "elsewhere", "base.json")
		r := testbed("baseline", "bless", "--root", root, "--quiet", "--out", out)
		Expect(r.code).To(Equal(exitOK), r.String())
		st, err := os.Stat(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o644)))
		Expect(filepath.Join(root, out)).NotTo(BeAnExistingFile())
	})

	Describe("missing", func() {
		It("is said, and the run passes, outside CI", func() {
			root := climateProject()
			Expect(os.Remove(filepath.Join(root, "reports", "baseline.json"))).To(Succeed())
			r := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
			Expect(r.code).To(Equal(exitOK), r.String())
			Expect(r.stderr).To(ContainSubstring("no blessed baseline at " + filepath.Join(root, "reports", "baseline.json") + ": the regression gate did not run"))
		})

		It("fails the run in CI, unless --no-baseline", func() {
			GinkgoT().Setenv("CI", "true")
			root := climateProject()
			Expect(os.Remove(filepath.Join(root, "reports", "baseline.json"))).To(Succeed())
			r := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
			Expect(r.code).To(Equal(exitFailed), r.String())
			Expect(r.stderr).To(ContainSubstring("so the regression gate cannot run; in CI (CI=true) that fails"))

			r = testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "", "--no-baseline")
			Expect(r.code).To(Equal(exitOK), r.String())
		})
	})
})

// mustReport reads the JSON report at path.
func mustReport(path string) *report.Report {
	GinkgoHelper()
	r, err := readReport(path)
	Expect(err).NotTo(HaveOccurred())
	return r
}
