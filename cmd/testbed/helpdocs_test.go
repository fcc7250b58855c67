package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// commandNames are the commands 'testbed --help' lists, subcommands as two
// words ("baseline bless"; "report --html" as "report").
func commandNames() []string {
	GinkgoHelper()
	help := testbed("--help")
	Expect(help.code).To(Equal(exitOK), help.String())
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z]+(?: [a-z]+)?)(?: --[a-z]+)?  +\S`).FindAllStringSubmatch(help.stdout+help.stderr, -1) {
		out = append(out, m[1])
	}
	return out
}

// helpExamples are the testbed commands each command's --help shows (its
// usage lines and examples), as docCommands at "testbed CMD --help".
func helpExamples(cmds []string) []docCommand {
	GinkgoHelper()
	line := regexp.MustCompile(`^\s+(?:[A-Z_]+=\S+ )*(testbed .*)$`)
	var out []docCommand
	for _, cmd := range cmds {
		help := testbed(append(strings.Fields(cmd), "--help")...)
		Expect(help.code).To(Equal(exitOK), "testbed %s --help: %s", cmd, help)
		for _, l := range strings.Split(help.stderr+help.stdout, "\n") {
			m := line.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			text, _, _ := strings.Cut(m[1], "  #")
			for _, part := range regexp.MustCompile(`;|&&`).Split(text, -1) {
				part, to, _ := strings.Cut(strings.TrimSpace(part), " > ")
				if strings.HasPrefix(part, "testbed ") {
					out = append(out, docCommand{at: "testbed " + cmd + " --help", line: part, block: true, to: strings.TrimSpace(to)})
				}
			}
		}
	}
	return out
}

// synopsis maps each command to the flags its lines in docs/cli.md's
// synopsis (the page's first code block) give, -j and --json alike
// without their dashes.
func synopsis() map[string][]string {
	GinkgoHelper()
	page := mustRead(filepath.Join(repoRoot, "docs", "cli.md"))
	_, rest, ok := strings.Cut(page, "```\n")
	Expect(ok).To(BeTrue(), "docs/cli.md has no synopsis block")
	block, _, ok := strings.Cut(rest, "```")
	Expect(ok).To(BeTrue(), "docs/cli.md's synopsis block does not end")
	flag := regexp.MustCompile(`(?:^|[\s\[|])--?([a-z][a-z0-9-]*)`)
	out := map[string][]string{}
	for _, l := range strings.Split(block, "\n") {
		for _, part := range strings.Split(l, ";") {
			part = strings.TrimSpace(part)
			if !strings.HasPrefix(part, "testbed ") {
				continue
			}
			cmd, _ := split(part)
			if _, ok := out[cmd]; !ok {
				out[cmd] = []string{} // the command is listed, even with no flag
			}
			for _, m := range flag.FindAllStringSubmatch(strings.TrimPrefix(part, "testbed "+cmd), -1) {
				if !slices.Contains(out[cmd], m[1]) {
					out[cmd] = append(out[cmd], m[1])
				}
			}
		}
	}
	return out
}

var _ = Describe("each command's --help and docs/cli.md", Label("docs"), func() {
	cmds := commandNames()

	It("finds the commands (not an empty walk)", func() {
		Expect(cmds).To(ContainElements("run", "record", "baseline bless", "report", "report merge", "cassettes check", "serve odbchat"))
	})

	It("give every command, and in its synopsis line every flag its --help lists, and no other", func() {
		syn := synopsis()
		for _, cmd := range cmds {
			Expect(syn).To(HaveKey(cmd), "docs/cli.md's synopsis has no line for testbed %s", cmd)
			names, _ := flagsOf(cmd)
			for _, name := range names {
				Expect(syn[cmd]).To(ContainElement(name), "testbed %s --help lists -%s; docs/cli.md's synopsis of testbed %s does not", cmd, name, cmd)
			}
			for _, name := range syn[cmd] {
				Expect(names).To(ContainElement(name), "docs/cli.md's synopsis of testbed %s gives -%s; its --help lists no such flag", cmd, name)
			}
		}
	})

	It("show in --help only commands and flags that exist", func() {
		examples := helpExamples(cmds)
		Expect(len(examples)).To(BeNumerically(">=", 40))
		for _, c := range examples {
			cmd, _ := split(c.line)
			Expect(append(cmds, "--version")).To(ContainElement(cmd), "%s: %s: no such command", c.at, c.line)
		}
		namesOnlyKnownFlags(examples)
	})

	It("show in --help examples that run, in a copy of the project, and succeed", func() {
		root := filepath.Join(GinkgoT().TempDir(), "p")
		for _, dir := range []string{"cassettes", "fixtures", "scenarios", "reports"} {
			Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, dir)))).To(Succeed())
		}
		// The price table a user would give --prices, at the path the
		// example names.
		table, err := os.ReadFile(filepath.Join(repoRoot, "harness", "cost", "prices", "prices.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.MkdirAll(filepath.Join(root, "prices"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(root, "prices", "litellm.json"), table, 0o644)).To(Succeed())
		// --otlp URL pushes to a collector, which the spec has not.
		examples := slices.DeleteFunc(helpExamples(cmds), func(c docCommand) bool { return strings.Contains(c.line, "--otlp http") })
		Expect(runWhole(root, examples, true)).To(BeNumerically(">=", 25), "the examples, not none")
	})
})
