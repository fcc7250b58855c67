package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// testbed init --root elsewhere: the commands it prints to go on must reach
// that project, as the commands a stale run prints do.
var _ = Describe("init into a project given by --root", func() {
	It("prints the record and run commands with that --root", func() {
		root := GinkgoT().TempDir()
		r := testbed("init", "mine", "--root", root, "--", "node", "agent.mjs")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(Equal("wrote " + filepath.Join(root, "scenarios", "mine.yaml") +
			"; fill it in, then: testbed record --suite mine --root " + root + " && testbed run --suite mine --root " + root + "\n"))
	})
})
