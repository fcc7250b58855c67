package report_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
)

// staleAfterEdit is a report in which one edit of the router prompt makes
// five scenarios of two variants miss at the same place (their cassettes'
// nearest interactions numbered apart), another scenario misses for
// another cause, and one fails a check.
func staleAfterEdit() *report.Report {
	r := fixture()
	r.Suites = r.Suites[:1]
	miss := func(variant, id string, nearest int, diff string) report.Scenario {
		e := &cassette.MissError{Cassette: fmt.Sprintf("cassettes/odbchat/%s/%s.yaml", variant, id), Method: "POST",
			URL: "http://localhost:11434/v1/chat/completions", Nearest: nearest, Diff: []string{diff},
			Rerecord: fmt.Sprintf("testbed record --suite odbchat --variant %s --scenario %s", variant, id)}
		return report.Scenario{ID: id, Verdict: report.VerdictStale, Error: e.Error()}
	}
	edit := `/messages/0/content: "…for ocean data. Answer briefly and cite sources." → "…for ocean data. Answer at length and cite sources."`
	s := &r.Suites[0]
	for i := range s.Variants {
		v := &s.Variants[i]
		v.Scenarios = v.Scenarios[:1]
		v.Scenarios[0].Verdict = report.VerdictPass
		for k := range 2 + i {
			v.Scenarios = append(v.Scenarios, miss(v.Name, fmt.Sprintf("edit-%d", k), k, edit))
		}
	}
	v := &s.Variants[1]
	v.Scenarios = append(v.Scenarios, miss(v.Name, "other", 0, `/temperature: 0 → 0.2`),
		report.Scenario{ID: "wrong", Verdict: report.VerdictFail, Checks: []report.Check{{Turn: 0, Name: "route", Detail: "want tool:a, got explain"}}})
	for i := range s.Variants {
		s.Variants[i].Summary = report.Summarize(s.Variants[i].Scenarios)
	}
	return r
}

var _ = Describe("WriteBrief's stale cassettes", func() {
	It("match their golden file: one entry per cause, its scenarios, one command for them all", func() {
		golden("brief-stale.txt", render(report.WriteBrief, staleAfterEdit()))
	})

	It("group the misses of one cause, and only those", func() {
		brief := string(render(report.WriteBrief, staleAfterEdit()))
		Expect(brief).To(ContainSubstring("failures (3):"), "the group, the other miss, the failed check")
		Expect(strings.Count(brief, "re-record them all")).To(Equal(1))
		Expect(brief).To(ContainSubstring("✗ 5 scenario runs stale for one cause: no recorded match for POST http://localhost:11434/v1/chat/completions (the nearest recorded request differs at /messages/0/content:"))
		Expect(brief).To(ContainSubstring("re-record them all (only the calls that miss) with: testbed record --suite odbchat --record-missing"))
		Expect(brief).To(ContainSubstring("odbchat/legacy: edit-0, edit-1, edit-2\n"))
		Expect(brief).To(ContainSubstring("odbchat/single-pass: edit-0, edit-1\n"))
		Expect(strings.Count(brief, "re-record with: ")).To(Equal(1), "the other miss keeps its own command")
		Expect(brief).To(ContainSubstring("re-record with: testbed record --suite odbchat --variant legacy --scenario other"))
	})

	It("group sampled runs too, keeping the command's other flags", func() {
		r := staleAfterEdit()
		v := &r.Suites[0].Variants[0]
		for i := range v.Scenarios[1:] {
			sc := &v.Scenarios[1+i]
			sc.Error = "sample 1: " + strings.Replace(sc.Error, "--scenario "+sc.ID, "--scenario "+sc.ID+" --root /tmp/p", 1)
		}
		r.Suites[0].Variants = r.Suites[0].Variants[:1]
		brief := string(render(report.WriteBrief, r))
		Expect(brief).To(ContainSubstring("✗ 2 scenario runs stale for one cause"))
		Expect(brief).To(ContainSubstring("with: testbed record --suite odbchat --variant single-pass --root /tmp/p --record-missing\n"))
	})

	It("are grouped in latest.md too", func() {
		var md strings.Builder
		Expect(report.WriteMarkdownBrief(&md, staleAfterEdit(), "latest-full.md")).To(Succeed())
		Expect(strings.Count(md.String(), "re-record them all")).To(Equal(1))
	})
})

var _ = Describe("WriteBrief's stale cassettes of other causes", func() {
	It("group misses of an upstream URL, whose nearest requests are numbered apart, and keep every difference", func() {
		r := staleAfterEdit()
		v := &r.Suites[0].Variants[0]
		for i := range v.Scenarios[1:] {
			sc := &v.Scenarios[1+i]
			e := &cassette.MissError{Cassette: "cassettes/odbchat/single-pass/" + sc.ID + ".yaml", Method: "GET",
				URL: "https://api.example.com/v2/sst?lat=1", Nearest: i, NearestURL: "GET https://api.example.com/v1/sst?lat=1",
				Diff:     []string{"path: /v1/sst → /v2/sst", "query key added: units=c"},
				Rerecord: "testbed record --suite odbchat --variant single-pass --scenario " + sc.ID}
			sc.Error = e.Error()
		}
		r.Suites[0].Variants = r.Suites[0].Variants[:1]
		brief := string(render(report.WriteBrief, r))
		Expect(brief).To(ContainSubstring("✗ 2 scenario runs stale for one cause: no recorded match for GET https://api.example.com/v2/sst?lat=1 " +
			"(no recorded request to this method and URL; the nearest recorded request is GET https://api.example.com/v1/sst?lat=1; it differs in 2 places)\n" +
			"        path: /v1/sst → /v2/sst\n        query key added: units=c\n"))
	})
})
