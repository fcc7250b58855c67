// Package replaytest runs a testbed suite against a Go agent from that
// agent's own tests, as net/http/httptest serves a handler: the team keeps
// its agent, its suites, cassettes and fixtures in its own module, and
// `go test` (or a Ginkgo spec through GinkgoT()) replays them and judges
// them as `testbed run` does, with the same report and the same gate.
//
//	func TestSuite(t *testing.T) {
//		rep := replaytest.Run(t, "testdata/scenarios/weather.yaml", weather.New)
//		_ = rep // for further asserts
//	}
//
// Run replays offline by default. With TESTBED_RECORD=1 in the environment
// it records instead, as `testbed record` does: against testbed's loopback
// stand-ins (the stand-in model, and stubs of the upstreams from
// fixtures/<agent>/routes.yaml), each cassette saved atomically with its
// secrets redacted. With Baseline it gates the run against a blessed
// report, and TESTBED_BLESS=1 blesses it.
//
// The suite describes the agent as for an agent outside testbed
// (docs/external-agents.md): agent: is a mapping with its name, its model
// endpoint and its upstreams' logical base URLs; command: may be left out,
// and is ignored when given, since the constructor runs in the test's own
// process. Info describes the agent in Go instead, for a suite that names
// it plainly.
//
// With TESTBED_RECORD_PROVIDER and TESTBED_RECORD_MODEL (or RecordWith)
// a recording calls that real model instead, as testbed record --provider
// does. An agent gets an embeddings client (Config.Embedder) when Info
// names its Embeddings endpoint. Run imports no test framework: the team's non-test code
// never links it, and Ginkgo stays out of its binary.
package replaytest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm/provider"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// Environment variables Run reads when no Option says otherwise.
const (
	// EnvRecord set to 1 or true makes Run record the suite's cassettes
	// against the stand-ins instead of replaying them.
	EnvRecord = "TESTBED_RECORD"
	// EnvBless set to 1 or true makes a passing replay write its report
	// into the Baseline file (this suite's part of it) instead of gating.
	EnvBless = "TESTBED_BLESS"
	// EnvRecordProvider and EnvRecordModel make a recording call a real
	// provider's model (openai, gemini, anthropic, azure or ollama; its
	// key in OPENAI_API_KEY, GEMINI_API_KEY, ANTHROPIC_API_KEY or
	// AZURE_OPENAI_API_KEY), EnvRecordBaseURL at a base URL other than
	// the provider's own; EnvRecordLiveUpstreams set to 1 or true, the
	// real upstream APIs. RecordWith wins over them.
	EnvRecordProvider      = "TESTBED_RECORD_PROVIDER"
	EnvRecordModel         = "TESTBED_RECORD_MODEL"
	EnvRecordBaseURL       = "TESTBED_RECORD_BASE_URL"
	EnvRecordLiveUpstreams = "TESTBED_RECORD_LIVE_UPSTREAMS"
)

// TB is the part of a test that Run uses. *testing.T, *testing.B and
// Ginkgo's GinkgoT() satisfy it. When it also has Name() string (they all
// do), the commands Run suggests select that test; when it has
// Context() context.Context, runs stop when that context ends.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Run runs the suite at suitePath against the agents newAgent builds, one
// per scenario run, and returns the report. It fails t, with one message
// saying what was expected, what happened and what to run next, when a
// scenario, a threshold or the baseline gate fails, and logs the text
// report then. It stops t with Fatalf when the suite cannot be run at all
// (it does not load, the agent is not described, a variant's config is
// refused); the report is nil then.
func Run(t TB, suitePath string, newAgent agents.Constructor, opts ...Option) *report.Report {
	t.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	root := c.root
	if root == "" {
		root = defaultRoot(suitePath)
	}
	s, err := scenario.Load(suitePath, scenario.LoadOptions{
		Metrics: check.MetricNames(), Faults: runner.FaultKinds(), JQ: check.CompileJQ, InProcess: true, Root: root,
	})
	if err != nil {
		t.Fatalf("replaytest: %v", err)
		return nil
	}
	info, err := describe(s, c.info)
	if err != nil {
		t.Fatalf("replaytest: %v", err)
		return nil
	}
	entries := map[string]agents.Entry{s.Agent: {Info: info, New: newAgent}}
	suites := []*scenario.Suite{s}
	if err := lint.Configs(root, suites, entries, nil); err != nil {
		t.Fatalf("replaytest: %v", err)
		return nil
	}
	cmds := commands{name: testName(t), pkg: packageDir(), rerecord: c.rerecord}
	ropts := runner.Options{
		Mode: cassette.ModeReplay, Root: root, Agents: entries,
		Rerecord: func(string, string, string) string { return cmds.record() },
	}
	if c.recording() {
		stop, err := recording(&ropts, suites, c.recordWith())
		if err != nil {
			t.Fatalf("replaytest: record %s: %v", s.Name, err)
			return nil
		}
		defer stop()
	}
	rep, err := runner.Run(contextOf(t), suites, ropts)
	if err != nil {
		t.Fatalf("replaytest: run %s: %v", s.Name, err)
		return nil
	}
	problems := c.judge(t, rep, s, root, entries, cmds)
	if len(problems) > 0 {
		var text bytes.Buffer
		if err := report.WriteText(&text, rep); err == nil {
			t.Logf("replaytest: report of suite %s:\n%s", s.Name, text.String())
		}
		t.Errorf("replaytest: suite %s (%s) failed:\n  %s", s.Name, suitePath, strings.Join(problems, "\n  "))
	}
	return rep
}

// judge returns what fails the test after a run: the report files that
// could not be written, every scenario, threshold and unused cassette that
// failed, and then, after a recording, the secrets found in its cassettes;
// after a replay, the baseline gate, or the blessing of the baseline.
func (c *config) judge(t TB, rep *report.Report, s *scenario.Suite, root string, entries map[string]agents.Entry, cmds commands) []string {
	var problems []string
	if c.reports != "" {
		if err := saveReports(rep, c.reports); err != nil {
			problems = append(problems, err.Error())
		}
	}
	problems = append(problems, failures(rep)...)
	switch {
	case rep.Mode == cassette.ModeRecord.String():
		found, err := scanRecorded(root, s, entries)
		problems = append(append(problems, found...), errText(err)...)
		if len(problems) == 0 {
			t.Logf("replaytest: recorded %d scenario runs of suite %s into %s", rep.Runs(), s.Name, cassette.Dir(root, s.Name))
		}
	case c.baseline != "" && c.blessing():
		if len(problems) > 0 {
			problems = append(problems, fmt.Sprintf("%s not blessed: the replay does not pass; fix it before blessing it", c.baseline))
		} else if err := bless(c.baseline, rep); err != nil {
			problems = append(problems, err.Error())
		} else {
			t.Logf("replaytest: blessed %d scenario runs of suite %s into %s", rep.Runs(), s.Name, c.baseline)
		}
	case c.baseline != "":
		problems = append(problems, gate(c.baseline, rep, s, cmds)...)
	}
	return problems
}

// describe returns the agent's Info: the one given, else the suite's
// description of it.
func describe(s *scenario.Suite, given *agents.Info) (agents.Info, error) {
	if given != nil {
		info := *given
		info.Name = s.Agent
		return info, nil
	}
	e := s.External
	if e == nil {
		return agents.Info{}, fmt.Errorf("%s: agent %q is not described: give agent: as a mapping with name, model and upstreams "+
			"(docs/external-agents.md), or pass replaytest.Info", s.Path, s.Agent)
	}
	if e.Embeddings != "" {
		return agents.Info{}, fmt.Errorf("%s: agent.embeddings: an in-process agent's embeddings client needs its model, which a suite does not name: leave it out and describe the agent with replaytest.Info, its Embeddings endpoint set", s.Path)
	}
	return agents.Info{Name: s.Agent, Model: e.Model, Upstreams: e.Upstreams}, nil
}

// defaultRoot is the folder above the suite's when that is named
// scenarios (root/scenarios/suite.yaml), else the suite's own.
func defaultRoot(suitePath string) string {
	dir := filepath.Dir(suitePath)
	if filepath.Base(dir) == "scenarios" {
		return filepath.Dir(dir)
	}
	return dir
}

// recording sets opts up to record as testbed record does: the suites'
// cassette folders locked, key values from the environment redacted, one
// scenario at a time (four with a real model), the agents' logical hosts
// routed to the stand-in model, or to real's model, and to the fixture
// upstreams unless real calls the live ones. stop undoes it.
func recording(opts *runner.Options, suites []*scenario.Suite, real *realModel) (stop func(), err error) {
	opts.Parallel = 1
	if real != nil {
		ep, key, err := provider.Real(real.provider, real.model, real.baseURL, os.Getenv)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", EnvRecordProvider, real.provider, err)
		}
		opts.Model, opts.Secrets, opts.AllowNetwork, opts.Parallel = &ep, map[string]string{ep.KeyEnv: key}, true, 4
		if real.liveUpstreams {
			maps.Copy(opts.Secrets, runner.AgentKeys(opts.Agents, os.Getenv))
		}
	}
	release, err := runner.LockSuites(opts.Root, suites)
	if err != nil {
		return nil, err
	}
	sis, err := runner.StartStandIns(opts.Root, opts.Agents, real == nil, real == nil || !real.liveUpstreams)
	if err != nil {
		release()
		return nil, err
	}
	stop = func() { sis.Close(); release() }
	if real == nil {
		if err := sis.RouteVariants(suites); err != nil {
			stop()
			return nil, err
		}
	}
	// Rubric checks are graded by the stand-in judge, recorded beside.
	if err := sis.RouteJudges(suites); err != nil {
		stop()
		return nil, err
	}
	opts.Mode, opts.Routes, opts.JudgeRoutes = cassette.ModeRecord, sis.Routes, sis.Judges
	opts.Redact = runner.KeyValues(opts.Agents)
	return stop, nil
}

// scanRecorded scans a suite's cassettes for secrets with the suite's
// detector (its env: values and redact: rules too), as testbed cassettes
// check does, and returns what it found.
func scanRecorded(root string, s *scenario.Suite, entries map[string]agents.Entry) ([]string, error) {
	d, err := runner.Detector([]*scenario.Suite{s}, runner.KeyValues(entries), runner.KeyVariables(entries))
	if err != nil {
		return nil, err
	}
	found, err := d.Scan(cassette.Dir(root, s.Name))
	var out []string
	for _, f := range found {
		out = append(out, "possible secret: "+f.String())
	}
	return out, err
}

// saveReports writes the report's files (report.Latest) into dir as one set.
func saveReports(rep *report.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	return files.WriteSet(dir, "latest", report.Latest(rep))
}

// contextOf is t's context when it has one.
func contextOf(t TB) context.Context {
	if c, ok := t.(interface{ Context() context.Context }); ok {
		return c.Context()
	}
	return context.Background()
}

// testName is t's name when it has one.
func testName(t TB) string {
	if n, ok := t.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// errText is err's text as a list of one, or none.
func errText(err error) []string {
	if err == nil {
		return nil
	}
	return []string{err.Error()}
}
