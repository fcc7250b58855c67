package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("testbed record --max-cost", func() {
	It("stops before a call would take the spend over the cap, and loses nothing written", func() {
		root := projectOf("climate", "climate")
		dir := filepath.Join(root, "cassettes", "climate", "trimmed")
		before := yamlFiles(dir)
		Expect(before).To(HaveLen(27))

		r := testbed("record", "--root", root, "--suite", "climate", "--variant", "trimmed", "--max-cost", "0.1")

		Expect(r.code).To(Equal(exitFailed), r.String())
		m := regexp.MustCompile(`stopped at --max-cost \$0\.1: \$[0-9.]+ spent; every cassette written before is kept; (\d+) scenario runs left unrecorded \(their cassettes as they were\): (.+)`).
			FindStringSubmatch(r.stderr)
		Expect(m).NotTo(BeNil(), r.String())
		left, _ := strconv.Atoi(m[1])
		Expect(left).To(BeNumerically(">", 0))
		Expect(left).To(BeNumerically("<", 27), "some were recorded before the cap")
		Expect(strings.Split(m[2], ", ")).To(HaveLen(left))
		Expect(r.stdout).To(ContainSubstring("over the recording's --max-cost"))

		after := yamlFiles(dir)
		Expect(after).To(HaveLen(27), "no cassette removed")
		for name, data := range before {
			// the stand-in answers the same: a recorded cassette is the
			// committed one again, and one left unrecorded is untouched
			Expect(string(after[name])).To(Equal(string(data)), name)
		}
		leftovers, err := filepath.Glob(filepath.Join(dir, ".*"))
		Expect(err).NotTo(HaveOccurred())
		Expect(leftovers).To(BeEmpty(), "no temporary file left behind")

		By("replaying what is there")
		again := testbed("run", "--root", root, "--suite", "climate", "--no-baseline")
		Expect(again.code).To(Equal(exitOK), again.String())
	})

	It("estimates with --dry-run and calls nothing", func() {
		root := projectOf("climate", "climate")
		dir := filepath.Join(root, "cassettes", "climate", "trimmed")
		before := yamlFiles(dir)
		r := testbed("record", "--root", root, "--suite", "climate", "--variant", "trimmed", "--dry-run", "--max-cost", "0.1")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchRegexp(`climate/trimmed\s+openai/gpt-4\.1\s+27\s+71\s+\$[0-9.]+`))
		Expect(r.stdout).To(ContainSubstring("--max-cost $0.1 would stop the recording before its end"))
		Expect(yamlFiles(dir)).To(Equal(before))
	})
})
