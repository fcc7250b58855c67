package main

import (
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// readmeScreen returns the lines of the README's sample of the make run
// screen: the code block after the sentence that introduces it.
func readmeScreen() []string {
	GinkgoHelper()
	text := mustRead(filepath.Join(repoRoot, "README.md"))
	_, after, ok := strings.Cut(text, "`make run` prints one screen:\n\n```\n")
	Expect(ok).To(BeTrue(), "README.md introduces its sample screen with \"`make run` prints one screen:\" and a code block")
	block, _, ok := strings.Cut(after, "\n```")
	Expect(ok).To(BeTrue(), "the sample's code block ends")
	return strings.Split(block, "\n")
}

var _ = Describe("the README's sample of the make run screen", func() {
	It("is what make run prints, figures included: every line but … appears in the output, in order", func() {
		sample := readmeScreen()
		r := testbed("run", "--root", repoRoot, "--out", "", "--no-color")
		Expect(r.code).To(Equal(exitOK), r.String())
		// make run runs in the project root: paths are printed from there.
		printed := strings.Split(strings.ReplaceAll(r.stdout, repoRoot+"/", ""), "\n")
		at, shown := 0, 0
		for _, line := range sample {
			if strings.TrimSpace(line) == "…" {
				continue
			}
			found := false
			for ; at < len(printed); at++ {
				if printed[at] == line {
					found = true
					at++
					break
				}
			}
			Expect(found).To(BeTrue(), "README.md's sample line %q is not printed by make run (or not in this order); make run printed:\n%s", line, r.stdout)
			shown++
		}
		Expect(shown).To(BeNumerically(">=", 5), "the sample shows the header, some rows, the hermeticity line and the verdict")
		Expect(sample[len(sample)-1]).To(HavePrefix("PASS: "), "the sample ends on the verdict")
	})
})
