package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// headingAnchors are the anchors GitHub gives the headings of the Markdown
// page text (outside code blocks): lower case, spaces as hyphens, other
// punctuation dropped.
func headingAnchors(text string) map[string]bool {
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	out := map[string]bool{}
	code := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if !code && strings.HasPrefix(line, "#") {
			h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
			out[strings.ReplaceAll(drop.ReplaceAllString(h, ""), " ", "-")] = true
		}
	}
	return out
}

var _ = It("links, in the README, docs/ and the examples' READMEs, only to files that exist and headings they have", Label("docs"), func() {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	Expect(err).NotTo(HaveOccurred())
	examples, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*", "README.md"))
	Expect(err).NotTo(HaveOccurred())
	pages = append(append(pages, examples...), filepath.Join(repoRoot, "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	var broken []string
	links := 0
	for _, page := range pages {
		rel, _ := filepath.Rel(repoRoot, page)
		for i, line := range strings.Split(mustRead(page), "\n") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(m[1], "#")
				target := page
				if file != "" {
					target = filepath.Join(filepath.Dir(page), file)
				}
				at := rel + ":" + strconv.Itoa(i+1) + ": " + m[1]
				if _, err := os.Stat(target); err != nil {
					broken = append(broken, at+" (no such file)")
				} else if anchor != "" && strings.HasSuffix(target, ".md") && !headingAnchors(mustRead(target))[anchor] {
					broken = append(broken, at+" (no such heading)")
				}
			}
		}
	}
	Expect(links).To(BeNumerically(">", 50), "the walk found the links")
	Expect(broken).To(BeEmpty())
})
