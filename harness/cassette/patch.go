package cassette

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/agentreplay/testbed/harness/wire"
)

// ErrMixed is returned by Open in ModeRecordMissing when the cassette was
// recorded from another model or upstream than the recording would use:
// one cassette never mixes two sources.
var ErrMixed = errors.New("cassette would mix two sources")

// patcher replays a cassette and records only the requests it has no match
// for (ModeRecordMissing), so that a prompt edit re-records the calls it
// changed rather than the whole scenario. Requests are matched exactly as in
// ModeReplay, and recorded exactly as in ModeRecord (same redaction, same
// real transport).
//
// On Close, when anything was recorded, the cassette is rewritten
// atomically with the interactions the run used, in the order the agent
// made its calls (callOrder: calls under way at once in the order of their
// requests): the replayed ones as they were, the recorded ones new;
// recorded interactions the run did not use are dropped (Dropped lists
// them). When nothing was recorded the file is left as it was and Unplayed
// reports what the run did not use, as a replay does: record-missing never
// hides an agent that makes fewer calls than its cassette holds. A missing
// cassette is recorded whole.
type patcher struct {
	path   string
	replay *replayer
	rec    *recording
	// shadow, when the cassette was recorded from the stand-in, sends on
	// the requests it answers that keep server-side state (shadow).
	shadow http.RoundTripper

	mu sync.Mutex
	// order has per answered request its interaction, or -(k+1) for the
	// k-th recorded one; calls has its call (when it came and was answered).
	order    []int
	calls    []call
	recorded int
	closed   bool
}

func newPatcher(path string, opts Options) (*patcher, error) {
	ropts := opts
	ropts.Observe = func(e Exchange) {
		var miss *MissError
		if errors.As(e.Err, &miss) {
			return // recorded instead, and observed then
		}
		if opts.Observe != nil {
			opts.Observe(e)
		}
	}
	f, err := readFile(path)
	switch {
	case errors.Is(err, ErrNotFound):
		f = &file{Version: FormatVersion}
	case err != nil:
		return nil, err
	}
	replay := replayerOf(path, f, ropts)
	if old := replay.prov; old.Model != "" && !sameSource(old, opts.Provenance) {
		return nil, fmt.Errorf("%w: %s was recorded from %s (upstreams: %s); recording its missing calls from %s (upstreams: %s) would put both in one file; re-record it whole without --record-missing",
			ErrMixed, path, old, orNone(old.Upstream), opts.Provenance, orNone(opts.Provenance.Upstream))
	}
	rec, err := newRecorder(path, opts)
	if err != nil {
		return nil, err
	}
	replay.detector = rec.detector
	p := &patcher{path: path, replay: replay, rec: rec}
	if opts.Provenance.StandIn && replay.prov.StandIn {
		p.shadow = cmp.Or[http.RoundTripper](opts.Real, http.DefaultTransport)
	}
	return p, nil
}

// tell hands a request the cassette answered, and that keeps server-side
// state (wire.Stateful), to the stand-in too, dropping its answer: the
// stand-in keeps the conversations its answers start (previous_response_id,
// Anthropic's threads, the Conversations API), and a call recorded later
// in the run may continue one that only the cassette answered. The
// stand-in's ids derive from the requests, so it keeps them under the ids
// the cassette holds.
func (p *patcher) tell(req *http.Request, body []byte) {
	if p.shadow == nil || !wire.Stateful(req.URL.Path) {
		return
	}
	if resp, err := p.shadow.RoundTrip(withBody(req, body)); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// sameSource reports whether two provenances name the same model and
// upstreams.
func sameSource(a, b Provenance) bool {
	return a.Provider == b.Provider && a.Model == b.Model && a.StandIn == b.StandIn && a.Upstream == b.Upstream
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// RoundTrip implements http.RoundTripper: the recorded answer when the
// cassette has one, else the real transport's, recorded.
func (p *patcher) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	start := sent(req)
	i, resp, err := p.replay.serve(withBody(req, body))
	var miss *MissError
	if !errors.As(err, &miss) {
		if i >= 0 {
			p.mu.Lock()
			p.order = append(p.order, i)
			p.calls = append(p.calls, call{start: start, end: time.Now()})
			p.mu.Unlock()
			p.tell(req, body)
		}
		return resp, err
	}
	// One recording at a time, so that the k-th call recorded is the k-th
	// interaction go-vcr captured.
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("cassette %s: request after the session ended", p.path)
	}
	resp, err = p.rec.RoundTrip(withBody(req, body))
	var late *DeadlineError
	if err == nil || errors.As(err, &late) {
		// Captured: a late answer is kept as it was, like a recording does.
		p.recorded++
		p.order = append(p.order, -p.recorded)
		p.calls = append(p.calls, call{start: start, end: time.Now()})
	}
	return resp, err
}

// withBody is req with body as its body, readable again.
func withBody(req *http.Request, body []byte) *http.Request {
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	return out
}

// Recorded is the number of requests the cassette had no match for and
// that were recorded.
func (p *patcher) Recorded() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.recorded
}

// Unplayed lists the recorded interactions the run did not use, when it
// recorded nothing (the file stays as it is, and a replay would fail on
// them); after a recording they are dropped instead (see Dropped).
func (p *patcher) Unplayed() []string {
	if p.Recorded() > 0 {
		return nil
	}
	return p.replay.Unplayed()
}

// Dropped lists the recorded interactions a rewrite leaves out because the
// run did not use them; nil when nothing was recorded.
func (p *patcher) Dropped() []string {
	if p.Recorded() == 0 {
		return nil
	}
	return p.replay.Unplayed()
}

// Provenance returns the cassette's provenance, or the recording's for a
// cassette that did not exist.
func (p *patcher) Provenance() Provenance {
	if p.replay.prov.Model != "" {
		return p.replay.prov
	}
	return p.rec.opts.Provenance
}

// Abort drops what was recorded; the cassette stays as it was.
func (p *patcher) Abort() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.rec.Abort()
}

// Close writes the patched cassette when anything was recorded.
func (p *patcher) Close() error { return commit(p.Stage()) }

// Stage collects and scans the patched cassette as Close writes it and
// returns what writes it (see Session.Stage).
func (p *patcher) Stage() (write func() error, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nothing, nil
	}
	p.closed = true
	order, calls, recorded := p.order, p.calls, p.recorded
	p.mu.Unlock()
	if recorded == 0 {
		p.rec.Abort()
		return nothing, nil
	}
	f, err := p.rec.collect()
	if err != nil {
		return nil, err
	}
	if len(f.Interactions) != recorded {
		return nil, fmt.Errorf("save cassette %s: %d calls were recorded but %d captured; the cassette is kept as it was", p.path, recorded, len(f.Interactions))
	}
	out := &file{Version: FormatVersion, Provenance: f.Provenance}
	for _, o := range order {
		if o >= 0 {
			out.Interactions = append(out.Interactions, p.replay.items[o])
		} else {
			out.Interactions = append(out.Interactions, f.Interactions[-o-1])
		}
	}
	out.Interactions = inCallOrder(out.Interactions, calls)
	return checked(p.rec.opts.Within, p.path, out, p.rec.detector)
}

// Unanswered is the recording's Unanswered: the calls it recorded include
// one a stand-in had no policy for.
func (p *patcher) Unanswered() error { return p.rec.Unanswered() }
