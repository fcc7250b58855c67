// Package runner runs suites × variants × scenarios against cassettes and
// builds a report.Report.
//
// Each scenario gets its own cassette transport, trace, virtual clock and
// agent instance; scenarios run in parallel and are reported in file order,
// except the runs of a program kept alive for its variant (keep_alive:
// variant), which run one after the other in report order, so that the
// program sees them in the same order every time.
// In record mode the runner starts the loopback stand-ins (the stand-in model
// and the fixture upstreams) and routes the agents' logical hosts to them.
package runner

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/tokens"
	"golang.org/x/sync/errgroup"
)

// Options configure a run. Root and Agents are required.
type Options struct {
	Mode cassette.Mode
	// Proxy, when set, puts the proxy between every agent and its
	// cassette, as for an agent outside testbed: the agent is given the
	// session's base URLs and calls them over loopback HTTP. The results
	// are those of a run without it (a spec checks every committed suite).
	Proxy *proxy.Proxy
	// Root is the project folder holding cassettes/, fixtures/ and scenarios/.
	Root   string
	Agents map[string]agents.Entry
	// Variant and Scenario keep only the named ones when set.
	Variant, Scenario string
	// Parallel bounds concurrent scenarios (default GOMAXPROCS).
	Parallel int
	// Timeout bounds one scenario (default 2 minutes).
	Timeout time.Duration
	// Model replaces the agents' model endpoints (record or live against a
	// real provider); Secrets holds its key under Model.KeyEnv.
	Model   *llm.Endpoint
	Secrets map[string]string
	// Redact lists more literal values (for example every key variable set
	// in the environment) that recordings replace by REDACTED wherever they
	// appear; the values in Secrets always are.
	Redact []string
	// Routes sends logical hosts to other base URLs in record and live modes
	// (the loopback stand-ins); see StartStandIns.
	Routes map[string]string
	// AllowNetwork lets record and live modes send requests for hosts
	// without a route to the network (a real provider or real upstreams).
	// Without it such a request fails, so nothing leaves the machine by
	// accident.
	AllowNetwork bool
	// Shard and Shards run a deterministic slice: the Shard-th (1-based) of
	// Shards; Shards ≤ 1 runs everything. See Merge.
	Shard, Shards int
	// Sent keeps what every model request carried in the trace: its last
	// message (trace.LLMCall.Sent) and the whole request
	// (trace.LLMCall.Prompt), for testbed show and the HTML report; a whole
	// run does without unless asked, as a request can hold whole payloads.
	Sent bool
	// Repeat, when above 0, is the number of samples a recording keeps per
	// scenario instead of the suite's own (scenario.Suite.Samples); a
	// replay runs the suite's (see SamplePath).
	Repeat int
	// Pruned, if set, is told after a recording of fewer samples than
	// there are cassettes of a scenario (Repeat) how many it recorded,
	// which earlier sample cassettes it kept, the suite declaring them,
	// and which it removed, beyond the suite's samples: a cassette never
	// goes silently. It is called one scenario at a time, with sample
	// numbers.
	Pruned func(suite, variant, id string, recorded int, kept, removed []int)
	// Progress, if set, is called after each scenario run (each sample of
	// each scenario of each variant) finishes, one call at a time, with the
	// runs done and the total: the runner draws no progress itself.
	Progress func(done, total int, suite, variant, id string)
	// Rerecord, if set, returns the command that records one scenario
	// again, which stale and missing-cassette diagnoses end with; by
	// default it is testbed record --suite S --variant V --scenario ID.
	// A caller that runs agents testbed does not know (package replaytest)
	// names its own.
	Rerecord func(suite, variant, scenario string) string
	// Prices prices every model call (testbed --prices FILE); nil uses
	// each suite's prices: file, else testbed's own table (cost.Default).
	Prices *cost.Table
	// Budget, when set, caps what a recording spends on model calls
	// (record --max-cost); replays ignore it.
	Budget *Budget
	// Limits pace a recording's model requests (record --rpm, --tpm); nil
	// is no limit.
	Limits *Limits
	// Sleep waits out a provider's Retry-After while recording, and Now
	// reads the time a Retry-After given as a date is counted from
	// (default: the wall clock's); specs inject their own.
	Sleep func(context.Context, time.Duration) error
	Now   func() time.Time
	// Judge replaces the suites' graders with a real model (record
	// --judge-provider), reached over the network; its key is in Secrets
	// under its KeyEnv. Without it a recording grades against the stand-in
	// judge, through JudgeRoutes (StandIns.Judges), or Routes when nil.
	Judge       *llm.Endpoint
	JudgeRoutes map[string]string
}

// job is one scenario under one variant, run once per sample.
type job struct {
	suite    *scenario.Suite
	variant  scenario.Variant
	scenario scenario.Scenario
	out      *report.Scenario
	runs     []report.Scenario // one per sample, folded into out
	// prov is the provenance of sample 1's cassette, once replayed, so
	// that the report need not read the file again.
	prov *cassette.Provenance
	// data and prompts are the run's snapshots of the agent's fixtures and
	// of scenarios/ (nil when missing), shared by every job of the run.
	data, prompts fs.FS
	// caches are the run's, shared by every job of the run.
	caches *caches
	// detector redacts the suite's cassettes (see Detector).
	detector *cassette.Detector
	// pricer prices the model calls of the job's runs.
	pricer cost.Pricer
}

// caches hold what a run builds once and every scenario of it reuses: the
// agents' indexes over their data, and the checks' regular expressions.
type caches struct {
	agents  agents.Cache
	regexps check.Regexps
}

// task is one sample of a job.
type task struct {
	job    *job
	sample int // 1-based
}

// Run runs suites and returns the report. Scenario failures are in the
// report, not in the error; the error is for things that stop the run.
func Run(ctx context.Context, suites []*scenario.Suite, opts Options) (*report.Report, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	rep := &report.Report{SchemaVersion: report.SchemaVersion, Mode: opts.Mode.String()}
	var jobs []job
	counters := newCounters(suites)
	// What the run writes is redacted with the values of the key variables
	// set here, whatever the mode: a report holds what the agent sent.
	names, values := KeyVariables(opts.Agents), append(literals(opts), KeyValues(opts.Agents)...)
	base, err := Detector(nil, values, names)
	if err != nil {
		return nil, err
	}
	detectors := map[*scenario.Suite]*cassette.Detector{}
	for _, s := range suites {
		if detectors[s], err = Detector([]*scenario.Suite{s}, values, names); err != nil {
			return nil, err
		}
	}
	pricers := map[*scenario.Suite]cost.Pricer{}
	for _, s := range suites {
		if _, ok := opts.Agents[s.Agent]; !ok {
			return nil, fmt.Errorf("%s: unknown agent %q", s.Path, s.Agent)
		}
		if err := tokens.Check(s.Tokenizer); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		p, err := pricer(s, opts)
		if err != nil {
			return nil, err
		}
		pricers[s] = p
		rs := report.Suite{Name: s.Name, Agent: s.Agent, Tokenizer: tokenizerName(s), Baseline: s.Baseline, About: s.About, ReductionWithout: s.ReductionWithout, NotGating: s.NotGating,
			Prices: p.Table.Origin}
		for _, v := range s.Variants {
			// A replay always runs the baseline, which thresholds and deltas
			// compare to; a recording records only what was asked for.
			keepBaseline := opts.Mode == cassette.ModeReplay && v.Name == s.Baseline
			if opts.Variant != "" && v.Name != opts.Variant && !keepBaseline {
				continue
			}
			rs.Variants = append(rs.Variants, report.Variant{Name: v.Name, Description: v.Description})
		}
		rep.Suites = append(rep.Suites, rs)
	}
	// Reserve every result slot before starting, so that pointers stay put.
	// A shard keeps every Shards-th scenario × variant pair, counting all
	// pairs of all suites in order, so the shards of a run are disjoint and
	// together are the whole run.
	k := 0
	inShard := func() bool {
		k++
		return opts.Shards <= 1 || (k-1)%opts.Shards == opts.Shard-1
	}
	prompts := Snapshot(filepath.Join(opts.Root, "scenarios"))
	shared := &caches{}
	// What the agents hold open for the run (agents.Hold) ends with it.
	defer shared.agents.Close()
	data := map[string]fs.FS{}
	for si, s := range suites {
		if _, ok := data[s.Agent]; !ok {
			data[s.Agent] = Snapshot(filepath.Join(opts.Root, "fixtures", s.Agent))
		}
		for vi := range rep.Suites[si].Variants {
			rv := &rep.Suites[si].Variants[vi]
			v := variantByName(s, rv.Name)
			var picked []scenario.Scenario
			for _, sc := range s.Scenarios {
				if (opts.Scenario == "" || sc.ID == opts.Scenario) && inShard() {
					picked = append(picked, sc)
				}
			}
			for _, sc := range picked {
				rv.Scenarios = append(rv.Scenarios, report.Scenario{ID: sc.ID, Criterion: sc.Criterion})
			}
			for i, sc := range picked {
				// The suite says how many samples a scenario has: a replay
				// that finds fewer calls the missing ones stale.
				n := max(1, s.Samples)
				if opts.Mode != cassette.ModeReplay && opts.Repeat > 0 {
					n = opts.Repeat
				}
				jobs = append(jobs, job{suite: s, variant: v, scenario: sc, out: &rv.Scenarios[i], runs: make([]report.Scenario, n),
					data: data[s.Agent], prompts: prompts, caches: shared, detector: detectors[s], pricer: pricers[s]})
			}
		}
	}
	if opts.Shards > 1 {
		rep.Shard = &report.Shard{Index: opts.Shard, Count: opts.Shards, Pairs: len(jobs), Total: k}
	}
	var tasks []task
	size := map[task]int64{}
	for i := range jobs {
		j := &jobs[i]
		for k := range j.runs {
			t := task{job: j, sample: k + 1}
			tasks = append(tasks, t)
			if st, err := os.Stat(cassette.SamplePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, t.sample)); err == nil {
				size[t] = st.Size()
			}
		}
	}
	// Start the longest runs first (by cassette size), so that the last
	// ones to finish are short and no core idles at the end; results go to
	// their reserved slots, so the order of the report is unchanged. The
	// runs of a program kept alive for its variant go together, in report
	// order, so that it serves them in the same order every time.
	units := chains(tasks, opts)
	weight := func(u chain) (n int64) {
		for _, t := range u.tasks {
			n += size[t]
		}
		return n
	}
	slices.SortStableFunc(units, func(a, b chain) int { return cmp.Compare(weight(b), weight(a)) })

	var g errgroup.Group
	g.SetLimit(opts.Parallel)
	var mu sync.Mutex
	done := 0
	for _, u := range units {
		if ctx.Err() != nil {
			break // interrupted: start nothing new, keep every other cassette as it is
		}
		g.Go(func() error {
			var earlier []keptRun // what the runs before said, to the program that served them
			for _, t := range u.tasks {
				if ctx.Err() != nil {
					return nil // interrupted while waiting for a free slot
				}
				j := t.job
				j.runs[t.sample-1] = runOne(ctx, j, t.sample, opts, counters[j.suite.Tokenizer], u.key, earlier)
				if len(u.tasks) > 1 {
					earlier = append(earlier, keptRunOf(j, t.sample, j.runs[t.sample-1]))
				}
				if opts.Progress != nil {
					mu.Lock()
					done++
					opts.Progress(done, len(tasks), j.suite.Name, j.variant.Name, j.scenario.ID)
					mu.Unlock()
				}
			}
			return nil
		})
	}
	_ = g.Wait() // no task returns an error: a scenario's failure is in its report
	for i := range jobs {
		foldSamples(&jobs[i], opts)
	}
	if err := ctx.Err(); err != nil {
		if rerr := redactReport(rep, suites, detectors, base); rerr != nil {
			return nil, rerr
		}
		return rep, err
	}
	provs := map[string]cassette.Provenance{}
	for _, j := range jobs {
		if j.prov != nil {
			provs[cassette.Path(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID)] = *j.prov
		}
	}
	finalize(rep, suites, opts, provs)
	if err := redactReport(rep, suites, detectors, base); err != nil {
		return nil, err
	}
	return rep, nil
}

// counter is a token counter being made: its encoding is built in the
// background (tens of milliseconds of one core), while the first scenarios
// read their cassettes, and get waits for it.
type counter struct {
	ready chan struct{}
	c     *tokens.Counter
	err   error
}

// get returns the counter, or the error of making it, once made.
func (c *counter) get() (*tokens.Counter, error) {
	<-c.ready
	return c.c, c.err
}

// newCounters starts making one token counter per encoding the suites use,
// all at the same time.
func newCounters(suites []*scenario.Suite) map[string]*counter {
	out := map[string]*counter{}
	for _, s := range suites {
		if out[s.Tokenizer] != nil {
			continue
		}
		c := &counter{ready: make(chan struct{})}
		out[s.Tokenizer] = c
		go func(name string) {
			defer close(c.ready)
			c.c, c.err = tokens.New(name)
		}(s.Tokenizer)
	}
	return out
}

// foldSamples puts a job's runs into its report slot. After a recording in
// which every sample succeeded, sample cassettes beyond the ones just
// recorded are kept up to the suite's samples, which a replay runs, and
// removed beyond, so a replay finds exactly those; Pruned is told both.
func foldSamples(j *job, opts Options) {
	var runs []report.Scenario
	for _, r := range j.runs {
		if r.ID != "" { // an interrupted run leaves later samples unrun
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return
	}
	*j.out = report.Sample(runs, j.suite.MinSamplePassRate)
	if opts.Mode != cassette.ModeRecord || len(runs) < len(j.runs) {
		return
	}
	for _, r := range runs {
		if r.Verdict == report.VerdictError {
			return
		}
	}
	path := func(k int) string {
		return cassette.SamplePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, k)
	}
	declared := max(1, j.suite.Samples)
	var kept, removed []int
	for k := len(runs) + 1; k <= declared; k++ {
		if _, err := os.Stat(path(k)); err == nil {
			kept = append(kept, k)
		}
	}
	for k := max(len(runs), declared) + 1; os.Remove(path(k)) == nil; k++ {
		removed = append(removed, k)
		// The sample's grades go with it.
		os.Remove(cassette.JudgePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, k))
	}
	if opts.Pruned != nil && len(kept)+len(removed) > 0 {
		opts.Pruned(j.suite.Name, j.variant.Name, j.scenario.ID, len(runs), kept, removed)
	}
}

func tokenizerName(s *scenario.Suite) string {
	if s.Tokenizer == "" {
		return tokens.EncodingO200K
	}
	return s.Tokenizer
}

func variantByName(s *scenario.Suite, name string) scenario.Variant {
	for _, v := range s.Variants {
		if v.Name == name {
			return v
		}
	}
	return scenario.Variant{Name: name}
}
