package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/wI2L/jsondiff"

	"github.com/agentreplay/testbed/harness/stream"
	vcr "gopkg.in/dnaeon/go-vcr.v2/cassette"
)

// ErrStale is matched (errors.Is) by every replay miss.
var ErrStale = errors.New("stale cassette")

// MissError says which request a cassette could not answer and how it
// differs from the nearest recorded one.
type MissError struct {
	Cassette string
	Method   string
	URL      string
	// Nearest is the index of the closest recorded interaction with the same
	// method and URL, or -1 when there is none.
	Nearest int
	// Diff lists the differences from Nearest, one "path: recorded → live" per line.
	Diff     []string
	Rerecord string
}

// Error implements error.
func (e *MissError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s has no match for %s %s", e.Cassette, e.Method, e.URL)
	switch {
	case e.Nearest < 0:
		b.WriteString(" (no recorded request to this method and URL)")
	case len(e.Diff) == 0:
		fmt.Fprintf(&b, " (interaction %d has the same request but was already replayed: the agent made more calls than recorded)", e.Nearest)
	default:
		fmt.Fprintf(&b, " (nearest is interaction %d; it differs at %s)", e.Nearest, e.Diff[0])
		for _, d := range e.Diff[1:] {
			fmt.Fprintf(&b, "\n    and at %s", d)
		}
	}
	if e.Rerecord != "" {
		fmt.Fprintf(&b, "\nre-record with: %s", e.Rerecord)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrStale) true.
func (e *MissError) Is(target error) bool { return target == ErrStale }

// replayer serves a cassette's interactions. Identical requests are served in
// recorded order. It is safe for concurrent use.
//
// A request matches the first unserved interaction, in recorded order, with
// the same method, canonical URL and canonical body. Recorded bodies are
// canonicalized only when needed: a live body byte-identical to a recorded
// one has the same canonical form, so the usual replay, where an agent sends
// what it sent when recording, canonicalizes nothing.
type replayer struct {
	path string
	opts Options
	// detector redacts live requests as their recording was redacted.
	detector *Detector
	prov     Provenance
	items    []*vcr.Interaction

	mu       sync.Mutex
	canon    [][]byte         // canonical request bodies, by interaction, once computed
	canoned  []bool           // whether canon[i] is computed
	groups   map[string][]int // method and canonical URL → interactions, in recorded order
	heads    map[string]int   // method and canonical URL → index in groups of the first unserved one
	replayed []bool
}

func newReplayer(path string, opts Options) (*replayer, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	d, err := opts.detector()
	if err != nil {
		return nil, err
	}
	r := replayerOf(path, f, opts)
	r.detector = d
	return r, nil
}

// replayerOf serves the interactions of f, read from path.
func replayerOf(path string, f *file, opts Options) *replayer {
	r := &replayer{
		path:     path,
		opts:     opts,
		items:    f.Interactions,
		canon:    make([][]byte, len(f.Interactions)),
		canoned:  make([]bool, len(f.Interactions)),
		groups:   map[string][]int{},
		heads:    map[string]int{},
		replayed: make([]bool, len(f.Interactions)),
	}
	if f.Provenance != nil {
		r.prov = f.Provenance.clone()
	}
	for i, in := range f.Interactions {
		k := groupKey(in.Request.Method, in.Request.URL)
		r.groups[k] = append(r.groups[k], i)
	}
	return r
}

func groupKey(method, rawURL string) string {
	return method + " " + CanonicalURL(rawURL)
}

// canonical returns interaction i's canonical request body. r.mu is held.
func (r *replayer) canonical(i int) []byte {
	if !r.canoned[i] {
		r.canon[i] = CanonicalBody([]byte(r.items[i].Request.Body), r.opts.Volatile)
		r.canoned[i] = true
	}
	return r.canon[i]
}

// match finds and marks as served the first unserved interaction of group k
// whose body is body or has its canonical form; -1 if there is none. canon
// is the live body's canonical form, computed on first need. r.mu is held.
func (r *replayer) match(k string, body []byte, canon func() []byte) int {
	group := r.groups[k]
	for _, i := range group[r.heads[k]:] {
		if r.replayed[i] {
			continue
		}
		if r.items[i].Request.Body == string(body) || bytes.Equal(r.canonical(i), canon()) {
			r.replayed[i] = true
			h := r.heads[k]
			for h < len(group) && r.replayed[group[h]] {
				h++
			}
			r.heads[k] = h
			return i
		}
	}
	return -1
}

// Provenance returns what the cassette says about its origin.
func (r *replayer) Provenance() Provenance { return r.prov }

// RoundTrip implements http.RoundTripper. It never touches the network.
func (r *replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	_, resp, err := r.serve(req)
	return resp, err
}

// serve answers req and says which interaction did (-1 when none did).
func (r *replayer) serve(req *http.Request) (int, *http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return -1, nil, err
	}
	var body []byte
	if req.Body != nil {
		// Sized from Content-Length, so that a large request body is read
		// into one buffer rather than a doubling series of them.
		var buf bytes.Buffer
		if req.ContentLength > 0 {
			buf.Grow(int(req.ContentLength) + bytes.MinRead)
		}
		_, err := buf.ReadFrom(req.Body)
		req.Body.Close()
		if err != nil {
			return -1, nil, err
		}
		body = buf.Bytes()
	}
	// A body byte for byte as recorded holds no secret (recording took them
	// out); any other is redacted as its recording was before it is
	// compared.
	var canon []byte
	canonical := func() []byte {
		if canon == nil {
			canon = CanonicalBody([]byte(r.detector.Body(req.Header, string(body))), r.opts.Volatile)
			if canon == nil {
				canon = []byte{}
			}
		}
		return canon
	}
	liveURL := r.detector.URL(req.URL.String())
	r.mu.Lock()
	i := r.match(groupKey(req.Method, liveURL), body, canonical)
	if i < 0 {
		miss := r.miss(req, liveURL, canonical())
		r.mu.Unlock()
		r.observe(Exchange{Method: req.Method, URL: liveURL, Err: miss})
		return -1, nil, miss
	}
	r.mu.Unlock()

	in := r.items[i]
	// The status and headers are copied out of the cassette's text, of
	// which they are slices: an agent or a report that keeps one (a fault's
	// name, an error quoting the status) would keep the whole file alive.
	header := ownHeader(in.Response.Headers)
	e := Exchange{Method: req.Method, URL: liveURL, Status: in.Response.Code,
		Duration: in.Response.Duration, Fault: header.Get(FaultHeader), Rule: header.Get(RuleHeader), Stream: stream.Of(header, in.Response.Body)}
	if late := overdue(req, e.URL, e.Duration); late != nil {
		e.Duration, e.Timeout = late.Waited, late
		r.observe(e)
		return i, nil, late
	}
	r.observe(e)
	return i, &http.Response{
		Status:        strings.Clone(in.Response.Status),
		StatusCode:    in.Response.Code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(strings.NewReader(in.Response.Body)),
		ContentLength: int64(len(in.Response.Body)),
		Request:       req,
	}, nil
}

func (r *replayer) observe(e Exchange) {
	if r.opts.Observe != nil {
		r.opts.Observe(e)
	}
}

// miss builds the error for a request with no match: the nearest recorded
// interaction with the same method and URL, preferring unplayed ones, and a
// field-level JSON diff against it; liveURL is the request's URL, redacted.
// r.mu is held.
func (r *replayer) miss(req *http.Request, liveURL string, canon []byte) *MissError {
	e := &MissError{Cassette: r.path, Method: req.Method, URL: liveURL, Nearest: -1, Rerecord: r.opts.Rerecord}
	played := r.replayed
	best := -1
	var bestDiff []string
	for _, i := range r.groups[groupKey(req.Method, liveURL)] {
		d := diff(r.canonical(i), canon)
		better := best < 0 || len(d) < len(bestDiff) ||
			(len(d) == len(bestDiff) && played[best] && !played[i])
		if better {
			best, bestDiff = i, d
		}
	}
	e.Nearest, e.Diff = best, bestDiff
	return e
}

// diff describes how live differs from recorded: JSON paths with both
// values, or a short note when the bodies are not JSON.
func diff(recorded, live []byte) []string {
	if bytes.Equal(recorded, live) {
		return nil
	}
	patch, err := jsondiff.CompareJSON(recorded, live)
	// Bodies that are not one JSON object or array are matched as bytes; two
	// that differ only in white space around a JSON scalar give no patch.
	if err != nil || len(patch) == 0 {
		a, b := clipPair(string(recorded), string(live))
		return []string{fmt.Sprintf("the body: %s → %s", a, b)}
	}
	var out []string
	for _, op := range patch {
		path := string(op.Path)
		if path == "" {
			path = "/"
		}
		switch op.Type {
		case jsondiff.OperationAdd:
			out = append(out, fmt.Sprintf("%s: (absent) → %s", path, clip(compactJSON(op.Value))))
		case jsondiff.OperationRemove:
			out = append(out, fmt.Sprintf("%s: %s → (absent)", path, clip(compactJSON(op.OldValue))))
		default:
			a, b := clipPair(compactJSON(op.OldValue), compactJSON(op.Value))
			out = append(out, fmt.Sprintf("%s: %s → %s", path, a, b))
		}
	}
	return out
}

// compactJSON is v as compact JSON.
func compactJSON(v any) string {
	b, err := marshalCompact(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// clipWidth is the most characters a value in a miss diagnosis shows.
const clipWidth = 120

// clip shortens s, a value added or removed, to its first characters, which
// is where a reader looks first.
func clip(s string) string {
	if r := []rune(s); len(r) > clipWidth {
		return string(r[:clipWidth]) + "…"
	}
	return s
}

// clipPair shortens a and b, a recorded and a live value that differ, to
// the same window around their first difference (from 40 characters before
// it, or from the start when it is in the first 60; "…" where cut), so that
// two long values that share their start never read the same.
func clipPair(a, b string) (string, string) {
	ra, rb := []rune(a), []rune(b)
	if len(ra) <= clipWidth && len(rb) <= clipWidth {
		return a, b
	}
	first := 0
	for first < len(ra) && first < len(rb) && ra[first] == rb[first] {
		first++
	}
	start := 0 // a difference in the first half shows from the start
	if first > clipWidth/2 {
		start = first - 40
	}
	cut := func(r []rune) string {
		from, to := min(start, len(r)), min(len(r), start+clipWidth)
		s := string(r[from:to])
		if from > 0 {
			s = "…" + s
		}
		if to < len(r) {
			s += "…"
		}
		return s
	}
	return cut(ra), cut(rb)
}

// Unplayed returns a description of every recorded interaction that was not
// served, in recorded order.
func (r *replayer) Unplayed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for i, done := range r.replayed {
		if !done {
			in := r.items[i]
			out = append(out, fmt.Sprintf("interaction %d: %s %s", i, in.Request.Method, in.Request.URL))
		}
	}
	return out
}

// Close implements Transport.
func (r *replayer) Close() error { return nil }

// ownHeader is a copy of h whose values are strings of their own.
func ownHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		own := make([]string, len(vs))
		for i, v := range vs {
			own[i] = strings.Clone(v)
		}
		out[strings.Clone(k)] = own
	}
	return out
}
