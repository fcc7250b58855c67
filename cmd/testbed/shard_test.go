package main

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("sharded runs", func() {
	It("merge into a report identical to an unsharded run", func() {
		dir := GinkgoT().TempDir()
		var shards []string
		for _, s := range []string{"1/3", "2/3", "3/3"} {
			r := testbed("run", "--root", "../..", "--suite", "odbchat", "--shard", s, "--json", "--out", "", "--quiet")
			Expect(r.code).To(Equal(exitOK), r.String())
			path := filepath.Join(dir, "shard"+s[:1]+".json")
			Expect(os.WriteFile(path, []byte(r.stdout), 0o644)).To(Succeed())
			shards = append(shards, path)
		}
		whole := testbed("run", "--root", "../..", "--suite", "odbchat", "--json", "--out", "", "--quiet")
		Expect(whole.code).To(Equal(exitOK), whole.String())

		junit := filepath.Join(dir, "junit.xml")
		merged := testbed(append([]string{"report", "merge", "--root", "../..", "--suite", "odbchat", "--junit", junit}, shards...)...)
		Expect(merged.code).To(Equal(exitOK), merged.String())
		Expect(merged.stdout).To(Equal(whole.stdout))
		doc := readJUnit(junit)
		Expect(doc.Tests).To(Equal(67), "the merged run's 60 scenario runs, 6 thresholds and the gate, as testbed run --junit writes them")
		Expect(doc.Suites[len(doc.Suites)-1].Name).To(Equal("regression gate"))
	})

	Describe("merge refuses what is not every shard of one run", func() {
		var dir string
		shard := func(s string, suite ...string) string {
			args := append([]string{"run", "--root", "../..", "--shard", s, "--json", "--out", "", "--quiet"}, suite...)
			r := testbed(args...)
			Expect(r.code).To(Equal(exitOK), r.String())
			path := filepath.Join(dir, strings.ReplaceAll(s, "/", "of")+strings.Join(suite, "")+".json")
			Expect(os.WriteFile(path, []byte(r.stdout), 0o644)).To(Succeed())
			return path
		}
		BeforeEach(func() { dir = GinkgoT().TempDir() })

		DescribeTable("exits 2, saying what is wrong",
			func(parts func() []string, want string) {
				r := testbed(append([]string{"report", "merge", "--root", "../..", "--suite", "odbchat"}, parts()...)...)
				Expect(r.code).To(Equal(exitUsage), r.String())
				Expect(r.stdout).To(BeEmpty())
				Expect(r.stderr).To(ContainSubstring(want))
			},
			Entry("a missing shard", func() []string {
				return []string{shard("1/4", "--suite", "odbchat"), shard("2/4", "--suite", "odbchat"), shard("4/4", "--suite", "odbchat")}
			}, "shards 3/4 are missing: the merge would cover 45 of 60 scenario × variant pairs"),
			Entry("a shard given twice", func() []string {
				one := shard("1/2", "--suite", "odbchat")
				return []string{one, one, shard("2/2", "--suite", "odbchat")}
			}, "shard 1/2 is given twice"),
			Entry("shards of different runs", func() []string {
				return []string{shard("1/2", "--suite", "odbchat"), shard("2/3", "--suite", "odbchat")}
			}, "they are not shards of one run"),
			Entry("a whole run", func() []string {
				r := testbed("run", "--root", "../..", "--suite", "odbchat", "--json", "--out", "", "--quiet")
				path := filepath.Join(dir, "whole.json")
				Expect(os.WriteFile(path, []byte(r.stdout), 0o644)).To(Succeed())
				return []string{path}
			}, "is not a shard report"),
		)
	})

	DescribeTable("reject a malformed shard",
		func(shard string) {
			r := testbed("run", "--root", "../..", "--suite", "odbchat", "--shard", shard, "--quiet", "--out", "")
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(ContainSubstring("want i/n with 1 ≤ i ≤ n"))
		},
		Entry("zero", "0/2"),
		Entry("past the count", "3/2"),
		Entry("not a fraction", "half"),
		Entry("trailing text", "1/2x"),
	)
})
