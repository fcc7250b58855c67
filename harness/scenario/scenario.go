// Package scenario defines suites of scenarios and loads them from YAML.
//
// Every problem in a suite file is reported as "path:line: message", all of
// them at once. Loading checks shape and values; it does not know which agents
// or metrics exist (callers pass those in through LoadOptions).
package scenario

import (
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/match"
)

// MaxSamples bounds samples: and record --repeat: more is a typo, and
// would fill the disk with cassettes.
const MaxSamples = 100

// Suite is one scenarios/<suite>.yaml file.
type Suite struct {
	Path     string
	Name     string // suite:
	NameLine int    // the line of suite:
	Agent    string // agent: a built-in agent's name, or External's
	// External describes the agent when it is outside testbed (agent: as
	// a mapping); nil for a built-in agent.
	External  *External
	Clock     time.Time // clock: the agent's "now" at the start of every scenario
	Tokenizer string    // tokenizer: o200k_base (default) or cl100k_base
	Baseline  string    // baseline: the variant others are compared to
	Variants  []Variant // in file order
	// Thresholds by variant name; each aggregates over the variant's scenarios.
	Thresholds map[string][]Threshold
	// Gate bounds how much worse than the blessed baseline report each
	// metric may get, as a fraction of the baseline value; nil means the
	// defaults of DefaultGate.
	Gate map[string]float64
	// About says what the suite's headline figures measure and what drives
	// them (about:); reports print it under the suite's title.
	About string
	// NotGating is gating: false: the suite is replayed and reported, but
	// its failures, thresholds and gate never fail the run.
	NotGating bool
	// ReductionWithout names tools whose payloads dominate the suite's token
	// reduction (reduction_without:); reports give the reduction without
	// them too.
	ReductionWithout []string
	// Judged names the checks whose outcome depends on the model's
	// judgement (judged: [route, answer]): a check kind (JudgedKinds) or
	// one check (answer.not_contains). Reports count them apart from the plumbing
	// checks when a stand-in answered.
	Judged []string
	// Goodput is the budget a streamed model call must meet to count as
	// good (goodput: {ttft: 500ms, tpot: 50ms}); nil when the suite sets
	// none, and then no goodput is measured.
	Goodput *Goodput
	// Samples is how many samples each scenario is recorded with (samples:,
	// default 1, at most MaxSamples): recording keeps that many unless told
	// otherwise, and a replay that finds fewer calls the missing ones stale.
	Samples int
	// MinSamplePassRate is the share of a scenario's samples that must pass
	// for the scenario to pass, when it was recorded with several
	// (testbed record --repeat); 1 unless the suite says otherwise.
	MinSamplePassRate float64
	// Faults, when set, injects faults at a seeded rate into every
	// recording of the suite.
	Faults *FaultRate
	// Match holds the rules replay matches requests under (match:): what
	// varies between runs of a real agent, ignored or normalised; nil when
	// the suite has none.
	Match *match.Rules
	// Redact is the suite's own redaction rules (redact:), besides the
	// maintained ones, the key variables and the values of External.Env.
	Redact []RedactRule
	// Prices is the suite's prices: block; nil when it has none.
	Prices *Prices
	// Judge is the grader of the suite's rubric checks and of pairwise
	// judging (judge:); nil when the suite has none.
	Judge     *Judge
	Scenarios []Scenario
	// ScenariosFrom are the data files (scenarios_from:) whose rows are
	// scenarios too, after the hand-written ones in Scenarios.
	ScenariosFrom []DataFile
}

// Prices says how a suite's model calls are priced (prices:): a price
// table in LiteLLM's schema, a path relative to the project root ("" for
// testbed's own or the one --prices names), and the table's row each of
// the suite's model names stands for (the stand-in's gemma3:4b served
// through Ollama is ollama/gemma3:4b).
type Prices struct {
	File   string
	Line   int
	Models map[string]string
}

// Variant is one configuration of the agent.
type Variant struct {
	Name        string
	Description string
	Config      map[string]any
	// Endpoint replaces the agent's model endpoint for this variant.
	Endpoint *llm.Endpoint
	Line     int
}

// Threshold is one expression such as "latency_p95 < 2s" or
// "llm_calls_mean <= baseline".
type Threshold struct {
	Source   string // the expression as written
	Metric   string
	Op       string // < <= > >= == !=
	Baseline bool   // compared to another variant's value of Metric: Against, or the baseline
	Against  string // the variant compared to, when the threshold names one
	Value    float64
	// Unit is "s" when the value was written as a duration (stored in
	// seconds in Value), "%" for a percentage (stored as a fraction), or "".
	Unit string
	Line int
}

// Scenario is one conversation and what is expected of it.
type Scenario struct {
	ID        string
	Criterion string   // e.g. "AC-1"; empty for extra cases
	Tags      []string // free labels
	// Attachments are files the user sends with the first turn.
	Attachments []AttachmentRef
	// Faults are injected by rule while the scenario is recorded.
	Faults []FaultRule
	Turns  []Turn
	Line   int
	// File is the data file (scenarios_from) the scenario is a row of,
	// its lines being that file's; "" for one written in the suite.
	File string
}

// AttachmentRef is a file under fixtures/<agent>/ sent as an attachment.
type AttachmentRef struct {
	File        string // relative to fixtures/<agent>/
	MIME        string // default from the file's extension
	Description string
	Line        int
}

// Turn is one user message and the expectations on the reply to it.
type Turn struct {
	Input  string
	Expect Expect
	// Overrides by variant name replace, for that variant, the fields of
	// Expect they set; see ExpectFor.
	Overrides map[string]Expect
	Line      int
}

// ExpectFor returns the expectations of t for variant: Expect, with each
// field that the variant's override sets (non-nil, non-zero, non-empty)
// replacing the whole of Expect's field. Nested values are shared, not
// copied, and not merged: an override's Route replaces both Mode and Tool.
func (t Turn) ExpectFor(variant string) Expect {
	o, ok := t.Overrides[variant]
	if !ok {
		return t.Expect
	}
	e := t.Expect
	if o.Route != nil {
		e.Route = o.Route
	}
	if o.Tools != nil {
		e.Tools = o.Tools
	}
	if len(o.Args) > 0 {
		e.Args = o.Args
	}
	if o.Tolerance != 0 {
		e.Tolerance = o.Tolerance
	}
	if o.Answer != nil {
		e.Answer = o.Answer
	}
	if len(o.JQ) > 0 {
		e.JQ = o.JQ
	}
	if o.LLMCalls != nil {
		e.LLMCalls = o.LLMCalls
	}
	if o.ToolCalls != nil {
		e.ToolCalls = o.ToolCalls
	}
	if o.Budget != nil {
		e.Budget = o.Budget
	}
	if o.MustCall != nil {
		e.MustCall = o.MustCall
	}
	if o.Chart != nil {
		e.Chart = o.Chart
	}
	if o.Forbid != nil {
		e.Forbid = o.Forbid
	}
	if o.Rubrics != nil {
		e.Rubrics = o.Rubrics
	}
	return e
}

// Expect is everything a turn can be checked for. A nil or empty field is not
// checked.
type Expect struct {
	Line      int // the line of the expect (or per-variant) mapping; 0 when there is none
	Route     *Route
	Tools     *ToolSequence
	Args      map[string]any // subset match against the arguments of Route.Tool's first call, or of the first tool executed
	Tolerance float64        // numeric tolerance for Args; default 1e-6
	Answer    *AnswerExpect
	JQ        []string // gojq expressions over the reply's Data that must yield true
	LLMCalls  *int
	ToolCalls *int
	Budget    *Budget
	// MustCall names tools the turn must execute, in any order, among others.
	MustCall []string
	// Chart expects a chart artifact (a Vega-Lite spec the agent produced).
	Chart *ChartExpect
	// Forbid lists terms the answer must not contain (case-insensitive,
	// whole words).
	Forbid []string
	// Rubrics are graded by the suite's judge (rubric:), each its own
	// check.
	Rubrics []Rubric
}

// Empty reports whether e checks nothing (a tolerance alone is no check).
func (e Expect) Empty() bool {
	return e.Route == nil && e.Tools == nil && len(e.Args) == 0 && e.Answer == nil && len(e.JQ) == 0 &&
		e.LLMCalls == nil && e.ToolCalls == nil && e.Budget == nil && len(e.MustCall) == 0 && e.Chart == nil && len(e.Forbid) == 0 && len(e.Rubrics) == 0
}

// ChartExpect checks the Vega-Lite spec of the turn's last chart artifact.
type ChartExpect struct {
	Mark   string   // the mark type, such as "line"
	Fields []string // fields the encoding must name
	Values *int     // exact number of inlined data values
	None   bool     // no chart may be produced
}

// Route expects a routing decision.
type Route struct {
	Mode string
	Tool string
}

// ToolSequence expects the names of executed tools.
type ToolSequence struct {
	// Match is "exact" (the same list), "ordered" (these, in this order, among
	// others) or "subset" (these, in any order).
	Match   string
	Names   []string
	NotCall []string // tools that must not be executed
}

// AnswerExpect checks the user-visible text.
type AnswerExpect struct {
	Contains    []string
	NotContains []string
	Matches     string // a Go regular expression
	Language    string // "zh" or "en"
}

// Budget bounds a turn's cost.
type Budget struct {
	Latency        time.Duration
	InputTokens    int
	ContextTokens  int
	TokenReduction float64 // at least
}

// DefaultGate is the gate of a suite without a gate block: no drop in pass
// rate or routing accuracy, no extra LLM calls, input tokens +2%, mean
// latency +5%.
func DefaultGate() map[string]float64 {
	return map[string]float64{"pass_rate": 0, "routing_accuracy": 0, "llm_calls_mean": 0, "input_tokens_mean": 0.02, "latency_mean": 0.05}
}

// Goodput is a goodput budget: time to first token and time per output
// token after the first, both at most these.
type Goodput struct {
	TTFT time.Duration
	TPOT time.Duration
}

// JudgedKinds are the check kinds a suite's judged: list may name; a name
// with a dot (answer.not_contains) names one check of its kind.
var JudgedKinds = []string{"route", "tools", "args", "must_call", "answer", "forbid", "chart", "jq", "llm_calls", "tool_calls", "rubric"}

// Judges reports whether the check named name depends on the model's
// judgement, as the suite's judged: list says; a rubric check always does.
func (s *Suite) Judges(name string) bool {
	if strings.HasPrefix(name, "rubric[") {
		return true
	}
	for _, k := range s.Judged {
		if name == k || strings.HasPrefix(name, k+".") {
			return true
		}
	}
	return false
}
