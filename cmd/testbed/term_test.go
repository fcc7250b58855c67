package main

import (
	"bytes"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = DescribeTable("showProgress: a bar only on a terminal, without --quiet, outside CI",
	func(terminal, quiet bool, ci string, want bool) {
		Expect(showProgress(terminal, quiet, ci)).To(Equal(want))
	},
	Entry("a terminal", true, false, "", true),
	Entry("CI=false", true, false, "false", true),
	Entry("CI=0", true, false, "0", true),
	Entry("stderr not a terminal", false, false, "", false),
	Entry("--quiet", true, true, "", false),
	Entry("CI=true", true, false, "true", false),
	Entry("CI=1", true, false, "1", false),
	Entry("CI=yes", true, false, "yes", false),
)

var _ = DescribeTable("useColour: colour only on a terminal, without --no-color or NO_COLOR",
	func(terminal, flag bool, env string, want bool) {
		Expect(useColour(terminal, flag, env)).To(Equal(want))
	},
	Entry("a terminal", true, false, "", true),
	Entry("stdout not a terminal", false, false, "", false),
	Entry("--no-color", true, true, "", false),
	Entry("NO_COLOR=1", true, false, "1", false),
	Entry("NO_COLOR=false (any value)", true, false, "false", false),
)

var _ = Describe("the progress bar", func() {
	It("counts the runs, shows the time left and clears itself at the end", func() {
		var buf bytes.Buffer
		bar := newBar(&buf, 0)
		for i := 1; i <= 4; i++ {
			bar(i, 4, "odbchat", "legacy", "ac1")
			if i == 2 {
				Expect(buf.String()).To(ContainSubstring("(2/4, "))
				Expect(buf.String()).To(MatchRegexp(`\[\d+s:\d+s\]`), "elapsed:left")
				Expect(buf.String()).To(ContainSubstring("odbchat/legacy/ac1"))
			}
		}
		Expect(buf.String()).To(ContainSubstring("(3/4, "))
		out := buf.String()
		Expect(out[strings.LastIndex(out, "(3/4, "):]).To(ContainSubstring("\033[2K"), "the last run clears the bar")
	})

	It("is not drawn when stderr is not a terminal", func() {
		Expect(progress(selection{}, &bytes.Buffer{})).To(BeNil())
	})
})

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

var _ = Describe("paint", func() {
	text := "ac1  AC-1  PASS  tool:x\nac2  AC-1  FAIL  ✗ (want tool:y)\nac3  STALE\nFAIL: 1 of 3 scenarios failed\n"

	It("colours verdict words, marks and the verdict line, adding no visible text", func() {
		got := paint(text)
		Expect(got).To(ContainSubstring("\x1b[32mPASS\x1b[0m"))
		Expect(got).To(ContainSubstring("\x1b[31mFAIL\x1b[0m"))
		Expect(got).To(ContainSubstring("\x1b[31m✗\x1b[0m"))
		Expect(got).To(ContainSubstring("\x1b[33mSTALE\x1b[0m"))
		Expect(got).To(ContainSubstring("\x1b[31;1mFAIL: 1 of 3 scenarios failed\x1b[0;22m\n"))
		Expect(ansi.ReplaceAllString(got, "")).To(Equal(text))
	})

	It("is not applied when stdout is not a terminal", func() {
		r := testbed("run", "--root", "../..", "--suite", "odbchat", "--scenario", "ac1-taiwan-sst", "--out", "", "--no-baseline")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).NotTo(ContainSubstring("\x1b["))
		Expect(strings.Count(r.stdout, "PASS")).To(BeNumerically(">", 0))
	})
})
