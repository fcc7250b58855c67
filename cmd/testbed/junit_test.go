package main

import (
	"encoding/xml"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("testbed run --junit", func() {
	It("writes the results as JUnit XML", func() {
		path := filepath.Join(GinkgoT().TempDir(), "out", "junit.xml")
		r := testbed("run", "--root", "../..", "--suite", "odbchat", "--out", "", "--quiet", "--junit", path)
		Expect(r.code).To(Equal(exitOK), r.String())
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		var doc struct {
			Tests  int `xml:"tests,attr"`
			Suites []struct {
				Name string `xml:"name,attr"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(data, &doc)).To(Succeed())
		Expect(doc.Tests).To(Equal(67), "60 scenario runs, 6 thresholds and the gate")
		Expect(doc.Suites).To(HaveLen(3))
		Expect(doc.Suites[2].Name).To(Equal("regression gate"))
	})
})
