// Package runner runs suites × variants × scenarios against cassettes and
// builds a report.Report.
//
// Each scenario gets its own cassette transport, trace, virtual clock and
// agent instance; scenarios run in parallel and are reported in file order.
// In record mode the runner starts the loopback stand-ins (the stand-in model
// and the fixture upstreams) and routes the agents' logical hosts to them.
package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/provider"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/trace"

	"github.com/agentreplay/testbed/harness/files"
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
	// Sent keeps the last message of every model request in the trace
	// (trace.LLMCall.Sent), for testbed show; a whole run does without,
	// as that message can be a whole payload.
	Sent bool
	// Repeat, when above 0, is the number of samples a recording keeps per
	// scenario instead of the suite's own (scenario.Suite.Samples); a
	// replay runs the suite's (see SamplePath).
	Repeat int
	// Progress, if set, is called after each scenario (each sample) finishes.
	Progress func(done, total int, suite, variant, id string)
	// Rerecord, if set, returns the command that records one scenario
	// again, which stale and missing-cassette diagnoses end with; by
	// default it is testbed record --suite S --variant V --scenario ID.
	// A caller that runs agents testbed does not know (package replaytest)
	// names its own.
	Rerecord func(suite, variant, scenario string) string
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
	for _, s := range suites {
		if _, ok := opts.Agents[s.Agent]; !ok {
			return nil, fmt.Errorf("%s: unknown agent %q", s.Path, s.Agent)
		}
		if err := tokens.Check(s.Tokenizer); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		rs := report.Suite{Name: s.Name, Agent: s.Agent, Tokenizer: tokenizerName(s), Baseline: s.Baseline, About: s.About, ReductionWithout: s.ReductionWithout, NotGating: s.NotGating}
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
	prompts := snapshotOf(filepath.Join(opts.Root, "scenarios"))
	data := map[string]fs.FS{}
	for si, s := range suites {
		if _, ok := data[s.Agent]; !ok {
			data[s.Agent] = snapshotOf(filepath.Join(opts.Root, "fixtures", s.Agent))
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
					data: data[s.Agent], prompts: prompts})
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
			if st, err := os.Stat(SamplePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, t.sample)); err == nil {
				size[t] = st.Size()
			}
		}
	}
	// Start the longest runs first (by cassette size), so that the last
	// ones to finish are short and no core idles at the end; results go to
	// their reserved slots, so the order of the report is unchanged.
	slices.SortStableFunc(tasks, func(a, b task) int { return cmp.Compare(size[b], size[a]) })

	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for _, t := range tasks {
		if ctx.Err() != nil {
			break // interrupted: start nothing new, keep every other cassette as it is
		}
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break // interrupted while waiting for a free slot
		}
		wg.Add(1)
		go func(t task) {
			defer wg.Done()
			defer func() { <-sem }()
			j := t.job
			j.runs[t.sample-1] = runOne(ctx, j, t.sample, opts, counters[j.suite.Tokenizer])
			if opts.Progress != nil {
				mu.Lock()
				done++
				opts.Progress(done, len(tasks), j.suite.Name, j.variant.Name, j.scenario.ID)
				mu.Unlock()
			}
		}(t)
	}
	wg.Wait()
	for i := range jobs {
		foldSamples(&jobs[i], opts)
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	provs := map[string]cassette.Provenance{}
	for _, j := range jobs {
		if j.prov != nil {
			provs[CassettePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID)] = *j.prov
		}
	}
	finalize(rep, suites, opts, provs)
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
// recorded are removed, so a replay finds exactly those.
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
	for k := len(runs) + 1; ; k++ {
		if os.Remove(SamplePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, k)) != nil {
			return
		}
	}
}

// Finalize computes, from the scenario results of rep, each variant's
// summary, confusion matrix, trimming table, provenance and thresholds,
// and in replay mode the replay statistics. Run calls it; so does a merge
// of shard reports, which gives the same report as an unsharded run.
func Finalize(rep *report.Report, suites []*scenario.Suite, opts Options) {
	finalize(rep, suites, opts, nil)
}

// finalize is Finalize with the provenance of the cassettes the run has
// already read, by path, so that they are not parsed again.
func finalize(rep *report.Report, suites []*scenario.Suite, opts Options, provs map[string]cassette.Provenance) {
	for si, s := range suites {
		rs := &rep.Suites[si]
		var base *report.Summary
		for vi := range rs.Variants {
			rv := &rs.Variants[vi]
			rv.Summary = report.Summarize(rv.Scenarios)
			if g := s.Goodput; g != nil {
				rv.Summary.Streaming = report.SummarizeStreams(rv.Scenarios, &report.Budget{TTFT: g.TTFT, TPOT: g.TPOT})
			}
			rv.Confusion = report.Confusion(rv.Scenarios)
			rv.Trimming = report.Trimming(rv.Scenarios)
			rv.Provenance = provenance(opts, s, rv.Name, provs)
			if e, ok := opts.Agents[s.Agent]; ok {
				rv.Provider = endpoint(opts, e.Info, variantByName(s, rv.Name)).Provider
			}
			if rv.Name == s.Baseline {
				b := rv.Summary
				base = &b
			}
		}
		for vi := range rs.Variants {
			if opts.Shards > 1 {
				break // a shard's summaries are partial: thresholds are judged on the merge
			}
			rv := &rs.Variants[vi]
			ths := s.Thresholds[rv.Name]
			b := base
			if rv.Name == s.Baseline {
				b = nil
			} else if base == nil {
				// The baseline was not run (a filtered recording): what
				// compares to it cannot be evaluated, so it is left out.
				ths = slices.DeleteFunc(slices.Clone(ths), func(t scenario.Threshold) bool { return t.Baseline })
			}
			for _, th := range ths {
				tb := b
				if th.Against != "" {
					if other := findVariant(rs, th.Against); other != nil {
						tb = &other.Summary
					} else {
						// The named variant was not run (filtered out).
						continue
					}
				}
				rv.Thresholds = append(rv.Thresholds, check.Thresholds([]scenario.Threshold{th}, rv.Summary, tb)...)
			}
		}
	}
	if opts.Mode == cassette.ModeReplay {
		rep.Replay = replayStats(rep, suites, opts)
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

// CassettePath is where the cassette of one scenario under one variant lives.
func CassettePath(root, suite, variant, id string) string {
	return SamplePath(root, suite, variant, id, 1)
}

// SamplePath is where sample k (1-based) of a scenario's cassettes lives:
// <id>.yaml for the first, <id>.sample<k>.yaml for the others.
func SamplePath(root, suite, variant, id string, k int) string {
	name := id + ".yaml"
	if k > 1 {
		name = fmt.Sprintf("%s.sample%d.yaml", id, k)
	}
	return filepath.Join(root, "cassettes", suite, variant, name)
}

// provenance describes where a variant's numbers came from: the cassettes'
// provenance in replay (the first cassette's, unless another names the
// stand-in policy that answered: the generic plumbing stand-in), the
// endpoint in record and live, or the generic plumbing stand-in when the
// recordings say it answered.
func provenance(opts Options, s *scenario.Suite, variant string, known map[string]cassette.Provenance) string {
	// A record-missing run replayed what its cassettes hold.
	replay := opts.Mode == cassette.ModeReplay || opts.Mode == cassette.ModeRecordMissing
	var first *cassette.Provenance
	for _, sc := range s.Scenarios {
		path := CassettePath(opts.Root, s.Name, variant, sc.ID)
		p, ok := known[path]
		if !ok {
			if first != nil || !replay {
				continue // a cassette the run did not read: not parsed again
			}
			var err error
			if p, err = cassette.ReadProvenance(path); err != nil {
				continue
			}
		}
		if p.Policy != "" {
			if replay {
				return "replayed from " + p.String()
			}
			return p.String()
		}
		if first == nil {
			first = &p
		}
	}
	switch {
	case !replay && opts.Model == nil:
		return cassette.StandIn(endpoint(opts, opts.Agents[s.Agent].Info, variantByName(s, variant)).Model, "")
	case !replay:
		ep := endpoint(opts, opts.Agents[s.Agent].Info, variantByName(s, variant))
		return ep.Provider + " " + ep.Model
	case first == nil:
		return ""
	}
	return "replayed from " + first.String()
}

// endpoint is the model a scenario runs against: the one given on the
// command line, else the variant's, else the agent's own. A command-line
// model of the variant's provider keeps the variant's API, so that a
// Responses variant records a real model over the Responses API.
func endpoint(opts Options, info agents.Info, v scenario.Variant) llm.Endpoint {
	switch {
	case opts.Model != nil:
		ep := *opts.Model
		if v.Endpoint != nil && v.Endpoint.Provider == ep.Provider && ep.API == "" {
			ep.API = v.Endpoint.API
		}
		return ep
	case v.Endpoint != nil:
		return *v.Endpoint
	}
	return info.Model
}

// literals returns the secret values a cassette must never hold.
func literals(opts Options) []string {
	out := append([]string(nil), opts.Redact...)
	for _, k := range slices.Sorted(maps.Keys(opts.Secrets)) {
		out = append(out, opts.Secrets[k])
	}
	return out
}

// runOne runs one sample of a scenario and checks it.
func runOne(ctx context.Context, j *job, sample int, opts Options, pending *counter) report.Scenario {
	out := report.Scenario{ID: j.scenario.ID, Criterion: j.scenario.Criterion, Checks: []report.Check{}}
	entry := opts.Agents[j.suite.Agent]
	ep := endpoint(opts, entry.Info, j.variant)
	tr := &trace.Trace{}
	var staleMu sync.Mutex
	var stale error
	var failedExchange atomic.Bool

	path := SamplePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, sample)
	rerecord := fmt.Sprintf("testbed record --suite %s --variant %s --scenario %s", j.suite.Name, j.variant.Name, j.scenario.ID)
	if len(j.runs) != max(1, j.suite.Samples) {
		rerecord += fmt.Sprintf(" --repeat %d", len(j.runs))
	}
	switch {
	case opts.Rerecord != nil:
		rerecord = opts.Rerecord(j.suite.Name, j.variant.Name, j.scenario.ID)
	case opts.Root != "" && filepath.Clean(opts.Root) != ".":
		// A project root of its own (an example's): the command must name it.
		rerecord += " --root " + opts.Root
	}
	copts := cassette.Options{
		Real: &routing{hosts: opts.Routes, mode: opts.Mode, network: opts.AllowNetwork, sample: sample,
			faults: newFaultPlan(j.suite, j.scenario, sample)},
		Provenance: cassette.Provenance{
			Provider: ep.Provider, Endpoint: ep.BaseURL, Model: ep.Model,
			StandIn: opts.Model == nil, Upstream: "fixtures",
		},
		Rerecord: rerecord,
		Secrets:  literals(opts),
		Observe: func(e cassette.Exchange) {
			ev := trace.Event{Kind: trace.KindHTTP, HTTP: &trace.Exchange{Method: e.Method, URL: e.URL, Status: e.Status, Duration: e.Duration, Fault: e.Fault, Stream: e.Stream}}
			if e.Timeout != nil {
				// The agent's own deadline: an outcome to judge, recorded
				// like any other exchange.
				ev.HTTP.Error = e.Timeout.Error()
			}
			if e.Err != nil {
				failedExchange.Store(true)
				ev.HTTP.Error = e.Err.Error()
				if errors.Is(e.Err, cassette.ErrStale) {
					staleMu.Lock()
					if stale == nil {
						stale = e.Err
					}
					staleMu.Unlock()
				}
			}
			tr.Add(ev)
			tr.Advance(e.Duration)
		},
	}
	tp, err := cassette.Open(opts.Mode, path, copts)
	if err != nil {
		out.Verdict, out.Error = report.VerdictStale, err.Error()
		switch {
		case errors.Is(err, cassette.ErrNotFound):
			out.Error += fmt.Sprintf("; record it with: %s", copts.Rerecord)
		case errors.Is(err, cassette.ErrCorrupt), errors.Is(err, cassette.ErrVersion):
			// Recording writes the whole file again, so it is the fix.
			out.Error += fmt.Sprintf("; re-record it with: %s", copts.Rerecord)
		default:
			out.Verdict, out.Unreadable = report.VerdictError, true
		}
		return out
	}
	if r, ok := tp.(interface{ Provenance() cassette.Provenance }); ok && sample == 1 {
		p := r.Provenance()
		j.prov = &p
	}
	waited := &wallClock{}
	hc := &http.Client{Transport: timeouts{next: waited.around(tp)}}
	if opts.Proxy != nil {
		// The same cassette, reached over loopback HTTP through a session.
		rt, end := throughProxy(opts.Proxy, tp, ep, entry.Info.Embeddings, entry.Info.Upstreams)
		defer end()
		hc = &http.Client{Transport: timeouts{next: rt}}
	}

	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	key := opts.Secrets[ep.KeyEnv]
	if key == "" && (opts.Mode == cassette.ModeReplay || opts.Model == nil) {
		// Replays and stand-ins need no key, but some SDKs insist on one;
		// it is redacted from cassettes like any key.
		key = cassette.PlaceholderKey
	}
	model, err := provider.New(ctx, ep, key, hc)
	if err != nil {
		out.Verdict, out.Error = report.VerdictError, err.Error()
		return out
	}
	var embedder llm.Embedder
	if e := entry.Info.Embeddings; e != nil {
		if embedder, err = provider.NewEmbedder(*e, opts.Secrets[e.KeyEnv], hc); err != nil {
			out.Verdict, out.Error = report.VerdictError, err.Error()
			return out
		}
	}
	secrets := map[string]string{}
	for k, v := range opts.Secrets {
		secrets[k] = v
	}
	for _, k := range entry.Info.Keys {
		if secrets[k] == "" && (opts.Mode == cassette.ModeReplay || !opts.AllowNetwork) {
			secrets[k] = cassette.PlaceholderKey
		}
	}
	// The cassette is read: now the token counter is needed.
	counter, err := pending.get()
	if err != nil {
		out.Verdict, out.Error = report.VerdictError, err.Error()
		return out
	}
	tracer := &tracer{trace: tr, counter: counter, sent: opts.Sent}
	cfg := agents.Config{
		Model:     &countingModel{next: model, trace: tr, counter: counter, model: ep.Model, sent: opts.Sent},
		Endpoint:  ep,
		Embedder:  embedder,
		HTTP:      hc,
		Clock:     func() time.Time { return j.suite.Clock.Add(tr.Elapsed()) },
		Tracer:    tracer,
		Upstreams: entry.Info.Upstreams,
		Variant:   j.variant.Config,
		Secrets:   secrets,
		Logger:    slog.New(&traceHandler{trace: tr}),
		Data:      j.data,
		Prompts:   j.prompts,
	}
	var ans agents.Answer
	agent, err := entry.New(cfg)
	if err == nil {
		in := agents.Input{}
		for _, t := range j.scenario.Turns {
			in.Turns = append(in.Turns, t.Input)
		}
		in.Attachments, err = loadAttachments(filepath.Join(opts.Root, "fixtures", j.suite.Agent), j.scenario.Attachments)
		if err == nil {
			began := time.Now()
			ans, out.Crashed, err = runAgent(ctx, agent, in)
			out.Processing = max(0, time.Since(began)-waited.total())
		}
	}
	timedOut := ctx.Err() != nil
	switch {
	case parent.Err() != nil:
		// Interrupted: whatever the agent managed is not a complete recording.
		err = fmt.Errorf("interrupted: %w", parent.Err())
	case timedOut && err == nil:
		err = fmt.Errorf("scenario stopped after %s: %w", opts.Timeout, ctx.Err())
	}
	var closeErr error
	if rec, ok := tp.(interface{ Abort() }); ok && (err != nil || failedExchange.Load()) {
		// A recording that did not complete never replaces the cassette.
		rec.Abort()
		if err == nil {
			err = fmt.Errorf("recording aborted after a failed request; the previous cassette is kept")
		}
	} else {
		closeErr = tp.Close()
		if r, ok := tp.(*cassette.Recorder); ok && closeErr == nil && sample == 1 {
			// What the recording learnt: the stand-in policy that answered.
			p := r.Provenance()
			j.prov = &p
		}
	}
	events := tr.Events()
	out.Events = events
	out.Metrics = trace.Measure(events)
	for _, r := range ans.Replies {
		out.Answer = append(out.Answer, r.Text)
	}

	for i, t := range j.scenario.Turns {
		if t.Expect.Route != nil && out.ExpectedRoute == "" {
			out.ExpectedRoute = check.FormatRoute(t.Expect.Route)
			out.Route = check.ObservedRoute(trace.OfTurn(events, i))
		}
		if i < len(ans.Replies) {
			out.Checks = append(out.Checks, check.Turn(i, t.ExpectFor(j.variant.Name), ans.Replies[i], trace.OfTurn(events, i))...)
		}
	}
	if out.Route == "" {
		out.Route = check.ObservedRoute(events)
	}
	if p, ok := tp.(*cassette.Patcher); ok && closeErr == nil {
		out.Recorded, out.Dropped = p.Recorded(), p.Dropped()
	}
	if r, ok := tp.(interface{ Unplayed() []string }); ok {
		unplayed := r.Unplayed()
		out.Unplayed = len(unplayed)
		if len(unplayed) > 0 && stale == nil && !timedOut {
			out.Checks = append(out.Checks, report.Check{Name: "cassette.unplayed", Detail: fmt.Sprintf(
				"%d recorded interactions were not replayed (first: %s); the agent made fewer or other calls than recorded: %s",
				len(unplayed), unplayed[0], copts.Rerecord)})
		}
	}

	for i := range out.Checks {
		out.Checks[i].Judged = j.suite.Judges(out.Checks[i].Name)
	}
	switch {
	case stale != nil:
		out.Verdict, out.Error = report.VerdictStale, stale.Error()
	case err != nil:
		out.Verdict, out.Error = report.VerdictError, err.Error()
	case closeErr != nil:
		out.Verdict, out.Error = report.VerdictError, closeErr.Error()
	case len(ans.Replies) != len(j.scenario.Turns):
		out.Verdict, out.Error = report.VerdictError, fmt.Sprintf("agent answered %d of %d turns", len(ans.Replies), len(j.scenario.Turns))
	default:
		out.Verdict = report.VerdictPass
		for _, c := range out.Checks {
			if !c.Pass {
				out.Verdict = report.VerdictFail
			}
		}
	}
	return out
}

// runAgent runs the agent, turning a panic into an error: one broken
// scenario never stops the run.
func runAgent(ctx context.Context, agent agents.Agent, in agents.Input) (ans agents.Answer, crashed bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ans, crashed, err = agents.Answer{}, true, fmt.Errorf("agent panicked: %v", r)
		}
	}()
	ans, err = agent.Run(ctx, in)
	return ans, false, err
}

// loadAttachments reads a scenario's attachment files from dir.
func loadAttachments(dir string, refs []scenario.AttachmentRef) ([]agents.Attachment, error) {
	var out []agents.Attachment
	for _, r := range refs {
		data, err := files.ReadRegular(filepath.Join(dir, filepath.FromSlash(r.File)), files.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("attachment %s: %w", r.File, err)
		}
		m := r.MIME
		if m == "" {
			m = mimeOf(r.File)
		}
		out = append(out, agents.Attachment{Name: filepath.Base(r.File), MIME: m, Description: r.Description, Data: data})
	}
	return out, nil
}

// mimeOf guesses a MIME type from a file name, without the charset.
func mimeOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return "application/json"
	case ".csv":
		return "text/csv"
	case ".txt", ".md", ".log":
		return "text/plain"
	}
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return strings.SplitN(t, ";", 2)[0]
	}
	return "application/octet-stream"
}

func findVariant(s *report.Suite, name string) *report.Variant {
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i]
		}
	}
	return nil
}

// replayStats counts what a replay used of the cassettes and, when nothing
// was filtered out, lists the cassette files no scenario owns.
func replayStats(rep *report.Report, suites []*scenario.Suite, opts Options) *report.ReplayStats {
	st := &report.ReplayStats{UnusedCassettes: []string{}}
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				for _, r := range sc.Runs() {
					st.Replayed += r.Replayed
					st.Recorded += r.Unplayed
				}
			}
		}
	}
	st.Recorded += st.Replayed
	if opts.Variant != "" || opts.Scenario != "" || opts.Shards > 1 {
		return st
	}
	for _, s := range suites {
		owned := map[string]bool{}
		for _, v := range s.Variants {
			for _, sc := range s.Scenarios {
				for k := range max(1, s.Samples) {
					owned[SamplePath(opts.Root, s.Name, v.Name, sc.ID, k+1)] = true
				}
			}
		}
		dir := filepath.Join(opts.Root, "cassettes", s.Name)
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") && !files.IsTemp(path) && !owned[path] {
				rel, _ := filepath.Rel(opts.Root, path)
				st.UnusedCassettes = append(st.UnusedCassettes, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	return st
}

// Merge joins the reports of the shards of one run into the report of the
// whole run: each variant's scenarios in suite order, then Finalize.
func Merge(parts []*report.Report, suites []*scenario.Suite, opts Options) (*report.Report, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	rep := &report.Report{SchemaVersion: report.SchemaVersion, Mode: parts[0].Mode}
	for _, s := range suites {
		rs := report.Suite{Name: s.Name, Agent: s.Agent, Tokenizer: tokenizerName(s), Baseline: s.Baseline, About: s.About, ReductionWithout: s.ReductionWithout, NotGating: s.NotGating}
		for _, v := range s.Variants {
			rv := report.Variant{Name: v.Name, Description: v.Description}
			found := false
			for _, sc := range s.Scenarios {
				for _, p := range parts {
					if got, ok := findScenario(p, s.Name, v.Name, sc.ID); ok {
						rv.Scenarios = append(rv.Scenarios, got)
						found = true
						break
					}
				}
			}
			if found {
				rs.Variants = append(rs.Variants, rv)
			}
		}
		rep.Suites = append(rep.Suites, rs)
	}
	opts.Shard, opts.Shards = 0, 0
	Finalize(rep, suites, opts)
	return rep, nil
}

func findScenario(r *report.Report, suite, variant, id string) (report.Scenario, bool) {
	for _, s := range r.Suites {
		if s.Name != suite {
			continue
		}
		for _, v := range s.Variants {
			if v.Name != variant {
				continue
			}
			for _, sc := range v.Scenarios {
				if sc.ID == id {
					return sc, true
				}
			}
		}
	}
	return report.Scenario{}, false
}
