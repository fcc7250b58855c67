package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/rhysd/actionlint"
	"gopkg.in/yaml.v3"
)

// workflowStep is one step of a GitHub Actions job.
type workflowStep struct {
	Uses string `yaml:"uses"`
	Run  string `yaml:"run"`
}

// workflowJob is one job of a GitHub Actions workflow.
type workflowJob struct {
	Needs    any `yaml:"needs"`
	Strategy struct {
		Matrix map[string][]any `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []workflowStep `yaml:"steps"`
}

// lintWorkflow runs actionlint, the maintained GitHub Actions linter, on
// the workflow at path and fails with every problem it reports.
func lintWorkflow(path string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	l, err := actionlint.NewLinter(GinkgoWriter, &actionlint.LinterOptions{})
	Expect(err).NotTo(HaveOccurred())
	problems, err := l.Lint(path, data, nil)
	Expect(err).NotTo(HaveOccurred())
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.String())
	}
	Expect(msgs).To(BeEmpty(), "actionlint on %s", path)
}

// testbedLines are the lines of a run script that call bin/testbed, with
// ${{ matrix.shard }} set to shard.
func testbedLines(run string, shard int) []string {
	var out []string
	for _, line := range strings.Split(run, "\n") {
		line = strings.ReplaceAll(line, "${{ matrix.shard }}", strconv.Itoa(shard))
		if _, cmd, ok := strings.Cut(line, "./bin/testbed "); ok {
			out = append(out, cmd)
		}
	}
	return out
}

// runWorkflowLine runs one bin/testbed command of the workflow in-process in
// dir, as the runner's shell would: its "> file" redirection written, its
// "|| code=$?" kept from failing the step, "" as an empty argument.
func runWorkflowLine(dir, line string) result {
	GinkgoHelper()
	line, _, _ = strings.Cut(line, " ||")
	line, redirect, _ := strings.Cut(line, " > ")
	var args []string
	for _, f := range strings.Fields(line) {
		if f == `""` {
			f = ""
		}
		if strings.HasSuffix(f, ".json") || f == "reports/latest.json" {
			f = filepath.Join(dir, f)
		}
		args = append(args, f)
	}
	r := testbed(append(args, "--root", repoRoot)...)
	if redirect = strings.TrimSpace(redirect); redirect != "" {
		Expect(os.WriteFile(filepath.Join(dir, redirect), []byte(r.stdout), 0o644)).To(Succeed())
	}
	return r
}

var _ = Describe("the sharded CI workflow (examples/ci/sharded.yml)", func() {
	It("passes actionlint, as the one-runner workflow does", func() {
		lintWorkflow(filepath.Join(repoRoot, "examples", "ci", "sharded.yml"))
		lintWorkflow(filepath.Join(repoRoot, "examples", "ci", "testbed.yml"))
	})

	It("run locally over its 4 shards, then merged, gives the report a single run gives", func() {
		data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "ci", "sharded.yml"))
		Expect(err).NotTo(HaveOccurred())
		var wf struct {
			Jobs map[string]workflowJob `yaml:"jobs"`
		}
		Expect(yaml.Unmarshal(data, &wf)).To(Succeed())
		Expect(wf.Jobs).To(HaveKey("shard"))
		Expect(wf.Jobs).To(HaveKey("gate"))
		Expect(wf.Jobs["gate"].Needs).To(Equal("shard"))
		shards := wf.Jobs["shard"].Strategy.Matrix["shard"]
		Expect(shards).To(HaveLen(4))

		dir := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(dir, "shards"), 0o755)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(dir, "reports"), 0o755)).To(Succeed())
		ran := 0
		for _, s := range shards {
			for _, st := range wf.Jobs["shard"].Steps {
				for _, line := range testbedLines(st.Run, s.(int)) {
					r := runWorkflowLine(dir, line)
					Expect(r.code).To(BeElementOf(exitOK, exitFailed, exitStale), r.String())
					ran++
				}
			}
		}
		Expect(ran).To(Equal(4), "one testbed run per shard")
		merged := 0
		for _, st := range wf.Jobs["gate"].Steps {
			for _, line := range testbedLines(st.Run, 0) {
				if !strings.HasPrefix(line, "report merge") {
					continue
				}
				r := runWorkflowLine(dir, line)
				Expect(r.code).To(Equal(exitOK), r.String())
				merged++
			}
		}
		Expect(merged).To(Equal(1))

		single := testbed("run", "--root", repoRoot, "--json", "--out", "", "--no-color")
		Expect(single.code).To(Equal(exitOK), single.String())
		Expect(mustRead(filepath.Join(dir, "reports", "latest.json"))).To(Equal(single.stdout))
	})
})
