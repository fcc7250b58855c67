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

// Replayer serves a cassette's interactions. Identical requests are served in
// recorded order. It is safe for concurrent use.
type Replayer struct {
	path     string
	opts     Options
	prov     Provenance
	items    []*vcr.Interaction
	canon    [][]byte // canonical request bodies, by interaction
	mu       sync.Mutex
	index    map[string][]int // match key → interaction indexes not yet served
	replayed []bool
}

func newReplayer(path string, opts Options) (*Replayer, error) {
	f, err := readFile(path)
	if err != nil {
		return nil, err
	}
	r := &Replayer{
		path:     path,
		opts:     opts,
		items:    f.Interactions,
		canon:    make([][]byte, len(f.Interactions)),
		index:    make(map[string][]int, len(f.Interactions)),
		replayed: make([]bool, len(f.Interactions)),
	}
	if f.Provenance != nil {
		r.prov = *f.Provenance
	}
	for i, in := range f.Interactions {
		r.canon[i] = CanonicalBody([]byte(in.Request.Body), opts.Volatile)
		k := matchKey(in.Request.Method, in.Request.URL, r.canon[i])
		r.index[k] = append(r.index[k], i)
	}
	return r, nil
}

func matchKey(method, rawURL string, body []byte) string {
	return method + " " + CanonicalURL(rawURL) + "\n" + string(body)
}

// Provenance returns what the cassette says about its origin.
func (r *Replayer) Provenance() Provenance { return r.prov }

// RoundTrip implements http.RoundTripper. It never touches the network.
func (r *Replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	secrets := r.opts.literals()
	if len(secrets) > 0 {
		body = []byte(redactLiterals(string(body), secrets))
	}
	canon := CanonicalBody(body, r.opts.Volatile)
	r.mu.Lock()
	k := matchKey(req.Method, redactLiterals(req.URL.String(), secrets), canon)
	queue := r.index[k]
	if len(queue) == 0 {
		r.mu.Unlock()
		miss := r.miss(req, canon)
		r.observe(Exchange{Method: req.Method, URL: redactLiterals(redactURL(req.URL.String()), r.opts.literals()), Err: miss})
		return nil, miss
	}
	i := queue[0]
	r.index[k] = queue[1:]
	r.replayed[i] = true
	r.mu.Unlock()

	in := r.items[i]
	r.observe(Exchange{Method: req.Method, URL: redactLiterals(redactURL(req.URL.String()), r.opts.literals()), Status: in.Response.Code,
		Duration: in.Response.Duration, Fault: in.Response.Headers.Get(FaultHeader)})
	return &http.Response{
		Status:        in.Response.Status,
		StatusCode:    in.Response.Code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        in.Response.Headers.Clone(),
		Body:          io.NopCloser(strings.NewReader(in.Response.Body)),
		ContentLength: int64(len(in.Response.Body)),
		Request:       req,
	}, nil
}

func (r *Replayer) observe(e Exchange) {
	if r.opts.Observe != nil {
		r.opts.Observe(e)
	}
}

// miss builds the error for a request with no match: the nearest recorded
// interaction with the same method and URL, preferring unplayed ones, and a
// field-level JSON diff against it.
func (r *Replayer) miss(req *http.Request, canon []byte) *MissError {
	e := &MissError{Cassette: r.path, Method: req.Method, URL: redactLiterals(redactURL(req.URL.String()), r.opts.literals()), Nearest: -1, Rerecord: r.opts.Rerecord}
	want := CanonicalURL(redactLiterals(req.URL.String(), r.opts.literals()))
	r.mu.Lock()
	played := append([]bool(nil), r.replayed...)
	r.mu.Unlock()
	best := -1
	var bestDiff []string
	for i, in := range r.items {
		if in.Request.Method != req.Method || CanonicalURL(in.Request.URL) != want {
			continue
		}
		d := diff(r.canon[i], canon)
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
		return []string{fmt.Sprintf("the body: %s → %s", clip(string(recorded)), clip(string(live)))}
	}
	var out []string
	for _, op := range patch {
		path := string(op.Path)
		if path == "" {
			path = "/"
		}
		switch op.Type {
		case jsondiff.OperationAdd:
			out = append(out, fmt.Sprintf("%s: (absent) → %s", path, clipJSON(op.Value)))
		case jsondiff.OperationRemove:
			out = append(out, fmt.Sprintf("%s: %s → (absent)", path, clipJSON(op.OldValue)))
		default:
			out = append(out, fmt.Sprintf("%s: %s → %s", path, clipJSON(op.OldValue), clipJSON(op.Value)))
		}
	}
	return out
}

func clipJSON(v any) string {
	b, err := marshalCompact(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

// clip shortens s around nothing in particular: long prompts are cut to
// their first characters, which is where a reader looks first.
func clip(s string) string {
	const max = 120
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

// Unplayed returns a description of every recorded interaction that was not
// served, in recorded order.
func (r *Replayer) Unplayed() []string {
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
func (r *Replayer) Close() error { return nil }
