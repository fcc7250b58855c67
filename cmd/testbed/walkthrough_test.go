package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The README's walkthrough of a prompt-only variant, step by step: a prompt
// file under scenarios/prompts/, a few lines of YAML, a recording, a compare.
var _ = Describe("the README's prompt-only variant walkthrough", func() {
	It("adds, records and compares a variant without touching Go", func() {
		root := project()
		prompt, err := os.ReadFile("testdata/odbchat-terse-router.md")
		Expect(err).NotTo(HaveOccurred())
		Expect(os.MkdirAll(filepath.Join(root, "scenarios", "prompts"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "scenarios", "prompts", "odbchat-terse-router.md"), prompt, 0o644)).To(Succeed())
		replace(filepath.Join(root, "scenarios", "odbchat.yaml"), "    config: {router: single-pass}\n", `    config: {router: single-pass}
  terse-router:
    description: single-pass with a shorter router prompt
    config: {router: single-pass, router_prompt: prompts/odbchat-terse-router.md}
`, 1)

		// The terse prompt states no rule for definitions ("explain" for the
		// rest), so the stand-in, which reads the routes a prompt states,
		// sends a definition question about SST around Taiwan to the data
		// route: the recording says one scenario fails.
		rec := testbed("record", "--root", root, "--suite", "odbchat", "--variant", "terse-router", "--quiet")
		Expect(rec.code).To(Equal(exitRecordedFailing), rec.String())
		Expect(rec.stdout).To(ContainSubstring("explain-kuroshio-zh turn 1 route: want explain, got tool:ghrsst.bbox_mean"))
		Expect(filepath.Join(root, "cassettes", "odbchat", "terse-router", "ac1-taiwan-sst.yaml")).To(BeARegularFile())

		cmp := testbed("compare", "--root", root, "--suite", "odbchat", "--base", "single-pass", "--head", "terse-router")
		Expect(cmp.code).To(Equal(exitOK), cmp.String())
		Expect(cmp.stdout).To(ContainSubstring("odbchat: single-pass → terse-router (30 scenarios both ran)"))
		Expect(cmp.stdout).To(MatchRegexp(`routing accuracy \(%\)\s+100\.0\s+96\.7\s+-3\.3`))
		Expect(cmp.stdout).To(MatchRegexp(`input tokens \(mean\)\s+1110\s+970\s+-140 \(-12\.6%\)`))
	})
})
