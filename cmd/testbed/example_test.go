package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// exampleRoot is the TypeScript example's own project root.
const exampleRoot = repoRoot + "/examples/weather-ts"

// exampleProject copies the example (its node_modules linked, not copied)
// into a fresh temporary folder and returns it, or skips the spec when
// Node or the example's packages are missing.
func exampleProject() string {
	GinkgoHelper()
	if _, err := exec.LookPath("node"); err != nil {
		Skip("node is not installed: the example agent runs on Node (make examples installs its packages; .ci/run installs Node)")
	}
	modules, err := filepath.Abs(filepath.Join(exampleRoot, "node_modules"))
	Expect(err).NotTo(HaveOccurred())
	if _, err := os.Stat(filepath.Join(modules, "openai")); err != nil {
		Skip("examples/weather-ts/node_modules is missing: run make examples (npm ci --prefix examples/weather-ts)")
	}
	root := GinkgoT().TempDir()
	for _, name := range []string{"agent.js", "package.json", "scenarios", "cassettes", "fixtures", "reports"} {
		src := filepath.Join(exampleRoot, name)
		info, err := os.Stat(src)
		Expect(err).NotTo(HaveOccurred())
		if info.IsDir() {
			Expect(os.CopyFS(filepath.Join(root, name), os.DirFS(src))).To(Succeed())
		} else {
			data, err := os.ReadFile(src)
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(root, name), data, 0o644)).To(Succeed())
		}
	}
	Expect(os.Symlink(modules, filepath.Join(root, "node_modules"))).To(Succeed())
	return root
}

var _ = Describe("the TypeScript example (examples/weather-ts)", Label("examples"), func() {
	It("replays through its real openai SDK, labelled as the generic plumbing stand-in", func() {
		root := exampleProject()
		r := testbed("run", "--root", root, "--json", "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
		var rep report.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed())
		Expect(rep.Suites).To(HaveLen(1))
		v := rep.Suites[0].Variants[0]
		Expect(v.Provenance).To(Equal("replayed from generic plumbing stand-in gpt-4.1-mini"))
		Expect(v.Scenarios).To(HaveLen(6))
		for _, sc := range v.Scenarios {
			Expect(sc.Verdict).To(Equal(report.VerdictPass), sc.ID)
			Expect(sc.Unplayed).To(BeZero(), sc.ID)
		}
	})

	It("goes stale (exit 3) when the agent's prompt changes", func() {
		root := exampleProject()
		replace(filepath.Join(root, "agent.js"), "You are a concise weather assistant.", "You are a terse weather assistant.", 1)
		r := testbed("run", "--root", root, "--out", "", "--quiet", "--no-baseline")
		Expect(r.code).To(Equal(exitStale), r.String())
		Expect(r.stdout + r.stderr).To(ContainSubstring("/messages/0/content"))
		Expect(r.stdout + r.stderr).To(ContainSubstring("testbed record --suite weather-ts"))
	})
})
