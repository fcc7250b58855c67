package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"mime"
	"net/http"
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

// runOne runs one sample of a scenario and checks it.
func runOne(ctx context.Context, j *job, sample int, opts Options, pending *counter) report.Scenario {
	out := report.Scenario{ID: j.scenario.ID, Criterion: j.scenario.Criterion, Checks: []report.Check{}}
	entry := opts.Agents[j.suite.Agent]
	ep := endpoint(opts, entry.Info, j.variant)
	tr := &trace.Trace{}
	var staleMu sync.Mutex
	var stale error
	var failedExchange atomic.Bool

	path := cassette.SamplePath(opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, sample)
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
	if p, ok := tp.Provenance(); ok && sample == 1 {
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
		Cache:     &j.caches.agents,
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
	if tp.Recording() && (err != nil || failedExchange.Load()) {
		// A recording that did not complete never replaces the cassette.
		tp.Abort()
		if err == nil {
			err = fmt.Errorf("recording aborted after a failed request; the previous cassette is kept")
		}
	} else {
		closeErr = tp.Close()
		if p, ok := tp.Provenance(); ok && tp.Mode() == cassette.ModeRecord && closeErr == nil && sample == 1 {
			// What the recording learnt: the stand-in policy that answered.
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
			out.Checks = append(out.Checks, check.Turn(i, t.ExpectFor(j.variant.Name), ans.Replies[i], trace.OfTurn(events, i), &j.caches.regexps)...)
		}
	}
	if out.Route == "" {
		out.Route = check.ObservedRoute(events)
	}
	if closeErr == nil {
		out.Recorded, out.Dropped = tp.Recorded(), tp.Dropped()
	}
	unplayed := tp.Unplayed()
	out.Unplayed = len(unplayed)
	if len(unplayed) > 0 && stale == nil && !timedOut {
		out.Checks = append(out.Checks, report.Check{Name: "cassette.unplayed", Detail: fmt.Sprintf(
			"%d recorded interactions were not replayed (first: %s); the agent made fewer or other calls than recorded: %s",
			len(unplayed), unplayed[0], copts.Rerecord)})
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
