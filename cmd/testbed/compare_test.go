package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("testbed compare", func() {
	It("shows two variants of a suite side by side from one replay", func() {
		r := testbed("compare", "--root", "../..", "--suite", "climate", "--base", "untrimmed", "--head", "trimmed", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("climate: untrimmed → trimmed (27 scenarios both ran)"))
		Expect(r.stdout).To(MatchRegexp(`input tokens \(mean\)\s+46325\s+3229\s+-43096 \(-93\.0%\)`))
	})

	It("compares two report files, showing only regressions when asked", func() {
		dir := GinkgoT().TempDir()
		r := testbed("run", "--root", "../..", "--suite", "odbchat", "--json", "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		path := filepath.Join(dir, "odbchat.json")
		Expect(os.WriteFile(path, []byte(r.stdout), 0o644)).To(Succeed())
		same := testbed("compare", path, path, "--regressions")
		Expect(same.code).To(Equal(exitOK), same.String())
		Expect(same.stdout).To(ContainSubstring("no scenario matches the filter"))
	})

	It("refuses two report files that share no scenario: a comparison of nothing is no all-clear", func() {
		dir := GinkgoT().TempDir()
		var paths []string
		for _, id := range []string{"weather-one-city", "thanks"} {
			r := testbed("run", "--root", "../..", "--suite", "kura", "--scenario", id, "--json", "--out", "", "--quiet", "--no-baseline")
			Expect(r.code).To(Or(Equal(exitOK), Equal(exitFailed)), r.String()) // a threshold over one scenario may fail
			paths = append(paths, filepath.Join(dir, id+".json"))
			Expect(os.WriteFile(paths[len(paths)-1], []byte(r.stdout), 0o644)).To(Succeed())
		}
		r := testbed("compare", paths[0], paths[1])
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring("share no scenario of their 3 suite and variant pairs: nothing to compare"))
	})

	It("fails pairwise judging that judged no pair, and a comparison with a stale side", func() {
		root := projectOf("odbchat-cases", "odbchat")
		Expect(os.CopyFS(filepath.Join(root, "scenarios", "cases"), os.DirFS(filepath.Join(repoRoot, "scenarios", "cases")))).To(Succeed())
		suite := filepath.Join(root, "scenarios", "odbchat-cases.yaml")
		Expect(os.WriteFile(suite, []byte(mustRead(suite)+"judge: {provider: openai, model: gpt-4.1-mini}\n"), 0o644)).To(Succeed())
		r := testbed("compare", "--root", root, "--suite", "odbchat-cases", "--base", "legacy", "--head", "single-pass", "--judge", "--record-missing", "--quiet")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stderr).To(ContainSubstring("odbchat-cases: the judge judged no pair (30 scenarios have no rubric"))

		Expect(os.Remove(filepath.Join(root, "cassettes", "odbchat-cases", "single-pass", "ac1-taiwan-sst.yaml"))).To(Succeed())
		r = testbed("compare", "--root", root, "--suite", "odbchat-cases", "--base", "legacy", "--head", "single-pass", "--quiet")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stderr).To(ContainSubstring("scenario ac1-taiwan-sst is stale in single-pass, so the comparison does not hold; record it with: testbed record --suite odbchat-cases --variant single-pass --scenario ac1-taiwan-sst"))
		By("giving no change of the means beside a stale verdict: its run was not measured, so no saving")
		Expect(r.stdout).To(MatchRegexp(`input tokens \(mean\)\s+\d+\s+\d+\s+— \(not comparable\)`))
		Expect(r.stdout).To(ContainSubstring("not comparable: head: 1 of 30 runs stale or errored, not measured"))
		md := testbed("compare", "--root", root, "--suite", "odbchat-cases", "--base", "legacy", "--head", "single-pass", "--quiet", "--markdown")
		Expect(md.code).To(Equal(exitStale), md.String())
		Expect(md.stdout).To(ContainSubstring("(not comparable: head: 1 of 30 runs stale or errored, not measured)"))
		Expect(md.stdout).To(ContainSubstring("but 1 scenarios were stale or errored on a side"))
	})

	DescribeTable("rejects what it cannot compare",
		func(args []string, want string) {
			r := testbed(append([]string{"compare", "--root", "../.."}, args...)...)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(ContainSubstring(want))
		},
		Entry("nothing to compare", []string{}, "give either --suite with --base and --head, or two report files"),
		Entry("an unknown variant", []string{"--suite", "climate", "--base", "untrimmed", "--head", "trimed"}, `suite climate has no variant "trimed"`),
		Entry("a missing file", []string{"nope.json", "nope.json"}, "nope.json"),
		Entry("a variant against itself", []string{"--suite", "kura", "--base", "full-state", "--head", "full-state"},
			"--base and --head are both full-state: a variant compared with itself can only tie"),
		Entry("a variant against itself, judged", []string{"--suite", "kura", "--base", "full-state", "--head", "full-state", "--judge"},
			"--base and --head are both full-state"),
		Entry("a scenario the suite lacks", []string{"--suite", "kura", "--base", "full-state", "--head", "compact-state", "--scenario", "nope"},
			`no scenario "nope" in the selected suites`),
		Entry("a scenario the suite lacks, judged", []string{"--suite", "kura", "--base", "full-state", "--head", "compact-state", "--scenario", "nope", "--judge"},
			`no scenario "nope" in the selected suites`),
	)
})
