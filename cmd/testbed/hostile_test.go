package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("testbed on broken input", func() {
	var root string

	BeforeEach(func() { root = project() })

	const rerecord = "re-record it with: testbed record --suite odbchat --variant single-pass --scenario ac1-taiwan-sst"

	// Every way a cassette can be broken makes its scenario stale (exit 3),
	// named with the file, the reason and the command that writes it again;
	// nothing panics and no other scenario is affected.
	DescribeTable("exits 3 on a broken cassette, naming it, what is wrong and how to re-record it",
		func(breakIt func(path string), reason string) {
			path := cassettePath(root, "single-pass", "ac1-taiwan-sst")
			breakIt(path)

			r := testbed("run", "--tables", "--root", root, "--variant", "single-pass", "--scenario", "ac1-taiwan-sst", "--out", "", "--baseline", "", "--quiet")

			Expect(r.code).To(Equal(exitStale), r.String())
			Expect(r.stdout).To(MatchRegexp(`(?m)^ac1-taiwan-sst\s+AC-1\s+STALE\s`))
			if r, ok := strings.CutPrefix(reason, "unsupported: "); ok {
				reason = "unsupported cassette format: " + path + ": " + r
			} else {
				reason = "corrupt cassette: " + path + ": " + reason
			}
			Expect(r.stdout).To(ContainSubstring(reason + "; " + rerecord))
			Expect(r.stderr).To(ContainSubstring("1 scenario runs have stale or missing cassettes"))
			Expect(r.stdout).To(ContainSubstring("not evaluated: 1 of 1 runs are stale or errored"), "a gate never passes on what it did not measure")
			Expect(r.stderr).NotTo(ContainSubstring("panic"))
		},
		Entry("an empty file", func(p string) { write(p, nil) }, "empty file"),
		Entry("cut off after 5000 bytes", func(p string) { write(p, read(p)[:5000]) },
			"interaction 0 has no response status (code 0); the file may be cut off"),
		Entry("cut off inside a quoted body", func(p string) { write(p, read(p)[:600]) },
			"yaml: line 5: found unexpected end of stream"),
		Entry("not YAML", func(p string) { write(p, []byte("\x89PNG\r\n\x1a\n\x00")) }, "yaml: invalid leading UTF-8 octet"),
		Entry("a non-UTF-8 byte", func(p string) { write(p, append(read(p), 0xff)) }, "yaml: invalid leading UTF-8 octet"),
		Entry("a list, not a cassette", func(p string) { write(p, []byte("[1, 2, 3]\n")) },
			"yaml: unmarshal errors: line 1: cannot unmarshal !!seq into cassette.file"),
		Entry("format version 3", func(p string) { replace(p, "version: 1\n", "version: 3\n", 1) },
			"unsupported: format version 3; "+
				"this testbed reads format versions 1 (go-vcr v2's, as testbed record writes it) and 2 (go-vcr v4's): a newer testbed or another tool wrote this file"),
		Entry("a response body that is not the length recorded", func(p string) { replace(p, `- "854"`, `- "999"`, 1) },
			"interaction 0 has a response body of 854 bytes, but its Content-Length is 999; the body was cut off or edited"),
		Entry("a duration that is not one", func(p string) { replace(p, "duration: 2.36s", "duration: soon", 1) },
			"yaml: unmarshal errors: line 48: cannot unmarshal !!str `soon` into time.Duration"),
	)

	DescribeTable("exits 4 on a cassette it cannot read, at once, naming it, and runs the other scenarios",
		func(breakIt func(path string), what string) {
			path := cassettePath(root, "single-pass", "ac1-taiwan-sst")
			Expect(os.Remove(path)).To(Succeed())
			breakIt(path)

			r := testbed("run", "--tables", "--root", root, "--variant", "single-pass", "--out", "", "--baseline", "", "--quiet")

			Expect(r.code).To(Equal(exitInternal), r.String())
			Expect(r.stdout).To(ContainSubstring("ac1-taiwan-sst error: read " + path + ": not a regular file (" + what + "); testbed reads only regular files"))
			Expect(r.stdout).To(MatchRegexp(`(?m)^ac2-hualien-point\s+AC-2\s+PASS\s`))
			Expect(r.stderr).To(ContainSubstring("1 cassettes could not be read (see the errors above); restore them from git or re-record them"))
		},
		Entry("a named pipe, which would block", func(p string) { Expect(syscall.Mkfifo(p, 0o644)).To(Succeed()) }, "a named pipe"),
	)

	It("exits 2 on a cassette that is a symlink out of the project (to /dev/zero, which never ends), naming it at its scenario's line", func() {
		path := cassettePath(root, "single-pass", "ac1-taiwan-sst")
		Expect(os.Remove(path)).To(Succeed())
		Expect(os.Symlink("/dev/zero", path)).To(Succeed())
		r := testbed("run", "--root", root, "--variant", "single-pass", "--out", "", "--baseline", "", "--quiet")
		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(MatchRegexp(`odbchat\.yaml:\d+: scenarios\.ac1-taiwan-sst: its cassette \S+ac1-taiwan-sst\.yaml leads outside \S+ \(to /dev/zero\)`))
	})

	It("exits 2 on variant configs the agent refuses, each at its variant's line, in run and lint", func() {
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		replace(path, "config: {router: legacy}", "config: {router: legacy, retries: 3}", 1)
		replace(path, "config: {router: single-pass}", "config: {router: triple-pass}", 1)
		text := string(read(path))

		for _, cmd := range []string{"run", "lint"} {
			r := testbed(cmd, "--root", root)
			Expect(r.code).To(Equal(exitUsage), r.String())
			Expect(r.stdout).To(BeEmpty())
			Expect(r.stderr).To(ContainSubstring(fmt.Sprintf(`%s:%d: variants.legacy.config: json: unknown field "retries" (known keys: router, router_prompt, fewshots, top_k, upstream_timeout)`,
				path, lineOf(text, "  legacy:", 1))))
			Expect(r.stderr).To(ContainSubstring(fmt.Sprintf(`%s:%d: variants.single-pass.config: router "triple-pass": want single-pass or legacy`,
				path, lineOf(text, "  single-pass:", 1))))
			Expect(regexp.MustCompile(`odbchat\.yaml:\d+: `).FindAllString(r.stderr, -1)).To(HaveLen(2))
		}
	})

	It("exits 2 on a suite that is not UTF-8, pointing at the byte", func() {
		path := filepath.Join(root, "scenarios", "odbchat.yaml")
		replace(path, "criterion: AC-3\n", "criterion: AC-3 caf\xe9\n", 1)
		text := string(read(path))

		r := testbed("lint", "--root", root)

		Expect(r.code).To(Equal(exitUsage), r.String())
		Expect(r.stderr).To(Equal(fmt.Sprintf("testbed: %s:%d: not UTF-8 text: byte 0xe9 at column 24; save the file as UTF-8\n",
			path, lineOf(text, "AC-3 caf", 1))))
	})
})

func read(path string) []byte {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return data
}

func write(path string, data []byte) {
	GinkgoHelper()
	Expect(os.WriteFile(path, data, 0o644)).To(Succeed())
}
