package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// docCommand is a command the README or a docs/ page shows: in a code
// block or in backticks.
type docCommand struct {
	at    string // path:line
	line  string // the command, without a prompt, comment or redirection
	block bool   // in a code block, not named in a sentence
	to    string // the file its stdout is redirected to (> FILE), if any
}

// docCommands are every testbed and make command in README.md and
// docs/*.md, a command line split at ; and &&.
func docCommands() []docCommand {
	GinkgoHelper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	Expect(err).NotTo(HaveOccurred())
	pages = append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
	inline := regexp.MustCompile("`((?:\\./bin/)?testbed [^`]+|make [a-z][^`]*)`")
	command := regexp.MustCompile(`^(?:\$ )?(?:[A-Z_]+=\S+ )*((?:\./bin/)?testbed\b.*|make [a-z].*)$`)
	var out []docCommand
	add := func(at, text string, block bool) {
		text, _, _ = strings.Cut(text, "  #")
		for _, part := range regexp.MustCompile(`;|&&`).Split(text, -1) {
			part, to, _ := strings.Cut(strings.TrimSpace(part), " > ")
			part = strings.TrimPrefix(strings.TrimSpace(part), "./bin/")
			if strings.HasPrefix(part, "testbed ") || strings.HasPrefix(part, "make ") {
				out = append(out, docCommand{at: at, line: part, block: block, to: strings.TrimSpace(to)})
			}
		}
	}
	for _, page := range pages {
		rel, _ := filepath.Rel(repoRoot, page)
		block := false
		for i, line := range strings.Split(mustRead(page), "\n") {
			at := rel + ":" + strconv.Itoa(i+1)
			if strings.HasPrefix(line, "```") {
				block = !block
				continue
			}
			if block {
				if m := command.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
					add(at, m[1], true)
				}
				continue
			}
			for _, m := range inline.FindAllStringSubmatch(line, -1) {
				add(at, m[1], false)
			}
		}
	}
	return out
}

// subcommands are the commands of two words.
var subcommands = []string{"baseline bless", "report merge", "cassettes check", "serve odbchat"}

// split returns a testbed command's words: the command (one or two words)
// and the rest.
func split(line string) (string, []string) {
	words := strings.Fields(strings.TrimPrefix(line, "testbed "))
	if len(words) > 1 && slices.Contains(subcommands, words[0]+" "+words[1]) {
		return words[0] + " " + words[1], words[2:]
	}
	if len(words) == 0 {
		return "", nil
	}
	return words[0], words[1:]
}

// flagsOf are the flags a command's --help lists, and of them those that
// take a value.
func flagsOf(cmd string) (names, valued []string) {
	GinkgoHelper()
	help := testbed(append(strings.Fields(cmd), "--help")...)
	Expect(help.code).To(Equal(exitOK), "testbed %s --help: %s", cmd, help)
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)( \S+)?$`).FindAllStringSubmatch(help.stderr+help.stdout, -1) {
		names = append(names, m[1])
		if m[2] != "" {
			valued = append(valued, m[1])
		}
	}
	return names, valued
}

// mention says whether a command is only named: in a sentence with no
// argument but flags (`testbed compare --markdown`), or ending in a flag
// that takes a value and giving none (`testbed run --junit`).
func mention(c docCommand, cmd string, rest []string) bool {
	GinkgoHelper()
	if len(rest) == 0 {
		return false
	}
	if !c.block && !slices.ContainsFunc(rest, func(w string) bool { return !strings.HasPrefix(w, "--") }) {
		return true
	}
	_, valued := flagsOf(cmd)
	last, ok := strings.CutPrefix(rest[len(rest)-1], "--")
	return ok && slices.Contains(valued, last)
}

// placeholder says whether a command is a synopsis rather than one to run:
// it has optional parts, alternatives or names to fill in.
func placeholder(line string) bool {
	return regexp.MustCompile(`[\[\]<>|…*]|\b[A-Z][A-Z_.]*\b|\bi/n\b|\bP\b`).MatchString(line)
}

// runnable are the commands a spec runs whole (each distinct one once), in a copy of the project:
// the rest serve until stopped, or need a provider's key. Of these, the
// bare ones need nothing more; the others, named bare in a sentence, are
// only names.
var (
	runnable = []string{"run", "show", "list", "lint", "init", "compare", "baseline bless", "report", "report merge", "cassettes check"}
	bare     = []string{"run", "list", "lint", "baseline bless", "cassettes check"}
)

var _ = Describe("the commands the README and docs/ show", Label("docs"), func() {
	commands := docCommands()

	It("finds the commands (not an empty walk)", func() {
		Expect(len(commands)).To(BeNumerically(">=", 20))
	})

	It("names only make targets the Makefile has", func() {
		makefile := mustRead(filepath.Join(repoRoot, "Makefile"))
		for _, c := range commands {
			if target, ok := strings.CutPrefix(c.line, "make "); ok {
				target = strings.Fields(target)[0]
				Expect(makefile).To(MatchRegexp(`(?m)^`+regexp.QuoteMeta(target)+`:`), "%s: make %s", c.at, target)
			}
		}
	})

	It("names only testbed commands and flags that exist", func() { namesOnlyKnownFlags(commands) })

	It("runs every whole command, in a copy of the project, and it succeeds", func() {
		root := GinkgoT().TempDir()
		for _, dir := range []string{"cassettes", "fixtures", "scenarios", "reports"} {
			Expect(os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, dir)))).To(Succeed())
		}
		Expect(runWhole(root, commands, false)).To(BeNumerically(">=", 5), "the whole commands, not none")
	})
})

// namesOnlyKnownFlags checks that each testbed command of commands is a
// command whose --help lists every flag the command gives.
func namesOnlyKnownFlags(commands []docCommand) {
	GinkgoHelper()
	known := map[string][]string{}
	for _, c := range commands {
		if !strings.HasPrefix(c.line, "testbed ") {
			continue
		}
		cmd, rest := split(c.line)
		if cmd == "--version" {
			Expect(testbed("--version").code).To(Equal(exitOK))
			continue
		}
		if _, ok := known[cmd]; !ok {
			known[cmd], _ = flagsOf(cmd)
		}
		for _, w := range rest {
			name, ok := strings.CutPrefix(strings.Trim(w, "[]"), "--")
			if !ok || name == "" {
				continue // not a flag, or -- (the end of flags)
			}
			name, _, _ = strings.Cut(name, "=")
			Expect(known[cmd]).To(ContainElement(name), "%s: %s: no flag --%s", c.at, c.line, name)
		}
	}
}

// runWhole runs, in the project copy at root, each whole command of
// commands (each distinct one once, its stdout written to the file it is
// redirected to), expects each to succeed, and returns how many ran. With
// freshInit, an init command runs in a new empty folder of its own, so that
// the suite it writes is not in the copy the next commands replay.
func runWhole(root string, commands []docCommand, freshInit bool) int {
	GinkgoHelper()
	here, err := os.Getwd()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.Chdir, here)
	ran := map[string]bool{}
	for _, c := range commands {
		if !strings.HasPrefix(c.line, "testbed ") || placeholder(c.line) || ran[c.line] {
			continue
		}
		cmd, rest := split(c.line)
		if !slices.Contains(runnable, cmd) || len(rest) == 0 && !slices.Contains(bare, cmd) || mention(c, cmd, rest) {
			continue
		}
		dir := root
		if freshInit && cmd == "init" {
			dir = filepath.Join(GinkgoT().TempDir(), "p")
			Expect(os.Mkdir(dir, 0o755)).To(Succeed())
		}
		Expect(os.Chdir(dir)).To(Succeed())
		start := time.Now()
		r := testbed(strings.Fields(strings.TrimPrefix(c.line, "testbed "))...)
		GinkgoWriter.Printf("%s: %s (%s)\n", c.at, c.line, time.Since(start))
		Expect(r.code).To(Equal(exitOK), "%s: %s\n%s", c.at, c.line, r)
		if c.to != "" {
			Expect(os.WriteFile(c.to, []byte(r.stdout), 0o644)).To(Succeed())
		}
		ran[c.line] = true
	}
	return len(ran)
}
