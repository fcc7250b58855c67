package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/harness/cassette"
)

var _ = Describe("testbed cassettes check", func() {
	var root, dir string

	BeforeEach(func() {
		root = project()
		dir = filepath.Join(root, "cassettes")
		// Keys in the developer's environment are looked for too; keep the
		// specs independent of them.
		for _, v := range cassette.KeyVariables() {
			GinkgoT().Setenv(v, "")
		}
	})

	It("finds no secret in the committed cassettes", func() {
		r := testbed("cassettes", "check", "--dir", dir)
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(Equal("no secrets found in " + dir + "\n"))
	})

	It("prints [] with --json when it finds nothing", func() {
		r := testbed("cassettes", "check", "--dir", dir, "--json")
		Expect(r.code).To(Equal(exitOK), r.String())
		Expect(r.stdout).To(MatchJSON("[]"))
	})

	It("exits 1 on a bearer token, with file:line and the secret masked", func() {
		path := cassettePath(root, "legacy", "ac3-what-is-ghrsst")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		text := string(data)
		// The first Authorization header's value is on the line after it.
		line := lineOf(text, "Authorization:", 1) + 1
		Expect(strings.Split(text, "\n")[line-1]).To(HaveSuffix("- REDACTED"))
		replace(path, "Authorization:\n                - REDACTED", "Authorization:\n                - Bearer sk-abcdefghijklmnopqrstuvwx", -1)

		r := testbed("cassettes", "check", "--dir", dir)

		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring(fmt.Sprintf("%s:%d: bearer token: Bearer", path, line)))
		Expect(r.stdout).To(ContainSubstring(fmt.Sprintf("%s:%d: OpenAI-style key: sk-abc", path, line)))
		Expect(r.stdout + r.stderr).NotTo(ContainSubstring("sk-abcdefghijklmnopqrstuvwx"))
		Expect(r.stdout).NotTo(ContainSubstring("no secrets found"))
		Expect(r.stderr).To(ContainSubstring("2 possible secrets in " + dir))

		By("listing the same findings with --json")
		j := testbed("cassettes", "check", "--dir", dir, "--json")
		Expect(j.code).To(Equal(exitFailed), j.String())
		var found []cassette.Finding
		Expect(json.Unmarshal([]byte(j.stdout), &found)).To(Succeed())
		Expect(found).To(HaveLen(2))
		Expect(found).To(HaveEach(SatisfyAll(HaveField("Path", path), HaveField("Line", line))))
	})

	It("finds the value of a key variable set in the environment", func() {
		const value = "planted-value-0123456789"
		path := cassettePath(root, "single-pass", "ac6-land-point")
		replace(path, `"id":"chatcmpl-standin"`, `"id":"`+value+`"`, -1)
		line := lineOf(mustRead(path), value, 1)

		By("not recognising the value by its shape")
		Expect(testbed("cassettes", "check", "--dir", dir).code).To(Equal(exitOK))

		By("finding it once OPENAI_API_KEY holds it")
		GinkgoT().Setenv("OPENAI_API_KEY", value)
		r := testbed("cassettes", "check", "--dir", dir)
		Expect(r.code).To(Equal(exitFailed), r.String())
		Expect(r.stdout).To(ContainSubstring(fmt.Sprintf("%s:%d: value of a key variable: plante***", path, line)))
		Expect(r.stdout).NotTo(ContainSubstring(value))
	})

	It("exits 4 when the folder cannot be read", func() {
		r := testbed("cassettes", "check", "--dir", filepath.Join(root, "no-such-folder"))
		Expect(r.code).To(Equal(exitInternal), r.String())
		Expect(r.stderr).To(ContainSubstring("no-such-folder"))
	})
})

func mustRead(path string) string {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}
