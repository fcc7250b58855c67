package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/provider"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/trace"
)

// literals returns the secret values a cassette must never hold.
func literals(opts Options) []string {
	out := append([]string(nil), opts.Redact...)
	for _, k := range slices.Sorted(maps.Keys(opts.Secrets)) {
		out = append(out, opts.Secrets[k])
	}
	return out
}

// runOne runs one sample of a scenario and checks it, step by step: plan
// the run, open its cassette, configure the agent, execute it, judge what it
// did and finalize the verdict. A step that cannot go on leaves the result
// with its verdict and error. kept names the kept-alive program that serves
// it ("" for none), earlier are the runs it served before this one, in
// order (see keptState).
func runOne(ctx context.Context, j *job, sample int, opts Options, pending *counter, kept string, earlier []keptRun) report.Scenario {
	r := plan(j, sample, opts)
	r.kept, r.earlier = kept, earlier
	if !r.open() {
		return r.out
	}
	defer r.connect()()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cfg, ok := r.configure(ctx, pending)
	if !ok {
		return r.out
	}
	r.execute(ctx, parent, cfg)
	r.grade(ctx)
	r.save()
	r.judge()
	r.finalize()
	if g := r.guard; g != nil {
		reserved, spent := g.reserved, r.out.Metrics.CostUSD
		if gg := r.graderGuard; gg != nil {
			reserved += gg.reserved
		}
		g.budget.settle(reserved, spent+r.gradeSpent)
	}
	r.out.Retries, r.out.RetryWait = r.retry.counts()
	return r.out
}

// sampleRun is one sample of a scenario on its way through runOne.
type sampleRun struct {
	j      *job
	sample int
	opts   Options
	entry  agents.Entry
	ep     llm.Endpoint
	tr     *trace.Trace
	copts  cassette.Options
	out    report.Scenario

	staleMu sync.Mutex // guards stale and failure
	stale   error      // the first stale exchange
	failure string     // the first failed exchange: its method, URL and error
	failed  atomic.Bool

	tp     *cassette.Session
	waited *wallClock
	hc     *http.Client

	ans      agents.Answer
	err      error // the agent's, or the run's
	closeErr error // the cassette's, when closed
	unsaved  bool  // a completed recording, to save once graded
	timedOut bool
	kept     string    // the kept-alive program that serves the run (chain.key)
	earlier  []keptRun // runs of the same kept-alive program before this one
	// guard keeps a recording under its --max-cost; nil without one.
	guard *guard
	// graderGuard is the grader's transport under the same Budget, and
	// gradeSpent what its calls cost, as priced, refused grading included.
	graderGuard *guard
	gradeSpent  float64
	// retry waits out a provider's rate limits in record and live modes.
	retry *retrying

	results toolResults // the tool calls and their results, for graders
	graded  []report.Check
	// writeGrades writes the grader's staged cassette (save); nil when
	// nothing was graded.
	writeGrades func() error
	// gradesRecorded counts the grader calls a record-missing run recorded.
	gradesRecorded int
}

// plan works out the sample's endpoint, cassette options and the command
// that re-records it.
func plan(j *job, sample int, opts Options) *sampleRun {
	r := &sampleRun{j: j, sample: sample, opts: opts, tr: &trace.Trace{},
		out: report.Scenario{ID: j.scenario.ID, Criterion: j.scenario.Criterion, Checks: []report.Check{}}}
	r.entry = opts.Agents[j.suite.Agent]
	r.ep = endpoint(opts, r.entry.Info, j.variant)
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
	r.copts = cassette.Options{
		Real: &routing{hosts: opts.Routes, mode: opts.Mode, network: opts.AllowNetwork, sample: sample,
			faults: newFaultPlan(j.suite, j.scenario, sample, hostsOf(r.entry.Info.Upstreams))},
		Provenance: cassette.Provenance{
			Provider: r.ep.Provider, Endpoint: r.ep.BaseURL, Model: r.ep.Model,
			StandIn: opts.Model == nil, Upstream: "fixtures",
		},
		Rerecord: rerecord,
		Secrets:  literals(opts),
		Detector: j.detector,
		Observe:  r.observe,
		Match:    j.suite.Match,
		Within:   opts.Root,
	}
	if opts.Mode != cassette.ModeReplay {
		sleep, now := opts.Sleep, opts.Now
		if sleep == nil {
			sleep = sleepFor
		}
		if now == nil {
			now = time.Now
		}
		r.retry = &retrying{next: r.copts.Real, now: now, sleep: sleep, limits: opts.Limits, upstreams: hostsOf(r.entry.Info.Upstreams)}
		r.copts.Real = r.retry
	}
	if opts.Budget != nil && opts.Mode != cassette.ModeReplay {
		r.guard = &guard{next: r.copts.Real, budget: opts.Budget, pricer: j.pricer, provider: r.ep.Provider, model: r.ep.Model, upstreams: hostsOf(r.entry.Info.Upstreams),
			onRefuse: func() { r.failed.Store(true) }}
		r.copts.Real = r.guard
	}
	return r
}

// observe puts a cassette exchange into the trace and notes a failed or
// stale one.
func (r *sampleRun) observe(e cassette.Exchange) {
	ev := trace.Event{Kind: trace.KindHTTP, HTTP: &trace.Exchange{Method: e.Method, URL: e.URL, Status: e.Status, Duration: e.Duration, Fault: e.Fault, Rule: e.Rule, Stream: e.Stream}}
	if e.Timeout != nil {
		// The agent's own deadline: an outcome to judge, recorded
		// like any other exchange.
		ev.HTTP.Error = e.Timeout.Error()
	}
	if e.Err != nil {
		r.failed.Store(true)
		ev.HTTP.Error = e.Err.Error()
		r.staleMu.Lock()
		if errors.Is(e.Err, cassette.ErrStale) && r.stale == nil {
			r.stale = e.Err
		}
		if r.failure == "" {
			r.failure = e.Method + " " + e.URL + ": " + e.Err.Error()
		}
		r.staleMu.Unlock()
	}
	r.tr.Add(ev)
	r.tr.Advance(e.Duration)
}

// open opens the sample's cassette; false when it cannot, with the verdict
// and what to do about it.
func (r *sampleRun) open() bool {
	path := cassette.SamplePath(r.opts.Root, r.j.suite.Name, r.j.variant.Name, r.j.scenario.ID, r.sample)
	tp, err := cassette.Open(r.opts.Mode, path, r.copts)
	if err != nil {
		r.out.Verdict, r.out.Error = report.VerdictStale, err.Error()
		switch {
		case errors.Is(err, cassette.ErrNotFound):
			r.out.Fix = "record it with: " + r.copts.Rerecord
			r.out.Error += "; " + r.out.Fix
		case errors.Is(err, cassette.ErrCorrupt), errors.Is(err, cassette.ErrVersion):
			// Recording writes the whole file again, so it is the fix.
			r.out.Fix = "re-record it with: " + r.copts.Rerecord
			r.out.Error += "; " + r.out.Fix
		default:
			r.out.Verdict, r.out.Unreadable = report.VerdictError, true
		}
		return false
	}
	r.tp = tp
	if p, ok := tp.Provenance(); ok {
		if r.sample == 1 {
			r.j.prov = &p
		}
		if r.opts.Mode == cassette.ModeReplay {
			r.ep = Recorded(r.ep, p) // a real model's cassette replays as that model
		}
	}
	return true
}

// connect builds the HTTP client the agent's calls go through: straight to
// the cassette, or over loopback HTTP through a proxy session when the run
// asks for one. It returns what ends that session.
func (r *sampleRun) connect() (end func()) {
	r.waited = &wallClock{}
	r.hc = &http.Client{Transport: timeouts{next: r.waited.around(r.tp)}}
	if r.opts.Proxy == nil {
		return func() {}
	}
	// The same cassette, reached over loopback HTTP through a session.
	rt, end := throughProxy(r.opts.Proxy, r.tp, r.ep, r.entry.Info.Embeddings, r.entry.Info.Upstreams)
	r.hc = &http.Client{Transport: timeouts{next: rt}}
	return end
}

// configure builds the agent's model, embedder, secrets and token counter
// into its Config; false when one cannot be built, with the verdict.
func (r *sampleRun) configure(ctx context.Context, pending *counter) (agents.Config, bool) {
	opts, ep := r.opts, r.ep
	fail := func(err error) (agents.Config, bool) {
		r.out.Verdict, r.out.Error = report.VerdictError, err.Error()
		return agents.Config{}, false
	}
	key := opts.Secrets[ep.KeyEnv]
	if key == "" && (opts.Mode == cassette.ModeReplay || opts.Model == nil) {
		// Replays and stand-ins need no key, but some SDKs insist on one;
		// it is redacted from cassettes like any key.
		key = cassette.PlaceholderKey
	}
	model, err := provider.New(ctx, ep, key, r.hc)
	if err != nil {
		return fail(err)
	}
	var embedder llm.Embedder
	if e := r.entry.Info.Embeddings; e != nil {
		if embedder, err = provider.NewEmbedder(*e, opts.Secrets[e.KeyEnv], r.hc); err != nil {
			return fail(err)
		}
	}
	secrets := maps.Clone(opts.Secrets)
	if secrets == nil {
		secrets = map[string]string{}
	}
	for _, k := range r.entry.Info.Keys {
		if secrets[k] == "" && (opts.Mode == cassette.ModeReplay || !opts.AllowNetwork) {
			secrets[k] = cassette.PlaceholderKey
		}
	}
	// The cassette is read: now the token counter is needed.
	counter, err := pending.get()
	if err != nil {
		return fail(err)
	}
	if r.guard != nil {
		r.guard.counter = counter
	}
	if r.retry != nil {
		r.retry.counter = counter
	}
	tr, j := r.tr, r.j
	if embedder != nil {
		embedder = &countingEmbedder{next: embedder, trace: tr, counter: counter, model: r.entry.Info.Embeddings.Model, asked: embedParams(embedder)}
	}
	return agents.Config{
		Model:     &countingModel{next: model, trace: tr, counter: counter, model: ep.Model, sent: opts.Sent},
		Endpoint:  ep,
		Embedder:  embedder,
		HTTP:      r.hc,
		Clock:     func() time.Time { return j.suite.Clock.Add(tr.Elapsed()) },
		Tracer:    &tracer{trace: tr, counter: counter, sent: opts.Sent, results: &r.results},
		Upstreams: r.entry.Info.Upstreams,
		Variant:   j.variant.Config,
		Secrets:   secrets,
		Logger:    slog.New(&traceHandler{trace: tr}),
		Data:      j.data,
		Prompts:   j.prompts,
		Cache:     &j.caches.agents,
		KeptBy:    r.kept,
	}, true
}
