package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a streaming variant", Label("streaming"), func() {
	DescribeTable("re-records its streams against the stand-in byte for byte, event offsets included",
		func(suite string) {
			root := projectOf(suite, suite)
			committed := yamlFiles(filepath.Join(root, "cassettes", suite, "streaming"))
			Expect(committed).NotTo(BeEmpty())
			r := testbed("record", "--root", root, "--suite", suite, "--variant", "streaming", "--quiet")
			Expect(r.code).To(Equal(0), r.String())
			rerecorded := yamlFiles(filepath.Join(root, "cassettes", suite, "streaming"))
			Expect(rerecorded).To(HaveLen(len(committed)))
			streams, agents := 0, 0
			for name, data := range committed {
				if !strings.HasSuffix(name, ".judge.yaml") {
					agents++ // a grader's calls do not stream
				}
				Expect(string(rerecorded[name])).To(Equal(string(data)), name)
				if strings.Contains(string(data), "text/event-stream") {
					Expect(string(data)).To(ContainSubstring("X-Testbed-Stream-Offsets:"), name)
					streams++
				}
			}
			Expect(streams).To(BeNumerically(">=", agents-2), "every scenario but the ones whose only call fails streams")
		},
		Entry("OpenAI Chat Completions chunks (climate)", "climate"),
		Entry("Gemini streamGenerateContent (kura)", "kura"),
		Entry("Anthropic Messages events (cba)", "cba"),
	)

	It("fails its ttft_p95 threshold with a readable line once a slowed first token is re-recorded", func() {
		root := projectOf("kura", "kura")
		r := testbed("run", "--tables", "--root", root, "--suite", "kura", "--no-baseline")
		Expect(r.code).To(Equal(0), r.String())
		Expect(r.stdout).To(MatchRegexp(`streaming\s+ttft_p95 < 1500ms\s+[0-9.]+\s+1500\s+✓`))

		suite := filepath.Join(root, "scenarios", "kura.yaml")
		data, err := os.ReadFile(suite)
		Expect(err).NotTo(HaveOccurred())
		// Every model call's first token comes standin.SlowFirstToken late.
		slowed := regexp.MustCompile(`(?m)^thresholds:`).ReplaceAll(data, []byte("faults: {rate: 100%, seed: 1, model: [slow_first_token]}\nthresholds:"))
		Expect(os.WriteFile(suite, slowed, 0o644)).To(Succeed())
		r = testbed("record", "--root", root, "--suite", "kura", "--variant", "streaming", "--quiet")
		Expect(r.code).To(Equal(exitRecordedFailing), r.String(), "recorded, but its expectations fail")

		r = testbed("run", "--tables", "--root", root, "--suite", "kura", "--no-baseline")
		Expect(r.code).To(Equal(1), r.String())
		Expect(r.stdout).To(MatchRegexp(`streaming\s+ttft_p95 < 1500ms\s+2[0-9]{3}\.[0-9]\s+1500\s+✗\s+ttft_p95 = 2[0-9]{3}\.[0-9] ms, want < 1500 ms`))
		Expect(r.stdout).To(MatchRegexp(`streaming\s+goodput >= 0.95\s+0\.0[0-9]\s+0.95\s+✗\s+goodput = 0\.0[0-9]+, want >= 0.95`))
	})
})
