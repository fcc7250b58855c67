package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// lineOf returns the 1-based line of the n-th (from 1) line of text that
// contains needle.
func lineOf(text, needle string, n int) int {
	GinkgoHelper()
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, needle) {
			n--
			if n == 0 {
				return i + 1
			}
		}
	}
	Fail(fmt.Sprintf("%q does not occur that often", needle))
	return 0
}

var _ = Describe("testbed run", func() {
	var root string

	BeforeEach(func() {
		root = project()
	})

	It("prints, by default, one line per suite and variant, the replay's hermeticity and the verdict: one screen", func() {
		r := testbed("run", "--root", root, "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`(?m)^suite/variant\s+passed\s+routing\s+reduction\s+in tok\s+p50\s+p95\s+cost/run$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat/legacy\s+30/30\s+26\.7%\s+\d+\.\d%\s+582\s+7,541 ms\s+8,847 ms\s+\$0$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat/single-pass\s+30/30\s+100\.0%`))
		Expect(r.stdout).To(ContainSubstring("replay: 0 live calls; "))
		Expect(r.stdout).To(MatchRegexp(`PASS: all 60 scenarios and 6 thresholds passed, judging 1 suite, 2 variants, 60 runs and \S+ model calls \(\d+ of \d+ checks judged model behaviour against a stand-in\)`))
		Expect(r.stdout).NotTo(ContainSubstring("cost per scenario"), "the tables are --tables'")
		Expect(strings.Count(r.stdout, "\n")).To(BeNumerically("<", 15))
	})

	It("prints every failure in full by default, with what was expected, what happened and the fix", func() {
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), `input: "現在台灣周遭海溫多少？"`, `input: "請問現在台灣周遭海溫多少？"`, 1)
		r := testbed("run", "--root", root, "--out", "", "--scenario", "ac1-taiwan-sst")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat/single-pass\s+0/1 ✗`))
		Expect(r.stdout).To(ContainSubstring("failures (2):"))
		Expect(r.stdout).To(ContainSubstring("✗ odbchat/single-pass ac1-taiwan-sst stale: cassette "))
		Expect(r.stdout).To(ContainSubstring("re-record with: testbed record --suite odbchat --variant single-pass --scenario ac1-taiwan-sst"))
		Expect(r.stdout).To(ContainSubstring("thresholds that failed ("))
		Expect(r.stdout).To(ContainSubstring("FAIL: 2 of 2 scenarios"))
	})

	It("replays every committed scenario, prints the tables and writes reports/latest.*", func() {
		r := testbed("run", "--tables", "--root", root)

		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stderr).To(Equal("no blessed baseline at "+filepath.Join(root, "reports", "baseline.json")+": the regression gate did not run; create one with: testbed baseline bless --root "+root+"\n"),
			"no progress when stderr is not a terminal; only the note that this copy has no baseline")
		for _, table := range []string{
			"suite odbchat — agent odbchat · tokenizer o200k_base · baseline legacy · mode replay",
			"variant legacy — ", "variant single-pass — ", "(replayed from rule-based stand-in shaped like gemma3:4b's API)",
			"\nsummary\n", "\ncost per scenario (mean)\n", "\nthresholds\n",
			"\ninput tokens by part (mean per scenario)\n", "\nLLM calls by role (total)\n",
		} {
			Expect(r.stdout).To(ContainSubstring(table))
		}
		Expect(r.stdout).To(MatchRegexp(`(?m)^ac1-taiwan-sst\s+AC-1\s+PASS\s`))
		Expect(r.stdout).To(ContainSubstring("PASS: all 60 scenarios and 6 thresholds passed"))
		Expect(r.stdout).To(MatchRegexp(`(?m)^replayed 60 scenario runs in `))

		md, err := os.ReadFile(filepath.Join(root, "reports", "latest.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(HavePrefix("**PASS: all 60 scenarios"))
		Expect(string(md)).To(ContainSubstring("[latest-full.md](latest-full.md)"))
		full, err := os.ReadFile(filepath.Join(root, "reports", "latest-full.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(full)).To(ContainSubstring("ac1-taiwan-sst"))
		saved, err := os.ReadFile(filepath.Join(root, "reports", "latest.json"))
		Expect(err).NotTo(HaveOccurred())
		rep, err := report.ReadJSON(bytes.NewReader(saved))
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.SchemaVersion).To(Equal(1))
		Expect(rep.Passed()).To(BeTrue())
		Expect(rep.Suites).To(HaveLen(1))
		Expect(rep.Suites[0].Variants).To(HaveLen(2))
		for _, v := range rep.Suites[0].Variants {
			Expect(v.Scenarios).To(HaveLen(30))
		}

		By("printing the same report as JSON with --json, byte for byte")
		j := testbed("run", "--root", root, "--json", "--out", "")
		Expect(j.code).To(Equal(exitOK), j.String())
		Expect(j.stdout).To(HavePrefix("{\n  \"schemaVersion\": 1,"))
		fromStdout, err := report.ReadJSON(strings.NewReader(j.stdout))
		Expect(err).NotTo(HaveOccurred())
		Expect(fromStdout.SchemaVersion).To(Equal(1))
		Expect(j.stdout).To(Equal(string(saved)))
	})

	It("writes the reports into an absolute --out as given, a relative one under --root", func() {
		abs := GinkgoT().TempDir()
		r := testbed("run", "--root", root, "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--out", abs)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(filepath.Join(abs, "latest.json")).To(BeAnExistingFile())
		Expect(filepath.Join(abs, "latest.md")).To(BeAnExistingFile())

		r = testbed("run", "--root", root, "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--out", "mine")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(filepath.Join(root, "mine", "latest.json")).To(BeAnExistingFile())
	})

	It("writes no report with --out ''", func() {
		r := testbed("run", "--root", root, "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--out", "")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(filepath.Join(root, "reports")).NotTo(BeAnExistingFile())
	})

	It("exits 3 on a changed request, naming the cassette, the changed field and the command that re-records it", func() {
		path := cassettePath(root, "single-pass", "ac1-taiwan-sst")
		replace(path, "single-pass classifier+router", "single-pass classifier-router", 1)

		r := testbed("run", "--tables", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--scenario", "ac1-taiwan-sst")

		Expect(r.code).To(Equal(exitStale), r.String())
		out := r.stdout + r.stderr
		Expect(out).To(ContainSubstring("cassette " + path + " has no match for POST http://localhost:11434/v1/chat/completions"))
		Expect(out).To(ContainSubstring("/messages/0/content: \"You are ODBchat's single-pass classifier-router"))
		Expect(out).To(ContainSubstring("re-record with: testbed record --suite odbchat --variant single-pass --scenario ac1-taiwan-sst"))
		Expect(r.stdout).To(MatchRegexp(`(?m)^ac1-taiwan-sst\s+AC-1\s+STALE\s`))
		Expect(r.stderr).To(ContainSubstring("stale or missing cassettes"))
	})

	It("exits 3 on a missing cassette, with the command that records it", func() {
		Expect(os.Remove(cassettePath(root, "legacy", "ac2-hualien-point"))).To(Succeed())

		r := testbed("run", "--root", root)

		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(ContainSubstring("cassette not found: " + cassettePath(root, "legacy", "ac2-hualien-point")))
		Expect(r.stdout).To(ContainSubstring("record it with: testbed record --suite odbchat --variant legacy --scenario ac2-hualien-point"))
		Expect(r.stderr).To(ContainSubstring("1 scenario runs have stale or missing cassettes"))
	})

	It("exits 1 when an expectation fails, naming the scenario and the check", func() {
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), `["2025-11-06", "26.4 °C", "+0.21 °C"]`, `["2025-11-06", "27.4 °C", "+0.21 °C"]`, 1)

		r := testbed("run", "--tables", "--root", root, "--out", "")

		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(MatchRegexp(`(?m)^ac1-taiwan-sst\s+AC-1\s+FAIL\s`))
		Expect(r.stdout).To(ContainSubstring(`✗ ac1-taiwan-sst turn 1 answer.contains: answer lacks "27.4 °C"`))
		Expect(r.stdout).To(ContainSubstring("FAIL: 1 of 60 scenarios"))
		Expect(r.stderr).To(ContainSubstring("scenario runs or thresholds failed"))
	})

	It("stops a scenario that outlives --timeout and reports it as an error", func() {
		r := testbed("run", "--tables", "--root", root, "--out", "", "--scenario", "ac1-taiwan-sst", "--timeout", "1ns")

		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(MatchRegexp(`(?m)^ac1-taiwan-sst\s+AC-1\s+ERROR\s`))
		Expect(r.stdout).To(ContainSubstring("✗ ac1-taiwan-sst error: scenario stopped after 1ns: context deadline exceeded"))
	})

	It("exits 2 on a broken suite, with path:line for every problem at once", func() {
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		replace(path, `- "latency_p95 < 10s"`, `- "latency_p90 < 10s"`, 1)          // a metric that does not exist
		replace(path, "  - id: ac2-hualien-point\n", "  - id: ac1-taiwan-sst\n", 1) // a duplicate id
		replace(path, "    criterion: AC-3\n", "    criterion: AC-3\n    priority: high\n", 1)
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		text := string(data)

		r := testbed("run", "--root", root)

		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stdout).To(BeEmpty())
		Expect(r.stderr).To(ContainSubstring(fmt.Sprintf("%s:%d: thresholds.single-pass[4]: unknown metric \"latency_p90\"", path, lineOf(text, "latency_p90", 1))))
		Expect(r.stderr).To(ContainSubstring(fmt.Sprintf("%s:%d: scenarios[1].id: duplicate id \"ac1-taiwan-sst\" (first at line %d)",
			path, lineOf(text, "- id: ac1-taiwan-sst", 2), lineOf(text, "- id: ac1-taiwan-sst", 1))))
		Expect(r.stderr).To(ContainSubstring(fmt.Sprintf("%s:%d: scenarios[2]: unknown key \"priority\"", path, lineOf(text, "priority: high", 1))))
		Expect(regexp.MustCompile(`odbchat\.yaml:\d+: `).FindAllString(r.stderr, -1)).To(HaveLen(3))
		Expect(filepath.Join(root, "reports")).NotTo(BeAnExistingFile())
	})

	// A mistyped --variant or --scenario must not turn CI green by running
	// nothing: --suite is checked the same way.
	DescribeTable("exits 2 on a selection that names nothing",
		func(flag, name string) {
			r := testbed("run", "--root", root, "--out", "", flag, name)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(fmt.Sprintf("%q", name)))
		},
		Entry("an unknown suite", "--suite", "odbchta"),
		Entry("an unknown variant", "--variant", "single-pas"),
		Entry("an unknown scenario", "--scenario", "ac1-taiwan"),
	)
})

var _ = Describe("testbed list", func() {
	type listed struct {
		Suite, Variant, ID, Criterion, Cassette string
		Recorded                                bool
	}

	It("lists every scenario of every variant with its cassette, as JSON", func() {
		root := project()
		Expect(os.Remove(cassettePath(root, "single-pass", "ac3-what-is-ghrsst"))).To(Succeed())

		r := testbed("list", "--root", root, "--json")

		Expect(r.code).To(Equal(exitOK), r.String())
		var rows []listed
		Expect(json.Unmarshal([]byte(r.stdout), &rows)).To(Succeed())
		Expect(rows).To(HaveLen(60))
		recorded := 0
		for _, row := range rows {
			Expect(row.Suite).To(Equal("odbchat"))
			Expect(row.Cassette).To(Equal(cassettePath(root, row.Variant, row.ID)))
			if row.Recorded {
				recorded++
				Expect(row.Cassette).To(BeAnExistingFile())
			} else {
				Expect(row.Variant + "/" + row.ID).To(Equal("single-pass/ac3-what-is-ghrsst"))
			}
		}
		Expect(recorded).To(Equal(59))
		Expect(rows[0]).To(Equal(listed{"odbchat", "legacy", "ac1-taiwan-sst", "AC-1", cassettePath(root, "legacy", "ac1-taiwan-sst"), true}))
	})

	It("lists all 60 as recorded in the committed tree", func() {
		r := testbed("list", "--root", project(), "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		var rows []listed
		Expect(json.Unmarshal([]byte(r.stdout), &rows)).To(Succeed())
		Expect(rows).To(HaveLen(60))
		Expect(rows).To(HaveEach(HaveField("Recorded", true)))
	})

	It("prints a line per scenario without --json", func() {
		root := project()
		Expect(os.Remove(cassettePath(root, "legacy", "ac4-json-to-csv"))).To(Succeed())
		r := testbed("list", "--root", root, "--variant", "legacy")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(strings.Split(strings.TrimSpace(r.stdout), "\n")).To(HaveLen(30))
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat\s+legacy\s+ac4-json-to-csv\s+AC-4\s+NOT RECORDED$`))
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat\s+legacy\s+ac1-taiwan-sst\s+AC-1\s+recorded$`))
	})
})
