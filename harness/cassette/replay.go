package cassette

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentreplay/testbed/harness/stream"
	vcr "gopkg.in/dnaeon/go-vcr.v2/cassette"
)

// replayer serves a cassette's interactions. Identical requests are served in
// recorded order. It is safe for concurrent use.
//
// A request matches the first unserved interaction, in recorded order, with
// the same method, canonical URL and canonical body, and the same headers
// where the match rules compare any; both sides are compared after the
// rules (Options.Match). Recorded bodies are canonicalized only when needed: a live body byte-identical to a recorded
// one has the same canonical form, so the usual replay, where an agent sends
// what it sent when recording, canonicalizes nothing.
type replayer struct {
	path string
	opts Options
	// detector redacts live requests as their recording was redacted.
	detector *Detector
	prov     Provenance
	items    []*vcr.Interaction
	// deadlines judges the requests' own deadlines.
	deadlines Deadlines

	mu       sync.Mutex
	canon    [][]byte         // canonical request bodies, by interaction, once computed
	canoned  []bool           // whether canon[i] is computed
	groups   map[string][]int // method and canonical URL → interactions, in recorded order
	heads    map[string]int   // method and canonical URL → index in groups of the first unserved one
	headers  [][]string       // the compared request headers, by interaction, when the rules name any
	replayed []bool
	order    order // the interactions answered, for answering in recorded order
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
	compared := len(opts.Match.HeaderNames()) > 0
	for i, in := range f.Interactions {
		k := r.groupKey(in.Request.Method, in.Request.URL)
		r.groups[k] = append(r.groups[k], i)
		if compared {
			r.headers = append(r.headers, opts.Match.Header(in.Request.Headers))
		}
	}
	return r
}

// groupKey is the method and the URL as matching compares them.
func (r *replayer) groupKey(method, rawURL string) string {
	return method + " " + matchURL(rawURL, r.opts.Match)
}

// header is interaction i's compared request headers (nil when the rules
// name none).
func (r *replayer) header(i int) []string {
	if r.headers == nil {
		return nil
	}
	return r.headers[i]
}

// recordedURL reports whether some interaction was recorded with u byte
// for byte. Such a URL is not redacted before matching, as a body byte for
// byte as recorded is not: a recording took its secrets out.
func (r *replayer) recordedURL(u string) bool {
	for _, in := range r.items {
		if in.Request.URL == u {
			return true
		}
	}
	return false
}

// canonical returns interaction i's canonical request body. r.mu is held.
func (r *replayer) canonical(i int) []byte {
	if !r.canoned[i] {
		r.canon[i] = matchBody([]byte(r.items[i].Request.Body), r.items[i].Request.URL, r.opts)
		r.canoned[i] = true
	}
	return r.canon[i]
}

// match finds and marks as served the first unserved interaction of group k
// whose body is body or has its canonical form, and whose compared headers
// are header; -1 if there is none. canon is the live body's canonical form,
// computed on first need. r.mu is held.
func (r *replayer) match(k string, body []byte, header []string, canon func() []byte) int {
	group := r.groups[k]
	for _, i := range group[r.heads[k]:] {
		if r.replayed[i] || !slices.Equal(r.header(i), header) {
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

// unmatch undoes match's serving of interaction i of group k. r.mu is held.
func (r *replayer) unmatch(k string, i int) {
	r.replayed[i] = false
	if h := slices.Index(r.groups[k], i); h < r.heads[k] {
		r.heads[k] = h
	}
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
	r.detector.LearnHeaders(req.Header)
	carried := r.detector.carried(req.Header, req.URL.String())
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
			canon = matchBody([]byte(replaceCarried(r.detector.Body(req.Header, string(body)), carried)), req.URL.String(), r.opts)
			if canon == nil {
				canon = []byte{}
			}
		}
		return canon
	}
	r.mu.Lock()
	sent := matchHeader(req.Header, r.opts.Match, r.detector)
	liveURL := req.URL.String()
	if !r.recordedURL(liveURL) {
		liveURL = replaceCarried(r.detector.URL(liveURL), carried)
	}
	key := r.groupKey(req.Method, liveURL)
	i := r.match(key, body, sent, canonical)
	if i < 0 {
		miss := r.miss(req, liveURL, sent, canonical())
		r.mu.Unlock()
		r.observe(Exchange{Method: req.Method, URL: liveURL, Err: miss})
		return -1, nil, miss
	}
	if !r.inOrder(req.Context(), i) {
		// Given up by the agent: still there for a request that asks again.
		r.unmatch(key, i)
		r.mu.Unlock()
		return -1, nil, req.Context().Err()
	}
	// Answered, for the requests waiting on it, once it is observed.
	defer func() {
		r.mu.Lock()
		r.answer(i)
		r.mu.Unlock()
	}()
	r.mu.Unlock()

	in := r.items[i]
	// The status and headers are copied out of the cassette's text, of
	// which they are slices: an agent or a report that keeps one (a fault's
	// name, an error quoting the status) would keep the whole file alive.
	header := ownHeader(in.Response.Headers)
	e := Exchange{Method: req.Method, URL: liveURL, Status: in.Response.Code,
		Duration: in.Response.Duration, Fault: header.Get(FaultHeader), Rule: header.Get(RuleHeader), Stream: stream.Of(header, in.Response.Body)}
	if late := r.deadlines.overdue(req, e.URL, e.Duration); late != nil {
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
