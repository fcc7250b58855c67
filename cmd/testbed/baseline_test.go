package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
		Expect(r.stdout).To(MatchRegexp(`climate\s+trimmed\s+\(summary\)\s+input_tokens_mean\s+3225\s+3292`))
		Expect(r.stdout).NotTo(MatchRegexp(`browse-inventories\s+input_tokens`), "+1.9% is within the 2% tolerance")
		Expect(r.stderr).To(ContainSubstring("if they are intended, run: testbed baseline bless"))
		Expect(r.stdout).To(MatchRegexp(`\nFAIL: all \d+ scenarios and \d+ thresholds passed.*, but the gate found \d+ regressions against \S*reports/baseline\.json\n$`),
			"the last line agrees with the exit code")

		By("blessing the change on purpose, after which the gate passes")
		bless := testbed("baseline", "bless", "--root", root, "--quiet")
		Expect(bless.code).To(Equal(exitOK), bless.String())
		Expect(bless.stdout).To(ContainSubstring("blessed 108 scenario runs as reports/baseline.json"))
		again := testbed("run", "--root", root, "--suite", "climate", "--quiet", "--out", "")
		Expect(again.code).To(Equal(exitOK), again.String())
		Expect(again.stdout).To(MatchRegexp(`; the gate found no regression against \S*reports/baseline\.json\n$`), "a gate that passed says so")
	})

	It("refuses to bless a part of the project", func() {
		r := testbed("baseline", "bless", "--root", "../..", "--suite", "odbchat")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(ContainSubstring("bless the whole project"))
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
