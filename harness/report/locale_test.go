package report_test

import (
	"os"
	"os/exec"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/report"
)

// tablewriter decides, when the process starts, whether East Asian
// ambiguous characters (—, ✓, ═) are wide, from RUNEWIDTH_EASTASIAN and the
// locale; the text report must not depend on it.
var _ = Describe("the text report under an East Asian locale", func() {
	DescribeTable("is the same bytes as here",
		func(env ...string) {
			want := render(report.WriteText, fixture())
			cmd := exec.Command(os.Args[0], "-test.run=^TestReport$")
			cmd.Env = append(os.Environ(), append(env, writeTextEnv+"=1")...)
			got, err := cmd.Output()
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)))
		},
		Entry("RUNEWIDTH_EASTASIAN=1", "RUNEWIDTH_EASTASIAN=1"),
		Entry("a Chinese locale", "LANG=zh_CN.UTF-8", "LC_ALL=zh_CN.UTF-8", "RUNEWIDTH_EASTASIAN="),
		Entry("a Japanese locale, legacy terminal", "LANG=ja_JP.UTF-8", "LC_ALL=ja_JP.UTF-8", "TERM=xterm", "RUNEWIDTH_EASTASIAN="),
	)
})
