package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"os"
	"path/filepath"
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
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/proxy"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
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

// execute builds the agent from cfg, runs the scenario's turns through it
// within ctx, and closes the cassette: a recording is saved only when
// everything went through, and is aborted otherwise.
func (r *sampleRun) execute(ctx, parent context.Context, cfg agents.Config) {
	agent, err := r.entry.New(cfg)
	if err == nil {
		in := agents.Input{}
		for _, t := range r.j.scenario.Turns {
			in.Turns = append(in.Turns, t.Input)
		}
		in.Attachments, err = loadAttachments(filepath.Join(r.opts.Root, "fixtures", r.j.suite.Agent), r.j.scenario.Attachments)
		if err == nil {
			began := time.Now()
			r.ans, r.out.Crashed, err = runAgent(ctx, agent, in)
			r.out.Processing = max(0, time.Since(began)-r.waited.total())
			if t, ok := agent.(agents.Timed); ok {
				r.out.Wall = wallOf(t.Timing(), r.waited.total())
			}
		}
	}
	r.timedOut = ctx.Err() != nil
	switch {
	case parent.Err() != nil:
		// Interrupted: whatever the agent managed is not a complete recording.
		err = fmt.Errorf("interrupted: %w", parent.Err())
	case r.timedOut && err == nil:
		err = fmt.Errorf("scenario stopped after %s: %w", r.opts.Timeout, ctx.Err())
	}
	if parent.Err() == nil {
		// A stand-in that could not answer: the agent went on with an error
		// (or failed on it), which is nothing to keep; that is the cause.
		if uerr := r.tp.Unanswered(); uerr != nil {
			err = uerr
		}
	}
	if refused := r.guard.refusal(); refused != nil {
		// The agent may have gone on without the call: not a recording.
		err = refused
	}
	switch {
	case r.tp.Recording() && (err != nil || r.failed.Load()):
		// A recording that did not complete never replaces the cassette.
		r.tp.Abort()
		if err == nil {
			// Name the request: an agent that answered well gives no other clue.
			r.staleMu.Lock()
			failure := r.failure
			r.staleMu.Unlock()
			if failure != "" {
				err = fmt.Errorf("recording aborted after a failed request (%s); the previous cassette is kept", failure)
			} else {
				err = fmt.Errorf("recording aborted after a failed request; the previous cassette is kept")
			}
		}
	case r.tp.Recording():
		r.unsaved = true // saved once graded (save)
	default:
		r.closeErr = r.tp.Close()
	}
	r.err = err
}

// save writes a completed recording's cassette and its grader's once its
// grading is done, all or nothing: a grading that failed (its grader
// cassette refused, a grader that could not answer) keeps the previous
// cassette, as a failed run does, and an agent's cassette refused (its
// secret scan) keeps the previous grades. Both are scanned before either is
// written. (Grades are staged only for a recording: a replay or a live run
// has nothing to write.)
func (r *sampleRun) save() {
	if !r.unsaved {
		return
	}
	r.unsaved = false
	if r.err != nil {
		r.tp.Abort()
		return
	}
	write, err := r.tp.Stage()
	if err == nil && r.writeGrades != nil {
		// Both or neither: the grades are of this answer.
		err = r.bothOrNeither(write)
	} else if err == nil {
		err = write()
	}
	r.closeErr = err
	if p, ok := r.tp.Provenance(); ok && r.tp.Mode() == cassette.ModeRecord && r.closeErr == nil && r.sample == 1 {
		// What the recording learnt: the stand-in policy that answered.
		r.j.prov = &p
	}
}

// bothOrNeither writes the agent's staged cassette (write), then the
// grader's; when the grader's cannot be written, the agent's previous
// cassette is put back (or the new one removed, when there was none), so
// that the grades kept are of the answer kept.
func (r *sampleRun) bothOrNeither(write func() error) error {
	path := cassette.SamplePath(r.opts.Root, r.j.suite.Name, r.j.variant.Name, r.j.scenario.ID, r.sample)
	// Read, and put back, under the root only, a regular file of bounded
	// size: the agent, which ran in the project, may have swapped the
	// cassette for a symlink (to /dev/zero, which never ends) or its
	// folder for one out of the project.
	root := cmp.Or(r.opts.Root, ".")
	prev, readErr := files.ReadIn(root, rel(root, path), files.MaxBytes)
	if readErr != nil && !errors.Is(readErr, os.ErrNotExist) {
		return fmt.Errorf("%s %s: %w", cassette.WriteCause, rel(r.opts.Root, path), readErr)
	}
	if err := write(); err != nil {
		return err
	}
	err := r.writeGrades()
	if err == nil {
		return nil
	}
	undo := files.RemoveIn(root, path)
	if readErr == nil {
		undo = files.WriteAtomicIn(root, path, func(w io.Writer) error { _, err := w.Write(prev); return err })
	}
	if undo != nil {
		return fmt.Errorf("%w; and the agent's cassette %s could not be put back as it was (%v): re-record the scenario", err, rel(r.opts.Root, path), undo)
	}
	return fmt.Errorf("%w; the agent's cassette %s was put back as it was, so the two still agree", err, rel(r.opts.Root, path))
}

// judge measures the trace and checks every turn's expectations, and that
// the cassette was played to its end.
func (r *sampleRun) judge() {
	out, j := &r.out, r.j
	events := r.tr.Events()
	out.Events = events
	j.pricer.Trace(r.ep.Provider, events)
	out.Metrics = trace.Measure(events)
	for _, a := range r.ans.Replies {
		out.Answer = append(out.Answer, a.Text)
	}
	for i, t := range j.scenario.Turns {
		if t.Expect.Route != nil && out.ExpectedRoute == "" {
			out.ExpectedRoute = check.FormatRoute(t.Expect.Route)
			out.Route = check.ObservedRoute(trace.OfTurn(events, i))
		}
		if i < len(r.ans.Replies) {
			out.Checks = append(out.Checks, check.Turn(i, t.ExpectFor(j.variant.Name), r.ans.Replies[i], trace.OfTurn(events, i), &j.caches.regexps)...)
		}
	}
	if out.Route == "" {
		out.Route = check.ObservedRoute(events)
	}
	out.Checks = append(out.Checks, r.graded...)
	if r.closeErr == nil {
		out.Recorded, out.Dropped = r.tp.Recorded()+r.gradesRecorded, r.tp.Dropped()
	}
	unplayed := r.tp.Unplayed()
	out.Unplayed = len(unplayed)
	if len(unplayed) > 0 && r.stale == nil && !r.timedOut {
		out.Checks = append(out.Checks, report.Check{Name: "cassette.unplayed", Detail: fmt.Sprintf(
			"%d recorded interactions were not replayed (first: %s); the agent made fewer or other calls than recorded: %s",
			len(unplayed), unplayed[0], r.copts.Rerecord)})
	}
	for i := range out.Checks {
		out.Checks[i].Judged = out.Checks[i].Judged || j.suite.Judges(out.Checks[i].Name)
	}
}

// finalize gives the sample its verdict: stale, error, fail or pass.
func (r *sampleRun) finalize() {
	out := &r.out
	switch {
	case r.stale != nil:
		var miss *cassette.MissError
		if errors.As(r.stale, &miss) && len(r.earlier) > 0 {
			if note := keptState(miss, r.earlier); note != "" {
				miss.Note = note
			}
		}
		out.Verdict, out.Error = report.VerdictStale, r.stale.Error()
		out.Fix = "re-record it with: " + r.copts.Rerecord
		var grades *graderStale
		if errors.As(r.stale, &grades) {
			out.Fix = "re-grade with: " + grades.fix
		}
	case r.err != nil:
		out.Verdict, out.Error = report.VerdictError, r.err.Error()
		out.Escaped = errors.Is(r.err, proxy.ErrEscaped)
	case r.closeErr != nil:
		out.Verdict, out.Error = report.VerdictError, r.closeErr.Error()
	case len(r.ans.Replies) != len(r.j.scenario.Turns):
		out.Verdict, out.Error = report.VerdictError, fmt.Sprintf("agent answered %d of %d turns", len(r.ans.Replies), len(r.j.scenario.Turns))
	case !slices.ContainsFunc(out.Checks, func(c report.Check) bool { return c.Name != "cassette.unplayed" }):
		// The loader refuses a scenario that expects nothing; whatever
		// else leaves a run with nothing checked fails, never passes.
		out.Verdict = report.VerdictFail
		out.Checks = append(out.Checks, report.Check{Name: "expect", Detail: "nothing was checked: the scenario expects nothing of this variant's reply; add an expectation"})
	default:
		out.Verdict = report.VerdictPass
		for _, c := range out.Checks {
			if !c.Pass {
				out.Verdict = report.VerdictFail
			}
		}
	}
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
		data, err := files.ReadIn(dir, r.File, files.MaxBytes)
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

// wallOf splits the wall time of a run of an agent outside testbed: the
// program's start, the proxy's own work on its calls (the session's time
// less the cassette's), the cassette, and the agent's own rest.
func wallOf(t agents.Timing, cassette time.Duration) *report.WallTime {
	proxy := max(0, t.Calls-cassette)
	return &report.WallTime{
		Start:    t.Start,
		Proxy:    proxy,
		Cassette: cassette,
		Agent:    max(0, t.Total-t.Start-t.Calls),
	}
}
