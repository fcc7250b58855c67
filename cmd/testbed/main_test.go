package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"strings"
)

var _ = Describe("testbed usage", func() {
	It("prints the commands and exits 2 without one", func() {
		r := testbed()
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stdout).To(ContainSubstring("Usage:\n  testbed <command> [flags]"))
		for _, cmd := range []string{"run", "record", "list", "cassettes check"} {
			Expect(r.stdout).To(MatchRegexp(`(?m)^  ` + cmd + `\s{2,}\S`))
		}
	})

	DescribeTable("prints the usage and exits 0 when asked",
		func(arg string) {
			r := testbed(arg)
			Expect(r.code).To(Equal(exitOK), r.String())
			Expect(r.stdout).To(ContainSubstring("testbed <command> --help"))
		},
		Entry("--help", "--help"),
		Entry("-h", "-h"),
		Entry("help", "help"),
	)

	DescribeTable("--help on every command shows its flags and examples and exits 0",
		func(command string, args []string, flags []string) {
			r := testbed(args...)
			Expect(r.code).To(Equal(exitOK), r.String())
			out := r.stdout + r.stderr
			Expect(out).To(HavePrefix("Usage: testbed " + command + " [flags]\n"))
			Expect(out).To(ContainSubstring("\nExamples:\n  testbed " + command))
			for _, f := range flags {
				Expect(out).To(MatchRegexp(`\n  -` + f + `[ \n]`))
			}
		},
		Entry("run", "run", []string{"run", "--help"}, []string{"root", "suite", "variant", "scenario", "json", "out"}),
		Entry("record", "record", []string{"record", "-h"}, []string{"root", "suite", "provider", "model", "live"}),
		Entry("list", "list", []string{"list", "--help"}, []string{"root", "suite", "json"}),
		Entry("cassettes check", "cassettes check", []string{"cassettes", "check", "--help"}, []string{"dir", "json"}),
	)

	DescribeTable("--help on a command that takes files prints its usage once and exits 0",
		func(args ...string) {
			r := testbed(args...)
			Expect(r.code).To(Equal(exitOK), r.String())
			Expect(strings.Count(r.stderr, "\nFlags:\n")).To(Equal(1), r.stderr)
		},
		Entry("compare", "compare", "--help"),
		Entry("report", "report", "--help"),
		Entry("report merge", "report", "merge", "--help"),
	)

	It("says what is wrong in one last line, not above the whole help", func() {
		r := testbed("run", "--nope")
		Expect(r.stderr).To(Equal("testbed: flag provided but not defined: -nope (run 'testbed run --help')\n"))
	})

	It("prints its version", func() {
		r := testbed("--version")
		Expect(r.code).To(Equal(exitOK))
		Expect(r.stdout).To(MatchRegexp(`^testbed \S+.* go1\.\d+`))
	})

	DescribeTable("exits 2 on bad usage and says what is wrong",
		func(args []string, want string) {
			r := testbed(args...)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(want))
		},
		Entry("an unknown command", []string{"frobnicate"}, `unknown command "frobnicate" (run 'testbed --help')`),
		Entry("a misspelt command", []string{"rnu"}, `unknown command "rnu"; did you mean "run"? (run 'testbed --help')`),
		Entry("a misspelt flag", []string{"run", "--tabels"}, "flag provided but not defined: -tabels; did you mean --tables? (run 'testbed run --help')"),
		Entry("cassettes without check", []string{"cassettes"}, "usage: testbed cassettes check"),
		Entry("cassettes with another verb", []string{"cassettes", "clean"}, "usage: testbed cassettes check"),
		Entry("run with an unknown flag", []string{"run", "--nope"}, "flag provided but not defined: -nope"),
		Entry("record with an unknown flag", []string{"record", "--provider=openai", "--verbosity"}, "flag provided but not defined: -verbosity"),
		Entry("list with an unknown flag", []string{"list", "--out", "x"}, "flag provided but not defined: -out"),
		Entry("cassettes check with an unknown flag", []string{"cassettes", "check", "--suite", "odbchat"}, "flag provided but not defined: -suite"),
		Entry("a flag without its value", []string{"run", "--suite"}, "flag needs an argument: -suite"),
		Entry("a stray argument", []string{"run", "odbchat"}, `unexpected argument "odbchat"`),
	)
})
