package main

import (
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("testbed run -j", func() {
	It("writes the same report files byte for byte at -j 1 and -j 4, for built-in and outside agents", func() {
		root := project()
		odbchatAs(root, "odbchat-ext", fmt.Sprintf("  command: [%s, agent, odbchat, --root, %s]\n", buildTestbed(), root))
		written := map[string]map[string]string{}
		for _, j := range []string{"1", "4"} {
			out := filepath.Join(GinkgoT().TempDir(), "reports")
			r := testbed("run", "--root", root, "-j", j, "--out", out, "--baseline", "", "--quiet")
			Expect(r.code).To(Equal(0), r.String())
			Expect(r.stdout).To(ContainSubstring("odbchat-ext/single-pass: the agent's own processing"), "the outside agent ran")
			entries, err := os.ReadDir(out)
			Expect(err).NotTo(HaveOccurred())
			written[j] = map[string]string{}
			for _, e := range entries {
				written[j][e.Name()] = mustRead(filepath.Join(out, e.Name()))
			}
		}
		Expect(written["1"]).To(HaveKey("latest.json"))
		Expect(written["1"]["latest.json"]).To(ContainSubstring(`"name": "odbchat-ext"`))
		Expect(written["4"]).To(Equal(written["1"]))

		By("taking --parallel as the long name")
		r := testbed("run", "--root", root, "--suite", "odbchat", "--parallel", "2", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(0), r.String())
	})

	It("refuses a negative number of runs at a time", func() {
		r := testbed("run", "--root", project(), "-j", "-1", "--out", "", "--baseline", "")
		Expect(r.code).To(Equal(2), r.String())
		Expect(r.stderr).To(ContainSubstring("--parallel -1: want a number of scenario runs at a time, 1 or more"))
	})
})
