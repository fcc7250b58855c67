package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// stampedCopy copies examples/stamped (the Go agent that stamps every
// request with a fresh UUID and the wall-clock time) into a temporary
// project, with its clock moved by offset (STAMPED_CLOCK_OFFSET), and
// returns its root.
func stampedCopy(offset string) string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	Expect(os.CopyFS(root, os.DirFS(filepath.Join(repoRoot, "examples", "stamped")))).To(Succeed())
	replace(filepath.Join(root, "scenarios", "stamped.yaml"), "  turn_timeout:", "  env: {STAMPED_CLOCK_OFFSET: "+offset+"}\n  turn_timeout:", 1)
	return root
}

// matchBlock is the example suite's match: block, as committed.
const matchBlock = `match:
  headers: [X-Tenant]                   # compared as sent: a call for another tenant is another call
  ignore:
    - body: /metadata/sent_at           # when the model call was made
    - query: ts                         # when the weather call was made (Unix ms)
  normalise:
    - pattern: uuid                     # request ids, in the body and the weather call's query
`

var _ = Describe("the example that stamps every request with a fresh UUID and the time (examples/stamped)", Label("examples"), func() {
	It("replays on another day, with other UUIDs, with 0 misses thanks to its match rules", func() {
		root := stampedCopy("9000h") // a year and a few weeks after the recording
		r := testbed("run", "--root", root, "--json", "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		var rep report.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
		v := rep.Suites[0].Variants[0]
		Expect(v.Scenarios).To(HaveLen(3))
		for _, sc := range v.Scenarios {
			Expect(sc.Verdict).To(Equal(report.VerdictPass), sc.ID)
			Expect(sc.Unplayed).To(BeZero(), sc.ID)
		}
	})

	It("misses every model call without them, naming what differs: the time and the request id", func() {
		root := stampedCopy("9000h")
		replace(filepath.Join(root, "scenarios", "stamped.yaml"), matchBlock, "", 1)
		replace(filepath.Join(root, "scenarios", "stamped.yaml"), `    - pattern: iso8601                  # "The time now is …" in the system prompt
      body: /messages/0/content
    - pattern: uuid                     # the model call's X-Request-Id header
      header: X-Request-Id
`, "", 1)
		r := testbed("run", "--root", root, "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(ContainSubstring("current-oslo stale: cassette"))
		Expect(r.stdout).To(ContainSubstring("it differs in 3 places"))
		Expect(r.stdout).To(MatchRegexp(`\n\s+/messages/0/content: `))
		Expect(r.stdout).To(MatchRegexp(`\n\s+/metadata/request_id: `))
		Expect(r.stdout).NotTo(ContainSubstring("match rules"))
	})

	It("names the rules a miss was compared under, and that none covers what differs", func() {
		root := stampedCopy("0s")
		replace(filepath.Join(root, "scenarios", "stamped.yaml"), "    - body: /metadata/sent_at           # when the model call was made\n", "", 1)
		r := testbed("run", "--root", root, "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(ContainSubstring("it differs at /metadata/sent_at"))
		Expect(r.stdout).To(ContainSubstring("compared after the suite's match rules: compare headers X-Tenant; ignore query ts; " +
			"normalise uuid anywhere → <uuid>; normalise iso8601 in body /messages/0/content → <iso8601>; normalise uuid in header X-Request-Id → <uuid>"))
		Expect(r.stdout).To(ContainSubstring("none of them covers where it differs"))
	})

	It("misses a call made for another tenant: the header it compares", func() {
		root := stampedCopy("0s")
		replace(filepath.Join(root, "agent", "main.go"), `req.Header.Set("X-Tenant", "demo")`, `req.Header.Set("X-Tenant", "globex")`, 1)
		r := testbed("run", "--root", root, "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(ContainSubstring("differs: header X-Tenant: demo → globex"))
	})

	It("shows its match rules in testbed show", func() {
		root := stampedCopy("0s")
		r := testbed("show", "stamped/default/current-oslo", "--root", root)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("  match rule: compare headers X-Tenant\n  match rule: ignore body /metadata/sent_at\n"))
		Expect(r.stdout).To(ContainSubstring("  match rule: normalise uuid in header X-Request-Id → <uuid>\n"))

		r = testbed("show", "stamped/default/current-oslo", "--root", root, "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		var shown struct{ Match []string }
		Expect(json.Unmarshal([]byte(r.stdout), &shown)).To(Succeed())
		Expect(shown.Match).To(HaveLen(6))
	})
})
