package main

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A threshold with nothing to measure (ttft_p95 where no call streams)
// cannot be blessed; the refusal must say why, as testbed run does, not
// send the user to re-record runs that are not stale.
var _ = Describe("baseline bless with a threshold that measured nothing", func() {
	It("says why it was not evaluated and names the bless command of this project", func() {
		root := project()
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), `    - "routing_accuracy >= 0.95"`, `    - "routing_accuracy >= 0.95"
    - "ttft_p95 < 1s"`, 1)

		r := testbed("baseline", "bless", "--root", root, "--quiet")

		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stderr).To(ContainSubstring("odbchat/single-pass threshold ttft_p95 < 1s was not evaluated: no model call streamed, so ttft_p95 was not measured"))
		Expect(r.stderr).To(ContainSubstring("give a threshold not evaluated something to measure (or drop it from the suite), then run: testbed baseline bless --root " + root))
	})
})
