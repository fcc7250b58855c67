package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a suite with gating: false", func() {
	var root, suite string

	BeforeEach(func() {
		root = project()
		suite = filepath.Join(root, "scenarios", "odbchat.yaml")
		// A failing expectation in every variant, and so failing thresholds.
		replace(suite, `contains: ["2025-11-06", "26.4 °C", "+0.21 °C"]`, `contains: ["no such answer"]`, 1)
	})

	It("fails the run while it gates", func() {
		r := testbed("run", "--root", root, "--no-baseline")
		Expect(r.code).To(Equal(exitFailed), r.String())
	})

	It("is reported, marked as not gating, counted apart, and never fails the run", func() {
		replace(suite, "\nagent: odbchat\n", "\nagent: odbchat\ngating: false\n", 1)

		r := testbed("run", "--root", root, "--no-baseline", "--tables")

		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("suite odbchat (not gating)"))
		Expect(r.stdout).To(ContainSubstring("not gating: its failures and thresholds never fail the run"))
		Expect(r.stdout).To(MatchRegexp(`(?m)^PASS: no gating suite ran; not gating: 1 of 60 scenarios, 1 of 6 thresholds failed, judging 1 suite, 2 variants, 60 runs and \S+ model calls`))
		brief := testbed("run", "--root", root, "--no-baseline")
		Expect(brief.code).To(Equal(exitOK), brief.String())
		Expect(brief.stdout).To(ContainSubstring("✗ odbchat/single-pass (not gating): pass_rate == 100%"))
		md, err := os.ReadFile(filepath.Join(root, "reports", "latest.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(md)).To(ContainSubstring("| odbchat/single-pass (not gating) |"))
		full, err := os.ReadFile(filepath.Join(root, "reports", "latest-full.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(full)).To(ContainSubstring("odbchat (not gating)"))
	})

	It("takes a boolean only", func() {
		replace(suite, "\nagent: odbchat\n", "\nagent: odbchat\ngating: sometimes\n", 1)
		r := testbed("lint", "--root", root)
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring("odbchat.yaml:14: gating: want true or false"))
	})
})
