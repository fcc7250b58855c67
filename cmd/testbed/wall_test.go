package main

import (
	"encoding/json"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("where an outside agent's wall time goes", func() {
	It("is printed per variant beside its processing, and kept per run in the JSON report", func() {
		root := project()
		bin := buildTestbed()
		odbchatAs(root, "odbchat-ext", fmt.Sprintf("  command: [%s, agent, odbchat, --root, %s]\n  all_turns: true\n", bin, root))

		r := testbed("run", "--root", root, "--suite", "odbchat-ext", "--variant", "single-pass", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat-ext/single-pass: where the wall time of a run went, p50 of each: start \S+, proxy \S+, cassette \S+, agent \S+ \(total p50 \S+\)$`), r.String())

		r = testbed("run", "--root", root, "--suite", "odbchat-ext", "--variant", "single-pass", "--json", "--out", "", "--baseline", "", "--quiet")
		var rep report.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), r.String())
		runs := rep.Suites[0].Variants[0].Scenarios
		Expect(len(runs)).To(BeNumerically(">=", 20))
		for _, sc := range runs {
			Expect(sc.Wall).NotTo(BeNil(), sc.ID)
			Expect(sc.Wall.Start).To(BeNumerically(">", 0), "%s: a program was started for each run", sc.ID)
		}

		By("leaving it out for a built-in agent")
		r = testbed("run", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--json", "--out", "", "--baseline", "", "--quiet")
		Expect(r.stdout).NotTo(ContainSubstring("wall_clock"))
	})
})
