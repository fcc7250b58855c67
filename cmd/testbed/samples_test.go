package main

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// sampledProject is project() with the odbchat-sampled suite and its
// cassettes, which declare samples: 5.
func sampledProject() string {
	GinkgoHelper()
	root := project()
	Expect(os.CopyFS(filepath.Join(root, "cassettes", "odbchat-sampled"), os.DirFS(filepath.Join(repoRoot, "cassettes", "odbchat-sampled")))).To(Succeed())
	data, err := os.ReadFile(filepath.Join(repoRoot, "scenarios", "odbchat-sampled.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(root, "scenarios", "odbchat-sampled.yaml"), data, 0o644)).To(Succeed())
	return root
}

var _ = Describe("samples declared by the suite", func() {
	It("are kept by a recording not told otherwise", func() {
		root := sampledProject()
		dir := filepath.Join(root, "cassettes", "odbchat-sampled", "single-pass")
		before := yamlFiles(dir)
		r := testbed("record", "--root", root, "--suite", "odbchat-sampled", "--variant", "single-pass", "--scenario", "strait-yesterday-en")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(yamlFiles(dir)).To(HaveLen(len(before)))
		Expect(filepath.Join(dir, "strait-yesterday-en.sample5.yaml")).To(BeARegularFile())
	})

	It("fail the gate when one is gone, naming it", func() {
		root := sampledProject()
		gone := filepath.Join(root, "cassettes", "odbchat-sampled", "single-pass", "strait-yesterday-en.sample4.yaml")
		Expect(os.Remove(gone)).To(Succeed())
		r := testbed("run", "--root", root, "--suite", "odbchat-sampled", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout).To(ContainSubstring(gone))
	})

	It("bound --repeat", func() {
		r := testbed("record", "--root", project(), "--repeat", "100000000")
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(Equal("testbed: --repeat 100000000: want 1 to 100 samples\n"))
	})

	It("are said when --repeat records another number", func() {
		root := sampledProject()
		r := testbed("record", "--root", root, "--suite", "odbchat-sampled", "--variant", "single-pass", "--scenario", "strait-yesterday-en", "--repeat", "2")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(strings.Split(r.stderr, "\n")[0]).To(Equal("recording 2 samples per scenario of odbchat-sampled, which declares samples: 5; the earlier cassettes of the others are kept, and replay runs them; set samples: 2 in " +
			filepath.Join(root, "scenarios", "odbchat-sampled.yaml") + " to drop them"))
	})
})
