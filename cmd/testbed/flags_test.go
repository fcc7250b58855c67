package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("every command's flags", func() {
	// Each entry runs one command with its flags and positional arguments
	// in several orders, ROOT standing for a fresh folder each time: every
	// order must do the same, and the flags must have been read (want is in
	// the output, with the folder written ROOT).
	DescribeTable("work before, between and after positional arguments",
		func(want string, orders ...[]string) {
			var first result
			for i, args := range orders {
				root := filepath.Join(GinkgoT().TempDir(), "p")
				with := make([]string, len(args))
				for k, a := range args {
					with[k] = strings.ReplaceAll(a, "ROOT", root)
				}
				r := testbed(with...)
				r.stdout, r.stderr = strings.ReplaceAll(r.stdout, root, "ROOT"), strings.ReplaceAll(r.stderr, root, "ROOT")
				Expect(r.stdout+r.stderr).To(ContainSubstring(want), "%q\n%s", args, r)
				Expect(r.stderr).NotTo(ContainSubstring("unexpected argument"), "%q", args)
				if i == 0 {
					first = r
					continue
				}
				Expect(r).To(Equal(first), "%q against %q", args, orders[0])
			}
		},
		Entry("run", "ROOT/scenarios", []string{"run", "--quiet", "--root", "ROOT"}, []string{"run", "--root", "ROOT", "--quiet"}),
		Entry("record", "ROOT/scenarios", []string{"record", "--suite", "s", "--root", "ROOT"}, []string{"record", "--root", "ROOT", "--suite", "s"}),
		Entry("list", "ROOT/scenarios", []string{"list", "--json", "--root", "ROOT"}, []string{"list", "--root", "ROOT", "--json"}),
		Entry("lint", "ROOT/scenarios", []string{"lint", "--json", "--root", "ROOT"}, []string{"lint", "--root", "ROOT", "--json"}),
		Entry("cassettes check", "ROOT", []string{"cassettes", "check", "--json", "--dir", "ROOT"}, []string{"cassettes", "check", "--dir", "ROOT", "--json"}),
		Entry("baseline bless", "ROOT/scenarios", []string{"baseline", "bless", "--out", "ROOT/b.json", "--root", "ROOT"}, []string{"baseline", "bless", "--root", "ROOT", "--out", "ROOT/b.json"}),
		Entry("proxy", "ROOT/scenarios", []string{"proxy", "--suite", "a", "--variant", "b", "--scenario", "c", "--root", "ROOT"}, []string{"proxy", "--root", "ROOT", "--suite", "a", "--variant", "b", "--scenario", "c"}),
		Entry("standin", "ROOT/scenarios", []string{"standin", "--root", "ROOT"}, []string{"standin", "--root=ROOT"}),
		Entry("serve odbchat", "ROOT/scenarios", []string{"serve", "odbchat", "--suite", "a", "--variant", "b", "--root", "ROOT"}, []string{"serve", "odbchat", "--root", "ROOT", "--suite", "a", "--variant", "b"}),
		Entry("show", "ROOT/scenarios",
			[]string{"show", "--root", "ROOT", "a/b/c"}, []string{"show", "a/b/c", "--root", "ROOT"}, []string{"show", "--json", "a/b/c", "--root", "ROOT"}),
		Entry("init", "wrote ROOT/scenarios/s1.yaml",
			[]string{"init", "--root", "ROOT", "--agent", "cba", "s1"}, []string{"init", "s1", "--root", "ROOT", "--agent", "cba"}, []string{"init", "--agent", "cba", "s1", "--root", "ROOT"}),
		Entry("compare", "ROOT/a.json",
			[]string{"compare", "--markdown", "ROOT/a.json", "ROOT/b.json"}, []string{"compare", "ROOT/a.json", "--markdown", "ROOT/b.json"}, []string{"compare", "ROOT/a.json", "ROOT/b.json", "--markdown"}),
		Entry("report", "ROOT/r.json", []string{"report", "--html", "ROOT/o.html", "ROOT/r.json"}, []string{"report", "ROOT/r.json", "--html", "ROOT/o.html"}),
		Entry("report merge", "ROOT/a.json",
			[]string{"report", "merge", "--out", "ROOT/o.json", "ROOT/a.json", "ROOT/b.json"}, []string{"report", "merge", "ROOT/a.json", "--out", "ROOT/o.json", "ROOT/b.json"}),
		Entry("agent", `no built-in agent "nosuch"`, []string{"agent", "--root", "ROOT", "nosuch"}, []string{"agent", "nosuch", "--root", "ROOT"}),
	)

	It("take everything after -- as positional, even what looks like a flag", func() {
		dir := GinkgoT().TempDir()
		r := testbed("report", "--html", filepath.Join(dir, "o.html"), "--", "--r.json")
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(ContainSubstring("stat --r.json"))
	})

	DescribeTable("refuse a selection given twice, which would run the last alone",
		func(args ...string) {
			r := testbed(args...)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(`given twice ("a", then "b"): give it once, or leave it out for all`))
		},
		Entry("run --variant", "run", "--variant", "a", "--variant", "b"),
		Entry("record --suite", "record", "--suite", "a", "--suite", "b"),
		Entry("run --scenario", "run", "--scenario", "a", "--scenario", "b"),
	)

	It("still refuse a stray argument wherever it is", func() {
		for _, args := range [][]string{{"run", "odbchat", "--quiet"}, {"run", "--quiet", "odbchat"}} {
			r := testbed(args...)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring(`unexpected argument "odbchat"`))
		}
	})

	// A flag a command would take and then ignore (list --timeout, standin
	// --scenario) says it did something it did not: it is refused, as any
	// unknown flag, and --help does not list it.
	DescribeTable("refuse a flag the command would ignore, and do not list it",
		func(flag string, args ...string) {
			// Bounded: a command that took the flag might serve until stopped.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var stdout, stderr bytes.Buffer
			r := result{code: run(ctx, append(args, flag), &stdout, &stderr)}
			r.stdout, r.stderr = stdout.String(), stderr.String()
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stderr).To(ContainSubstring("flag provided but not defined: " + strings.SplitN(flag, "=", 2)[0][1:]))
			names, _ := flagsOf(strings.Join(args[:min(len(args), 2)], " "))
			Expect(names).NotTo(ContainElement(strings.TrimLeft(strings.SplitN(flag, "=", 2)[0], "-")))
		},
		Entry("list --timeout", "--timeout=1s", "list"),
		Entry("list --prices", "--prices=t.json", "list"),
		Entry("lint --variant", "--variant=v", "lint"),
		Entry("lint --scenario", "--scenario=s", "lint"),
		Entry("standin --scenario", "--scenario=s", "standin"),
		Entry("standin --tables", "--tables", "standin"),
		Entry("proxy --timeout", "--timeout=1s", "proxy"),
		Entry("serve odbchat --json", "--json", "serve", "odbchat"),
		Entry("report merge --json", "--json", "report", "merge"),
		Entry("report merge --no-color", "--no-color", "report", "merge"),
		Entry("baseline bless --timeout", "--timeout=1s", "baseline", "bless"),
		Entry("compare --variant", "--variant=v", "compare"),
	)
})
