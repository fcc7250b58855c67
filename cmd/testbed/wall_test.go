package main

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("where an outside agent's wall time goes", func() {
	It("is printed per variant beside its processing, and kept out of the report files", func() {
		root := project()
		bin := buildTestbed()
		odbchatAs(root, "odbchat-ext", fmt.Sprintf("  command: [%s, agent, odbchat, --root, %s]\n  all_turns: true\n", bin, root))

		r := testbed("run", "--root", root, "--suite", "odbchat-ext", "--variant", "single-pass", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`(?m)^odbchat-ext/single-pass: where the wall time of a run went, p50 of each: start \S+, proxy \S+, cassette \S+, agent \S+ \(total p50 \S+\)$`), r.String())

		By("keeping it out of the report files, which stay byte for byte reproducible")
		r = testbed("run", "--root", root, "--suite", "odbchat-ext", "--variant", "single-pass", "--json", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).NotTo(ContainSubstring("wall_clock"))
		Expect(r.stdout).NotTo(ContainSubstring("start_ms"))

		By("leaving it out for a built-in agent")
		r = testbed("run", "--root", root, "--suite", "odbchat", "--variant", "single-pass", "--json", "--out", "", "--baseline", "", "--quiet")
		Expect(r.stdout).NotTo(ContainSubstring("wall_clock"))
	})
})
