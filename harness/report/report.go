// Package report is the result of a run as data, and renderers of it.
//
// A Report is built by package runner and written by WriteText,
// WriteMarkdown, WriteJSON, WriteJUnit and WriteHTML; Compare and Regressions
// set two reports side by side. It holds no wall-clock figures, so the same
// cassettes give the same report byte for byte.
package report

import (
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
	"time"
)

// SchemaVersion is the version of the JSON form of Report.
const SchemaVersion = 1

// Report is one run over one or more suites.
type Report struct {
	SchemaVersion int     `json:"schemaVersion"`
	Mode          string  `json:"mode"` // replay, record or live
	Suites        []Suite `json:"suites"`
	// Replay proves a replay hermetic; nil in record and live modes.
	Replay *ReplayStats `json:"replay,omitempty"`
	// Shard says which part of a sharded run this report is; nil for a
	// whole run (and for the merge of the shards).
	Shard *Shard `json:"shard,omitempty"`
	// KnownFailures, in a blessed baseline, are the failures a team blessed
	// (see KnownFailure); in a run's report, those of them that still fail
	// as blessed (see ApplyKnown). Improved are those that pass now.
	KnownFailures []KnownFailure `json:"known_failures,omitempty"`
	Improved      []KnownFailure `json:"improved,omitempty"`
	// Gate is what the regression gate found when the run was held to its
	// blessed baseline; nil when it was not (no baseline, a shard).
	Gate *Gate `json:"gate,omitempty"`
}

// Shard is the part of a run a shard report covers.
type Shard struct {
	Index int `json:"index"` // 1-based
	Count int `json:"count"`
	// Pairs counts the scenario × variant pairs this shard ran; Total those
	// of the whole run the shard was cut from.
	Pairs int `json:"pairs"`
	Total int `json:"total"`
}

// ReplayStats say what a replay used of the committed cassettes.
type ReplayStats struct {
	// LiveCalls counts requests that left the machine: always 0, since the
	// replay transport has no network path; stated so that a reader sees it.
	LiveCalls int `json:"live_calls"`
	// Recorded and Replayed count the interactions of the cassettes the run
	// opened and those it served.
	Recorded int `json:"recorded"`
	Replayed int `json:"replayed"`
	// UnusedCassettes are cassette files no scenario of the run's suites
	// owns (checked only when nothing was filtered out).
	UnusedCassettes []string `json:"unused_cassettes"`
	// Isolation says, for the agents run as programs, how they were kept
	// off the network: each distinct statement their runs noted
	// ("hermetic by network namespace", "not isolated: <reason>"), sorted;
	// empty when none ran.
	Isolation []string `json:"isolation,omitempty"`
	// Escaped counts the scenario runs whose agent called a host it was
	// not given (refused, so still no live call).
	Escaped int `json:"escaped,omitempty"`
}

// Suite is the result of one suite across its variants.
type Suite struct {
	Name      string `json:"name"`
	Agent     string `json:"agent"`
	Tokenizer string `json:"tokenizer"`
	Baseline  string `json:"baseline"`
	// About says what the suite's headline figures measure (its about:).
	About string `json:"about,omitempty"`
	// ReductionWithout names the tools the trimming table also totals
	// without (the suite's reduction_without:).
	ReductionWithout []string `json:"reduction_without,omitempty"`
	// NotGating is the suite's gating: false: its failures and thresholds
	// are reported apart and never fail the run.
	NotGating bool `json:"not_gating,omitempty"`
	// Prices names the price table the suite's calls were priced with.
	Prices   string    `json:"prices,omitempty"`
	Variants []Variant `json:"variants"`
}

// Variant is the result of one variant over the suite's scenarios.
type Variant struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Provenance  string `json:"provenance,omitempty"` // e.g. "rule-based stand-in shaped like gemma3:4b's API"
	// Provider is the model endpoint's provider (openai, gemini,
	// anthropic): the token counts of a provider other than OpenAI are
	// estimates with the suite's encoding, not its own tokenizer.
	Provider   string      `json:"provider,omitempty"`
	Scenarios  []Scenario  `json:"scenarios"`
	Summary    Summary     `json:"summary"`
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// Confusion counts expected vs observed routes (for tool-calling agents,
	// the first tool called) over the scenarios that expect a route.
	Confusion []ConfusionCell `json:"confusion,omitempty"`
	// Trimming is the payload trimming per tool: raw upstream tokens vs
	// tokens put into the model's context.
	Trimming []ToolTrim `json:"trimming,omitempty"`
}

// ConfusionCell is one cell of a routing confusion matrix.
type ConfusionCell struct {
	Expected string `json:"expected"`
	Observed string `json:"observed"` // "" when nothing was routed
	Count    int    `json:"count"`
}

// ToolTrim is the trimming of one tool's payloads over a variant's scenarios
// whose figures were measured (Scenario.Measured).
type ToolTrim struct {
	Tool          string  `json:"tool"`
	Calls         int     `json:"calls"`
	RawTokens     int     `json:"raw_tokens"`
	ContextTokens int     `json:"context_tokens"`
	Reduction     float64 `json:"reduction"` // 1 − context/raw; 0 when raw is 0
	// Unmeasured counts the stale or errored runs that called the tool:
	// their calls are left out of the figures above.
	Unmeasured int `json:"unmeasured_runs,omitempty"`
}

// Verdicts of a Scenario.
const (
	VerdictPass  = "pass"
	VerdictFail  = "fail"  // an expectation failed
	VerdictError = "error" // the agent or harness failed
	VerdictStale = "stale" // the cassette did not match
)

// Scenario is the result of one scenario under one variant.
type Scenario struct {
	ID            string        `json:"id"`
	Criterion     string        `json:"criterion,omitempty"`
	Verdict       string        `json:"verdict"`
	Route         string        `json:"route,omitempty"`          // observed, e.g. "tool:ghrsst.bbox_mean"
	ExpectedRoute string        `json:"expected_route,omitempty"` // from the scenario
	Checks        []Check       `json:"checks"`
	Error         string        `json:"error,omitempty"`
	Answer        []string      `json:"answer"` // the text of each reply
	Metrics       trace.Metrics `json:"metrics"`
	// Unmeasured is true when the scenario's own figures were not
	// measured, as Measured says from its verdicts: its Metrics are then
	// what a stale or errored run did before it stopped, not a measure.
	// It is there for readers of the JSON: WriteJSON writes it from the
	// verdicts whatever it holds, and ReadJSON and package runner set it
	// so; a Scenario built otherwise may leave it false, so ask Measured.
	Unmeasured bool `json:"unmeasured,omitempty"`
	Unplayed   int  `json:"unplayed"` // recorded interactions the run did not use
	// Recorded counts the calls a record-missing run recorded because the
	// cassette had no match for them, and Dropped the recorded interactions
	// that rewrite left out because the run did not use them.
	Recorded int      `json:"recorded,omitempty"`
	Dropped  []string `json:"dropped,omitempty"`
	// Processing is the wall time the agent spent on its own, outside its
	// HTTP calls: beside the replayed latency, never in it. It varies from
	// run to run, so no report file holds it.
	Processing time.Duration `json:"-"`
	// Wall is where the wall time of a run of an agent outside testbed
	// went (nil for the built-in agents): it varies from run to run, like
	// Processing, so no report file holds it.
	Wall *WallTime `json:"-"`
	// Retries counts the rate-limit and overload responses (429, 503, 529
	// with Retry-After) a recording waited out before the agent saw them,
	// and RetryWait the time it waited.
	Retries   int           `json:"retries,omitempty"`
	RetryWait time.Duration `json:"retry_wait_ns,omitempty"`
	// Crashed is true when the agent panicked; the run went on.
	Crashed bool `json:"crashed,omitempty"`
	// Known is true when the run failed as a known failure of the baseline
	// says (see ApplyKnown): reported, not failing the run.
	Known bool `json:"known_failure,omitempty"`
	// Escaped is true when the agent called a host it was not given: the
	// call was refused, and Error names the host.
	Escaped bool `json:"escaped,omitempty"`
	// Unreadable is true when the scenario's cassette exists but could not
	// be read (not a regular file, too large, no permission): a problem
	// with the checkout, not with the agent.
	Unreadable bool `json:"unreadable,omitempty"`
	// Fix is what writes a stale run's cassettes again, for a reader that
	// sums stale runs up (testbed baseline bless): "re-record it with:
	// testbed record …", or "re-grade with: testbed record …
	// --record-missing" when its grades are what is stale; empty
	// otherwise. Error says it too.
	Fix    string        `json:"-"`
	Events []trace.Event `json:"events"`
	// Sampling holds every sample's outcome when the scenario was recorded
	// with several samples; nil for a single cassette.
	Sampling *Sampling `json:"sampling,omitempty"`
	// Grading is what grading the scenario's rubric checks cost; nil when
	// it has none.
	Grading *Grading `json:"grading,omitempty"`
}

// Check is one expectation's outcome.
type Check struct {
	Turn   int    `json:"turn"`
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail,omitempty"`
	// Judged is true when the check's outcome depends on the model's
	// judgement (the suite's judged: list), not on the agent's plumbing.
	Judged bool `json:"judged,omitempty"`
	// Score is a graded check's score (a rubric's, 0 to 1), nil for a
	// check that has none.
	Score *float64 `json:"score,omitempty"`
}

// Label names c for a reader: "turn N name", its turn counted from 1 as
// testbed show counts them (Turn counts from 0).
func (c Check) Label() string { return fmt.Sprintf("turn %d %s", c.Turn+1, c.Name) }

// Summary aggregates a variant's scenarios. Latencies are in milliseconds.
type Summary struct {
	Scenarios        int     `json:"scenarios"`
	Passed           int     `json:"passed"`
	PassRate         float64 `json:"pass_rate"`
	Routed           int     `json:"routed"` // scenarios with a route expectation
	RoutingAccuracy  float64 `json:"routing_accuracy"`
	LLMCallsMean     float64 `json:"llm_calls_mean"`
	ToolCallsMean    float64 `json:"tool_calls_mean"`
	InputTokensMean  float64 `json:"input_tokens_mean"`
	OutputTokensMean float64 `json:"output_tokens_mean"`
	TokenReduction   float64 `json:"token_reduction"`
	LatencyMean      float64 `json:"latency_mean_ms"`
	LatencyP50       float64 `json:"latency_p50_ms"`
	LatencyP95       float64 `json:"latency_p95_ms"`
	LatencyP99       float64 `json:"latency_p99_ms"`
	// Artifacts counts the outputs the agent produced besides text (charts).
	Artifacts int `json:"artifacts,omitempty"`
	// PromptTokensPerCall is the system prompt plus tool schemas per LLM
	// call: what every call pays before any conversation.
	PromptTokensPerCall float64 `json:"prompt_tokens_per_call"`
	// Faults counts the faults the stand-ins injected into the runs;
	// FaultsHandled those in runs that passed (the agent degraded as its
	// expectations say); Crashes the runs in which the agent panicked.
	Faults        int `json:"faults,omitempty"`
	FaultsHandled int `json:"faults_handled,omitempty"`
	Crashes       int `json:"crashes,omitempty"`
	// Incomplete counts the runs that were stale or errored: their metrics
	// were not measured, so they are left out of the means, percentiles and
	// totals (which are over Measured runs), and no threshold over the
	// variant is evaluated.
	Incomplete int `json:"incomplete,omitempty"`
	// Runs counts the replayed samples when any scenario has several (see
	// Sampling); routing accuracy, means and percentiles are then over runs,
	// while PassRate stays the share of scenarios whose verdict passed.
	Runs        int     `json:"runs,omitempty"`
	RunPassRate float64 `json:"run_pass_rate,omitempty"`
	// PassHatK is pass^K averaged over the scenarios, K being the fewest
	// samples any scenario has.
	PassHatK float64 `json:"pass_hat_k,omitempty"`
	K        int     `json:"k,omitempty"`
	// CI is each sampled metric's mean with the 95% interval that the
	// samples' own noise puts around it (see SampledMetrics).
	CI map[string]Interval `json:"ci,omitempty"`
	// Checks counts the scenarios' checks (of the first sample), and
	// Judged those whose outcome depends on the model's judgement.
	Checks int `json:"checks,omitempty"`
	Judged int `json:"judged_checks,omitempty"`
	// Streaming summarizes the streamed model calls; nil when none streamed.
	Streaming *Streaming `json:"streaming,omitempty"`
	// Cost is what the model calls cost per run (mean, p95) and in all.
	Cost Spend `json:"cost"`
	// Grading adds up the grader's calls and tokens over the variant's
	// scenarios, apart from the agent's; nil when nothing was graded.
	Grading *Grading `json:"grading,omitempty"`
}

// Threshold is one suite threshold's outcome for a variant.
type Threshold struct {
	Source   string  `json:"source"`
	Observed float64 `json:"observed"`
	Target   float64 `json:"target"`
	Pass     bool    `json:"pass"`
	Detail   string  `json:"detail,omitempty"`
	// NotEvaluated is true when the threshold could not be measured (no
	// runs, or stale or errored ones); it then fails, and Observed and
	// Target mean nothing.
	NotEvaluated bool `json:"not_evaluated,omitempty"`
	// Known is true when the threshold failed as a known failure of the
	// baseline says (see ApplyKnown): reported, not failing the run.
	Known bool `json:"known_failure,omitempty"`
}

// Runs counts the scenario runs in r: one per scenario of each variant.
func (r *Report) Runs() int {
	n := 0
	for _, s := range r.Suites {
		for _, v := range s.Variants {
			n += len(v.Scenarios)
		}
	}
	return n
}

// Explain says how a scenario run ended, for a log: its verdict, then its
// error and each failed check (turn, check, detail), one per line
// indented by two spaces.
func (sc Scenario) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict %s", sc.Verdict)
	if sc.Error != "" {
		fmt.Fprintf(&b, "\n  error: %s", sc.Error)
	}
	for _, c := range sc.Checks {
		if !c.Pass {
			fmt.Fprintf(&b, "\n  %s: %s", c.Label(), c.Detail)
		}
	}
	return b.String()
}

// Passed reports whether every scenario and threshold of r's gating suites
// passed, or failed as a known failure, no cassette went unused and
// something was judged. A suite with gating: false is reported, never
// failing: as for testbed run's verdict, its failures do not count, but its
// stale, missing or unreadable cassettes do. A failed regression gate
// fails it too.
func (r *Report) Passed() bool {
	if r.Replay != nil && len(r.Replay.UnusedCassettes) > 0 || r.Runs() == 0 || r.Gate != nil && r.Gate.Failed {
		return false
	}
	for _, s := range r.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				if sc.Verdict == VerdictStale || sc.Unreadable || !s.NotGating && sc.Verdict != VerdictPass && !sc.Known {
					return false
				}
			}
			if s.NotGating {
				continue
			}
			for _, t := range v.Thresholds {
				if !t.Pass && !t.Known {
					return false
				}
			}
		}
	}
	return true
}
