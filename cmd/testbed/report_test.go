package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

var _ = Describe("testbed report --html", func() {
	It("renders a report JSON as one HTML page", func() {
		out := filepath.Join(GinkgoT().TempDir(), "report.html")
		r := testbed("report", "--html", out, "../../reports/baseline.json")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(Equal("wrote " + out + "\n"))
		page, err := os.ReadFile(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(page)).To(HavePrefix("<!DOCTYPE html>"))
		Expect(string(page)).To(ContainSubstring("<h2>suite climate</h2>"))
		Expect(string(page)).To(ContainSubstring(`aria-label="routing confusion, variant trimmed"`))
	})

	It("passes a report file through the detector before writing from it: the page, a comparison of two files", func() {
		dir := GinkgoT().TempDir()
		base := mustReport("../../reports/baseline.json")
		const key = "ghp_" + "R7d2kq9Zx4VbN1mT8wYc3LpA6sHj0fUe5GiQ"
		base.Suites[0].Variants[0].Scenarios[0].Answer = []string{"the token is " + key}
		in := filepath.Join(dir, "in.json")
		f, err := os.Create(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(report.WriteJSON(f, base)).To(Succeed())
		Expect(f.Close()).To(Succeed())

		page := filepath.Join(dir, "page.html")
		r := testbed("report", "--html", page, in)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(os.ReadFile(page)).NotTo(ContainSubstring(key[4:]))

		r = testbed("compare", "../../reports/baseline.json", in, "--json")
		Expect(r.stdout + r.stderr).NotTo(ContainSubstring(key[4:]))
		Expect(r.stdout).To(ContainSubstring("the token is "))
	})

	DescribeTable("says what is wrong with its arguments",
		func(want string, args ...string) {
			r := testbed(append([]string{"report"}, args...)...)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(ContainSubstring(want))
		},
		Entry("no --html", "usage: testbed report --html FILE", "../../reports/baseline.json"),
		Entry("no report yet", "reports/latest.json does not exist: run 'testbed run' first", "--html", "x.html"),
		Entry("not a report", "testbed_suite_test.go", "--html", "x.html", "testbed_suite_test.go"),
	)
})
