package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

func TestRunner(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Runner Suite")
}

// repoRoot is the project folder, relative to this package.
const repoRoot = "../.."

// project copies what the odbchat suite needs from the repository into a
// fresh temporary folder and returns that folder, so that specs may change
// anything in it without touching the shared tree.
func project() string {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	Expect(copyProject(root)).To(Succeed())
	return root
}

func copyProject(root string) error {
	for _, dir := range []string{"cassettes/odbchat", "fixtures/odbchat", "scenarios/prompts"} {
		src := filepath.Join(repoRoot, dir)
		if _, err := os.Stat(src); os.IsNotExist(err) {
			continue
		}
		if err := os.CopyFS(filepath.Join(root, dir), os.DirFS(src)); err != nil {
			return err
		}
	}
	data, err := os.ReadFile(filepath.Join(repoRoot, "scenarios", "odbchat.yaml"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, "scenarios"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "scenarios", "odbchat.yaml"), data, 0o644)
}

// loadSuite loads the odbchat suite under root.
func loadSuite(root string) *scenario.Suite {
	GinkgoHelper()
	s, err := scenario.Load(filepath.Join(root, "scenarios", "odbchat.yaml"),
		scenario.LoadOptions{Agents: all.Names(), Metrics: check.MetricNames()})
	Expect(err).NotTo(HaveOccurred())
	return s
}

// recording is a copy of the project with the loopback stand-ins running,
// for specs that record.
type recording struct {
	root  string
	suite *scenario.Suite
	sis   *runner.StandIns
}

// startRecording copies the project and starts the stand-ins until the
// spec (or the Ordered container) ends; call it in a setup node.
func startRecording() *recording {
	GinkgoHelper()
	r := &recording{root: project()}
	r.suite = loadSuite(r.root)
	var err error
	r.sis, err = runner.StartStandIns(r.root, all.Registry(), true, true)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(r.sis.Close)
	return r
}

// record records s (the project's suite when nil) one scenario at a time;
// opts may narrow it and set Repeat.
func (r *recording) record(s *scenario.Suite, opts runner.Options) *report.Report {
	GinkgoHelper()
	if s == nil {
		s = r.suite
	}
	opts.Mode, opts.Root, opts.Agents, opts.Routes, opts.Parallel = cassette.ModeRecord, r.root, all.Registry(), r.sis.Routes, 1
	rep, err := runner.Run(context.Background(), []*scenario.Suite{s}, opts)
	Expect(err).NotTo(HaveOccurred())
	return rep
}
