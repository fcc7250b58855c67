package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("compare --html", func() {
	It("writes the comparison as a page, steps side by side, beside the text on stdout", func() {
		page := filepath.Join(GinkgoT().TempDir(), "compare.html")
		r := testbed("compare", "--root", repoRoot, "--suite", "climate", "--base", "untrimmed", "--head", "trimmed",
			"--scenario", "city-new-york-one-year", "--html", page)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(ContainSubstring("climate: untrimmed → trimmed (1 scenarios both ran)"))
		Expect(r.stderr).To(ContainSubstring("wrote " + page))
		html, err := os.ReadFile(page)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(html)).To(ContainSubstring("<h2>climate: untrimmed → trimmed (1 scenarios both ran)</h2>"))
		Expect(string(html)).To(ContainSubstring(`<details class="scenario" id="climate-untrimmed-trimmed-city-new-york-one-year">`))
		Expect(string(html)).To(MatchRegexp(`<tr class="step-[a-z]+"><td class="num">1</td>\s*<td[^>]*><b>model call`))
		Expect(string(html)).To(ContainSubstring("<b>tool city_inventory_search</b>"))
	})
})
