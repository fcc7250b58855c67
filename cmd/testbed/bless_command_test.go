package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The command a gate's failure names must bless what was gated: a project
// run with --root from another folder is blessed there, not in the working
// folder (where the plain "testbed baseline bless" would look for suites).
var _ = Describe("the bless command a failing gate prints", func() {
	It("names the run's --root and --baseline, and run as printed clears the gate", func() {
		root := project()
		baseline := filepath.Join("reports", "blessed.json")
		bless := testbed("baseline", "bless", "--root", root, "--out", baseline, "--quiet")
		Expect(bless.code).To(Equal(exitOK), bless.String())

		By("blessing lower input tokens than the replay has")
		path := filepath.Join(root, baseline)
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		var doc map[string]any
		Expect(json.Unmarshal(data, &doc)).To(Succeed())
		summary := doc["suites"].([]any)[0].(map[string]any)["variants"].([]any)[0].(map[string]any)["summary"].(map[string]any)
		summary["input_tokens_mean"] = summary["input_tokens_mean"].(float64) / 2
		data, err = json.Marshal(doc)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, data, 0o644)).To(Succeed())

		r := testbed("run", "--root", root, "--baseline", baseline, "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitFailed), r.String())
		_, printed, ok := strings.Cut(r.stderr, "if they are intended, run: ")
		Expect(ok).To(BeTrue(), r.String())
		printed, _, _ = strings.Cut(printed, "\n")
		Expect(printed).To(Equal("testbed baseline bless --out " + baseline + " --root " + root))

		By("running the printed command, then the run again")
		again := testbed(strings.Fields(strings.TrimPrefix(printed, "testbed "))...)
		Expect(again.code).To(Equal(exitOK), again.String())
		r = testbed("run", "--root", root, "--baseline", baseline, "--out", "", "--quiet")
		Expect(r.code).To(Equal(exitOK), r.String())
	})
})
