package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("paths a suite names stay in the project", func() {
	It("refuses fixtures that lead out of fixtures/<agent>/, by dot-dots or a symlink, with path:line, and records nothing from them", func() {
		root := project()
		secret := filepath.Join(GinkgoT().TempDir(), "hostname")
		Expect(os.WriteFile(secret, []byte("host-outside-the-project\n"), 0o644)).To(Succeed())
		routes := filepath.Join(root, "fixtures", "odbchat", "routes.yaml")
		replace(routes, "file: ghrsst/taiwan_nearby_2025-11-06.json", "file: ../../../../../../../../../.."+secret, 1)
		linked := filepath.Join(root, "fixtures", "odbchat", "ghrsst", "taiwan_nearby_2025-11-05.json")
		Expect(os.Remove(linked)).To(Succeed())
		Expect(os.Symlink(secret, linked)).To(Succeed())

		r := testbed("record", "--root", root, "--suite", "odbchat")
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring(`routes.yaml:19: file "../../../../../../../../../..` + secret + `" leads outside`))
		Expect(r.stderr).To(ContainSubstring(`routes.yaml:24: file "ghrsst/taiwan_nearby_2025-11-05.json" leads outside`))
		Expect(r.stderr).To(ContainSubstring("(to " + secret + ")"))
		for name, data := range yamlFiles(filepath.Join(root, "cassettes")) {
			Expect(string(data)).NotTo(ContainSubstring("host-outside-the-project"), name)
		}
	})

	It("refuses a cassette folder that is a symlink out of the project, and an agent.dir outside it, in lint, run and record, all at once", func() {
		root := project()
		elsewhere := GinkgoT().TempDir()
		Expect(os.Rename(filepath.Join(root, "cassettes", "odbchat"), filepath.Join(elsewhere, "odbchat"))).To(Succeed())
		Expect(os.Symlink(filepath.Join(elsewhere, "odbchat"), filepath.Join(root, "cassettes", "odbchat"))).To(Succeed())
		odbchatAs(root, "outside", "  command: [node, agent.js]\n  dir: "+elsewhere+"\n")
		Expect(os.RemoveAll(filepath.Join(root, "cassettes", "outside"))).To(Succeed())
		odbchatAs(root, "upward", "  command: [node, agent.js]\n  dir: ../..\n")
		link := filepath.Join(root, "cassettes", "upward", "legacy", "ac1-taiwan-sst.yaml")
		Expect(os.Remove(link)).To(Succeed())
		Expect(os.Symlink(filepath.Join(elsewhere, "odbchat", "legacy", "ac1-taiwan-sst.yaml"), link)).To(Succeed())
		before := yamlFiles(elsewhere)

		for _, cmd := range []string{"lint", "run", "record"} {
			r := testbed(cmd, "--root", root)
			Expect(r.code).To(Equal(exitUsage), "%s: %s", cmd, r)
			Expect(r.stderr).To(ContainSubstring(`odbchat.yaml:12: suite: its cassette folder ` + filepath.Join(root, "cassettes", "odbchat") + ` leads outside ` + root))
			Expect(r.stderr).To(ContainSubstring(`odbchat.yaml:25: variants.legacy: the variant's cassette folder`))
			Expect(r.stderr).To(MatchRegexp(`outside\.yaml:\d+: agent\.dir: "` + elsewhere + `" is an absolute path; give the agent's folder relative to the project root`))
			Expect(r.stderr).To(MatchRegexp(`upward\.yaml:\d+: agent\.dir: agent\.dir "\.\./\.\." leads outside ` + root))
			Expect(r.stderr).To(MatchRegexp(`upward\.yaml:\d+: scenarios\.ac1-taiwan-sst: its cassette \S+ leads outside ` + root))
			Expect(strings.Count(r.stderr, "leads outside")).To(BeNumerically(">=", 5), "every problem at once")
		}
		Expect(yamlFiles(elsewhere)).To(Equal(before), "nothing was written outside the project")
	})

	It("refuses a data file, a price table, a suite file and a fixtures folder that are symlinks out of the project, in lint, all at once", func() {
		root := projectOf("odbchat-cases", "odbchat")
		elsewhere := GinkgoT().TempDir()
		cases := filepath.Join(root, "scenarios", "cases", "odbchat-cases.jsonl")
		Expect(os.MkdirAll(filepath.Dir(cases), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(elsewhere, "cases.jsonl"), []byte(mustRead(filepath.Join(repoRoot, "scenarios", "cases", "odbchat-cases.jsonl"))), 0o644)).To(Succeed())
		Expect(os.Symlink(filepath.Join(elsewhere, "cases.jsonl"), cases)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(elsewhere, "prices.json"), []byte(`{"gemma3:4b": {"input_cost_per_token": 0, "output_cost_per_token": 0}}`), 0o644)).To(Succeed())
		Expect(os.Symlink(filepath.Join(elsewhere, "prices.json"), filepath.Join(root, "prices.json"))).To(Succeed())
		replace(filepath.Join(root, "scenarios", "odbchat-cases.yaml"), "  models: {gemma3:4b: ollama/gemma3:4b}\n", "  models: {gemma3:4b: ollama/gemma3:4b}\n  file: prices.json\n", 1)
		Expect(os.WriteFile(filepath.Join(elsewhere, "other.yaml"), []byte("suite: other\n"), 0o644)).To(Succeed())
		Expect(os.Symlink(filepath.Join(elsewhere, "other.yaml"), filepath.Join(root, "scenarios", "other.yaml"))).To(Succeed())
		Expect(os.Rename(filepath.Join(root, "fixtures", "odbchat"), filepath.Join(elsewhere, "fixtures"))).To(Succeed())
		Expect(os.Symlink(filepath.Join(elsewhere, "fixtures"), filepath.Join(root, "fixtures", "odbchat"))).To(Succeed())

		r := testbed("lint", "--root", root)
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(MatchRegexp(`odbchat-cases\.yaml:\d+: scenarios_from\.file: "cases/odbchat-cases\.jsonl" leads outside \S+ \(to ` + elsewhere + `/cases\.jsonl\)`))
		Expect(r.stderr).To(MatchRegexp(`odbchat-cases\.yaml:\d+: prices\.file: prices\.file "prices\.json" leads outside`))
		Expect(r.stderr).To(MatchRegexp(`other\.yaml:1: the suite file leads outside \S+ \(to ` + elsewhere + `/other\.yaml\)`))
		Expect(r.stderr).To(MatchRegexp(`odbchat-cases\.yaml:\d+: agent: the agent's fixtures folder \S+ leads outside`))
	})

	DescribeTable("refuses an agent.dir that is no folder, at its line, rather than failing to start the agent",
		func(dir string) {
			root := GinkgoT().TempDir()
			Expect(os.CopyFS(filepath.Join(root, "scenarios"), os.DirFS(filepath.Join(repoRoot, "examples", "weather-ts", "scenarios")))).To(Succeed())
			replace(filepath.Join(root, "scenarios", "weather-ts.yaml"), "  command: [node, agent.js]\n", "  command: [node, agent.js]\n  dir: \""+dir+"\"\n", 1)
			r := testbed("lint", "--root", root)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(MatchRegexp(`weather-ts\.yaml:\d+: agent\.dir: "` + regexp.QuoteMeta(dir) + `" is no folder under `))
		},
		Entry("a folder that is not there", "agent"),
		Entry("a tilde, which is no home folder here", "~"),
	)

	// listing is every file under dir, by its path relative to dir, with its contents.
	listing := func(dir string) map[string]string {
		GinkgoHelper()
		out := map[string]string{}
		Expect(filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, path)
			out[rel] = mustRead(path)
			return err
		})).To(Succeed())
		return out
	}

	DescribeTable("refuses a path it resolves under the root that leads out through a symlink (exit 2), saying where and how to fix it, and writes nothing outside",
		func(setup func(root, elsewhere string) []string, want func(root, elsewhere string) string) {
			root := projectOf("odbchat", "odbchat")
			elsewhere := GinkgoT().TempDir()
			args := setup(root, elsewhere)
			before := listing(elsewhere)
			r := testbed(args...)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(want(root, elsewhere)))
			Expect(listing(elsewhere)).To(Equal(before), "nothing was written outside the project")
		},
		Entry("run's reports/ (--out, by default), written through",
			func(root, elsewhere string) []string {
				Expect(os.Symlink(elsewhere, filepath.Join(root, "reports"))).To(Succeed())
				return []string{"run", "--root", root, "--no-baseline"}
			},
			func(root, elsewhere string) string {
				return "--out reports leads outside " + root + " (to " + elsewhere + "); keep it under " + root + ", not behind a symlink out of it; or give an absolute --out"
			}),
		Entry("run's baseline (--baseline reports/baseline.json, by default), read through reports/ when --out is elsewhere",
			func(root, elsewhere string) []string {
				Expect(os.WriteFile(filepath.Join(elsewhere, "baseline.json"), []byte(`{"suites": []}`), 0o644)).To(Succeed())
				Expect(os.Symlink(elsewhere, filepath.Join(root, "reports"))).To(Succeed())
				return []string{"run", "--root", root, "--out", GinkgoT().TempDir()}
			},
			func(root, elsewhere string) string {
				return "--baseline reports/baseline.json leads outside " + root + " (to " + filepath.Join(elsewhere, "baseline.json") + "); keep it under " + root
			}),
		Entry("cassettes check's cassettes/ (its --dir by default), which the scan does not enter: no all-clear",
			func(root, elsewhere string) []string {
				Expect(os.Rename(filepath.Join(root, "cassettes"), filepath.Join(elsewhere, "cassettes"))).To(Succeed())
				Expect(os.Symlink(filepath.Join(elsewhere, "cassettes"), filepath.Join(root, "cassettes"))).To(Succeed())
				return []string{"cassettes", "check", "--root", root}
			},
			func(root, elsewhere string) string {
				return "--dir cassettes leads outside " + root + " (to " + filepath.Join(elsewhere, "cassettes") + "); keep it under " + root + ", not behind a symlink out of it; or give an absolute --dir"
			}),
		Entry("init --from, a data file under scenarios/ that is a symlink out, read for its columns",
			func(root, elsewhere string) []string {
				Expect(os.WriteFile(filepath.Join(elsewhere, "sst.csv"), []byte("id,input\na,b\n"), 0o644)).To(Succeed())
				cases := filepath.Join(root, "scenarios", "cases", "sst.csv")
				Expect(os.MkdirAll(filepath.Dir(cases), 0o755)).To(Succeed())
				Expect(os.Symlink(filepath.Join(elsewhere, "sst.csv"), cases)).To(Succeed())
				return []string{"init", "sst-cases", "--agent", "odbchat", "--root", root, "--from", cases}
			},
			func(root, elsewhere string) string {
				return "leads outside " + filepath.Join(root, "scenarios") + " (to " + filepath.Join(elsewhere, "sst.csv") + "); move the file under"
			}),
		Entry("init's new suite, written through a scenarios/ that is a symlink out",
			func(root, elsewhere string) []string {
				Expect(os.Rename(filepath.Join(root, "scenarios"), filepath.Join(elsewhere, "scenarios"))).To(Succeed())
				Expect(os.Symlink(filepath.Join(elsewhere, "scenarios"), filepath.Join(root, "scenarios"))).To(Succeed())
				return []string{"init", "fresh", "--agent", "odbchat", "--root", root}
			},
			func(root, elsewhere string) string {
				return "the new suite " + filepath.Join(root, "scenarios", "fresh.yaml") + " leads outside " + root + " (to " + filepath.Join(elsewhere, "scenarios", "fresh.yaml") + "); keep it under " + root
			}),
	)

	It("names a path with a NUL byte quoted, once per field, with the other problems, in lint", func() {
		root := projectOf("odbchat-cases", "odbchat")
		Expect(os.CopyFS(filepath.Join(root, "scenarios", "cases"), os.DirFS(filepath.Join(repoRoot, "scenarios", "cases")))).To(Succeed())
		replace(filepath.Join(root, "scenarios", "odbchat-cases.yaml"), "  file: cases/odbchat-cases.jsonl\n", "  file: \"cases/odbchat\\0-cases.jsonl\"\n", 1)
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "odbchat.yaml"), []byte(mustRead(filepath.Join(repoRoot, "scenarios", "odbchat.yaml"))), 0o644)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(root, "cassettes", "odbchat"), 0o755)).To(Succeed())
		odbchatAs(root, "nul", "  command: [sh, -c, \"true\"]\n  dir: \"agent\\0dir\"\n")

		r := testbed("lint", "--root", root)
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(MatchRegexp(`odbchat-cases\.yaml:\d+: scenarios_from\.file: "\S+/cases/odbchat\\x00-cases\.jsonl" holds a NUL byte, which no file name can\n`))
		Expect(r.stderr).To(MatchRegexp(`nul\.yaml:\d+: agent\.dir: agent\.dir "agent\\x00dir": "\S+/agent\\x00dir" holds a NUL byte, which no file name can\n`))
		Expect(r.stderr).NotTo(ContainSubstring("\x00"), "no NUL byte printed raw")
		Expect(strings.Count(r.stderr, "agent.dir")).To(Equal(2), "agent.dir's problem said once")
	})

	It("writes no cassette through a symlink out of the project that the agent made while it was recorded, and says so", func() {
		root := project()
		elsewhere := GinkgoT().TempDir()
		// The agent swaps its variant's cassette folder for a symlink out,
		// then answers.
		odbchatAs(root, "swap", fmt.Sprintf("  command: [sh, -c, 'rm -r cassettes/swap/legacy && ln -s %s cassettes/swap/legacy && while read -r l; do echo \"{\\\"text\\\": \\\"hi\\\"}\"; done']\n", elsewhere))

		r := testbed("record", "--root", root, "--suite", "swap", "--variant", "legacy", "--scenario", "ac1-taiwan-sst")
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout + r.stderr).To(ContainSubstring("ac1-taiwan-sst error: save cassette " + filepath.Join(root, "cassettes", "swap", "legacy", "ac1-taiwan-sst.yaml") + ": "))
		Expect(r.stdout + r.stderr).To(MatchRegexp(`\.recording leads outside ` + regexp.QuoteMeta(root) + ` \(to ` + regexp.QuoteMeta(elsewhere) + `/`))
		Expect(r.stdout + r.stderr).To(ContainSubstring("recorded 0 cassettes"))
		left, err := os.ReadDir(elsewhere)
		Expect(err).NotTo(HaveOccurred())
		Expect(left).To(BeEmpty(), "nothing was written outside the project")
	})

	It("neither reads nor writes through a graded scenario's cassette that the agent swapped for a symlink out while it was recorded", func() {
		root := project()
		outsideFile := filepath.Join(GinkgoT().TempDir(), "elsewhere.yaml")
		Expect(os.WriteFile(outsideFile, []byte("not the project's\n"), 0o644)).To(Succeed())
		// A symlink to /dev/zero here had testbed read without end.
		odbchatAs(root, "swapfile", fmt.Sprintf("  command: [sh, -c, 'ln -sf %s cassettes/swapfile/legacy/explain-marine-heatwave.yaml && while read -r l; do echo \"{\\\"text\\\": \\\"hi\\\"}\"; done']\n", outsideFile))

		r := testbed("record", "--root", root, "--suite", "swapfile", "--variant", "legacy", "--scenario", "explain-marine-heatwave")
		Expect(r.code).To(Equal(exitInternal), r.String())
		Expect(r.stderr).To(ContainSubstring("could not write the cassette cassettes/swapfile/legacy/explain-marine-heatwave.yaml: " +
			filepath.Join(root, "cassettes", "swapfile", "legacy", "explain-marine-heatwave.yaml") + " leads outside " + root + " (to " + outsideFile + ")"))
		Expect(mustRead(outsideFile)).To(Equal("not the project's\n"))
	})

	It("prices report files again with the models of the suites under the root only, not of a suite file that is a symlink out", func() {
		root := projectOf("odbchat-cases", "odbchat")
		Expect(os.CopyFS(filepath.Join(root, "scenarios", "cases"), os.DirFS(filepath.Join(repoRoot, "scenarios", "cases")))).To(Succeed())
		latest := filepath.Join(GinkgoT().TempDir(), "latest.json")
		run := testbed("run", "--root", root, "--no-baseline", "--json", "--out", "")
		Expect(run.code).To(Equal(exitOK), run.String())
		Expect(os.WriteFile(latest, []byte(run.stdout), 0o644)).To(Succeed())
		table := filepath.Join(GinkgoT().TempDir(), "prices.json")
		Expect(os.WriteFile(table, []byte(`{"outside-row": {"input_cost_per_token": 1, "output_cost_per_token": 1, "litellm_provider": "openai", "mode": "chat"}}`), 0o644)).To(Succeed())
		// The suite file, moved out and linked back, maps the model to a row of its own.
		suite := filepath.Join(root, "scenarios", "odbchat-cases.yaml")
		moved := filepath.Join(GinkgoT().TempDir(), "odbchat-cases.yaml")
		Expect(os.Rename(suite, moved)).To(Succeed())
		replace(moved, "models: {gemma3:4b: ollama/gemma3:4b}", "models: {gemma3:4b: outside-row}", 1)
		Expect(os.Symlink(moved, suite)).To(Succeed())

		page := filepath.Join(GinkgoT().TempDir(), "page.html")
		r := testbed("report", "--html", page, "--prices", table, "--root", root, latest)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(mustRead(page)).NotTo(MatchRegexp(`\$\d{2,}\.\d\d`), "priced at the outside suite's row, a dollar a token")
	})
})
