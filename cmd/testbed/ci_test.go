package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/report"
)

// workflowCommands are the bin/testbed commands of the example workflow's
// steps, as argument lists ($RUN_URL as a URL, output redirections cut).
func workflowCommands() [][]string {
	GinkgoHelper()
	data, err := os.ReadFile("../../examples/ci/testbed.yml")
	Expect(err).NotTo(HaveOccurred())
	var wf struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	Expect(yaml.Unmarshal(data, &wf)).To(Succeed())
	Expect(wf.On).To(HaveKey("pull_request"))
	Expect(wf.Jobs).To(HaveKey("gate"))
	var cmds [][]string
	for _, st := range wf.Jobs["gate"].Steps {
		Expect(st.Uses != "" || st.Run != "").To(BeTrue(), "a step does something")
		for _, line := range strings.Split(st.Run, "\n") {
			_, cmd, ok := strings.Cut(line, "./bin/testbed ")
			if !ok {
				continue
			}
			cmd, _, _ = strings.Cut(cmd, " >")
			cmd = strings.ReplaceAll(cmd, `"$RUN_URL"`, "https://github.com/o/r/actions/runs/1")
			cmds = append(cmds, strings.Fields(cmd))
		}
	}
	return cmds
}

// rendersAsGFM checks that md renders with GitHub's markdown (goldmark with
// its GFM extension) with at least one table and no table row left as text.
func rendersAsGFM(md string) {
	GinkgoHelper()
	var html bytes.Buffer
	Expect(goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &html)).To(Succeed())
	Expect(html.String()).To(ContainSubstring("<table>"))
	Expect(regexp.MustCompile(`<p>[^<]*\|[^<]*\|`).FindString(html.String())).To(BeEmpty(), "a table row rendered as text")
}

var _ = Describe("examples/ci/testbed.yml", func() {
	It("names only real testbed commands and flags", func() {
		cmds := workflowCommands()
		var names []string
		for _, args := range cmds {
			names = append(names, args[0])
			// --help at the end: every flag before it is parsed by the
			// command's own parser, and nothing runs.
			r := testbed(append(args, "--help")...)
			Expect(r.code).To(Equal(exitOK), "testbed %s: %s", strings.Join(args, " "), r.String())
			Expect(r.stderr).To(HavePrefix("Usage: testbed "+args[0]), strings.Join(args, " "))
		}
		Expect(names).To(Equal([]string{"run", "report", "compare"}))
	})

	It("catches a misspelt flag", func() {
		Expect(testbed("run", "--junitt", "x.xml", "--help").code).To(Equal(exitUsage))
	})

	It("posts a comment and a latest.md that render on GitHub and fit a comment", func() {
		out := GinkgoT().TempDir()
		r := testbed("run", "--root", "../..", "--suite", "odbchat", "--quiet", "--no-baseline", "--out", out, "--junit", filepath.Join(out, "junit.xml"))
		Expect(r.code).To(Equal(exitOK), r.String())
		for _, f := range []string{"latest.md", "latest-full.md", "latest.json", "junit.xml"} {
			Expect(filepath.Join(out, f)).To(BeARegularFile(), "the workflow uploads it")
		}
		latest, err := os.ReadFile(filepath.Join(out, "latest.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(latest)).To(HavePrefix("**PASS: all 60 scenarios"))
		Expect(len(latest)).To(BeNumerically("<=", report.CommentLimit))
		rendersAsGFM(string(latest))

		c := testbed("compare", "../../reports/baseline.json", filepath.Join(out, "latest.json"), "--markdown", "--details", "https://github.com/o/r/actions/runs/1")
		Expect(c.code).To(Equal(exitOK), c.String())
		Expect(c.stdout).To(HavePrefix("**testbed compare: no scenario regressed in 2 comparisons**"))
		Expect(c.stdout).To(MatchRegexp(`\| odbchat: [^|]+legacy → [^|]+legacy \| 30 \|`))
		Expect(len(c.stdout)).To(BeNumerically("<=", report.CommentLimit))
		rendersAsGFM(c.stdout)
	})
})
