package replaytest

import (
	"os"
	"strings"

	"github.com/agentreplay/testbed/agents"
)

// Option changes how Run runs a suite.
type Option func(*config)

// config is what the options set; its zero value replays the suite, under
// the folder the suite's path implies, and writes nothing.
type config struct {
	root, baseline, reports, rerecord string
	info                              *agents.Info
	record                            *bool
	real                              *realModel
}

// realModel is the real provider a recording calls instead of the stand-in
// model.
type realModel struct {
	provider, model, baseURL string
	liveUpstreams            bool
}

// Root names the folder holding scenarios/, cassettes/ and fixtures/. By
// default it is the folder above the suite's when that is named scenarios
// (testdata for testdata/scenarios/weather.yaml), else the suite's own.
func Root(dir string) Option { return func(c *config) { c.root = dir } }

// Info describes the agent (its model endpoint, upstreams and keys) when
// the suite names it plainly (agent: weather) rather than describing it;
// it wins over the suite's description. Its Name is the suite's agent.
func Info(info agents.Info) Option { return func(c *config) { c.info = &info } }

// Baseline gates the run against the blessed report at path, as testbed
// run gates against reports/baseline.json: a figure worse than the suite's
// gate allows, or a scenario that stopped passing, fails the test, and so
// does a baseline that is missing or holds no run of this suite. With
// TESTBED_BLESS=1 a passing replay is written into path instead (this
// suite's part; other suites' parts are kept).
func Baseline(path string) Option { return func(c *config) { c.baseline = path } }

// Reports writes the report as latest.md, latest-full.md and latest.json
// into dir (report.Latest), as
// testbed run does into reports/; by default Run writes no file.
func Reports(dir string) Option { return func(c *config) { c.reports = dir } }

// Record records (true) or replays (false) whatever TESTBED_RECORD says.
func Record(on bool) Option { return func(c *config) { c.record = &on } }

// RecordWith makes a recording call a real provider's model (openai,
// gemini, anthropic, azure or ollama; baseURL "" for the provider's own,
// its key from the environment as testbed record --provider reads it)
// instead of the stand-in model, and, with liveUpstreams, the real
// upstream APIs (their keys from the environment) instead of the fixture
// stubs. By default TESTBED_RECORD_PROVIDER, TESTBED_RECORD_MODEL,
// TESTBED_RECORD_BASE_URL and TESTBED_RECORD_LIVE_UPSTREAMS say so.
func RecordWith(provider, model, baseURL string, liveUpstreams bool) Option {
	return func(c *config) { c.real = &realModel{provider, model, baseURL, liveUpstreams} }
}

// Rerecord is the command that stale-cassette diagnoses tell the user to
// run. By default it is TESTBED_RECORD=1 go test, for this package and
// this test (-run for a Go test, -ginkgo.focus for a Ginkgo spec).
func Rerecord(command string) Option { return func(c *config) { c.rerecord = command } }

// recording reports whether Run records.
func (c *config) recording() bool {
	if c.record != nil {
		return *c.record
	}
	return on(os.Getenv(EnvRecord))
}

// recordWith is the real provider a recording calls, nil for the
// stand-ins: RecordWith's, else the environment's.
func (c *config) recordWith() *realModel {
	if c.real != nil {
		return c.real
	}
	r := realModel{provider: os.Getenv(EnvRecordProvider), model: os.Getenv(EnvRecordModel), baseURL: os.Getenv(EnvRecordBaseURL),
		liveUpstreams: on(os.Getenv(EnvRecordLiveUpstreams))}
	if r == (realModel{}) {
		return nil
	}
	return &r
}

// blessing reports whether Run blesses the baseline.
func (c *config) blessing() bool { return on(os.Getenv(EnvBless)) }

// on reads an environment variable's value as a switch: 1 or true.
func on(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v == "1" || v == "true"
}
