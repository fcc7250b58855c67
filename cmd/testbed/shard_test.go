package main

import (
	"os"
	"path/filepath"

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

		merged := testbed(append([]string{"report", "merge", "--root", "../..", "--suite", "odbchat"}, shards...)...)
		Expect(merged.code).To(Equal(exitOK), merged.String())
		Expect(merged.stdout).To(Equal(whole.stdout))
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
