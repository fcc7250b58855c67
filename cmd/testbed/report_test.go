package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
