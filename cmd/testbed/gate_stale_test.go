package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A run gone stale is a regression of its own, but blessing refuses it:
// the gate's message must send the user to the stale run first, not to
// "if they are intended, run: testbed baseline bless".
var _ = Describe("the gate's message when a regression is a stale run", func() {
	It("says to fix the stale runs first, then names the bless command", func() {
		root := project()
		bless := testbed("baseline", "bless", "--root", root, "--quiet")
		Expect(bless.code).To(Equal(exitOK), bless.String())
		Expect(os.Remove(filepath.Join(root, "cassettes", "odbchat", "single-pass", "explain-marine-heatwave.judge.yaml"))).To(Succeed())

		r := testbed("run", "--root", root, "--out", "", "--quiet")

		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(MatchRegexp(`explain-marine-heatwave\s+verdict\s+.*pass → stale`))
		Expect(r.stderr).To(ContainSubstring("of them from runs that are stale or errored, or metrics they left unmeasured: fix those runs first, as each failure above says; then, if what is left is intended, run: testbed baseline bless --root " + root))
		Expect(r.stderr).NotTo(ContainSubstring("if they are intended, run:"))
	})
})
