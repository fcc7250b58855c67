package main

import (
	"encoding/xml"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// junitDoc is the part of a JUnit document these specs read.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Failures int    `xml:"failures,attr"`
	} `xml:"testsuite"`
}

// readJUnit reads the JUnit document at path.
func readJUnit(path string) junitDoc {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var doc junitDoc
	Expect(xml.Unmarshal(data, &doc)).To(Succeed())
	return doc
}

var _ = Describe("testbed run --junit", func() {
	It("writes the results as JUnit XML", func() {
		path := filepath.Join(GinkgoT().TempDir(), "out", "junit.xml")
		r := testbed("run", "--root", "../..", "--suite", "odbchat", "--out", "", "--quiet", "--junit", path)
		Expect(r.code).To(Equal(exitOK), r.String())
		doc := readJUnit(path)
		Expect(doc.Failures).To(BeZero())
		Expect(doc.Tests).To(Equal(67), "60 scenario runs, 6 thresholds and the gate")
		Expect(doc.Suites).To(HaveLen(3))
		Expect(doc.Suites[2].Name).To(Equal("regression gate"))
	})

	It("counts a failed threshold as a failure", func() {
		root := project()
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), `"latency_p95 < 10s"`, `"latency_p95 < 1s"`, 1)
		path := filepath.Join(root, "junit.xml")
		r := testbed("run", "--root", root, "--suite", "odbchat", "--out", "", "--quiet", "--no-baseline", "--junit", path)
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(readJUnit(path).Failures).To(Equal(1))
	})
})
