package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/wire"
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
	// Nearest is the index of the closest recorded interaction: one with
	// the same method and URL when there is one, else one with the same
	// host or path (NearestURL says which); -1 when there is none.
	Nearest int
	// NearestURL is the method and URL of Nearest when they are not the
	// request's, else "".
	NearestURL string
	// Diff lists every difference from Nearest, one a line: what changed
	// in a model request ("tools reordered: a, b → b, a", "tool t:
	// parameter p: type changed: …", "message added: /messages/3 …"), in
	// the URL ("path: /a → /b", "query key added: k=v") or at a JSON
	// pointer ("/temperature: 0 → 0.2"). Error shows the first
	// MaxShownDiffs.
	Diff []string
	// Note, when set, is a finding about the cause, printed after the
	// differences (for example that a kept-alive program kept state from
	// an earlier run).
	Note string
	// Rules describes the match rules the request and the recorded ones
	// were compared under (match.Rules.Describe); none when the suite has
	// none.
	Rules    []string
	Rerecord string

	live, recorded []byte // canonical bodies of the request and of Nearest, for Carries
}

// MaxShownDiffs is how many differences a miss's message shows; it counts
// the others.
const MaxShownDiffs = 10

// Error implements error.
func (e *MissError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cassette %s has no match for %s %s", e.Cassette, e.Method, e.URL)
	head := fmt.Sprintf("nearest is interaction %d", e.Nearest)
	if e.NearestURL != "" {
		head = fmt.Sprintf("no recorded request to this method and URL; nearest is interaction %d, %s", e.Nearest, e.NearestURL)
	}
	switch {
	case e.Nearest < 0:
		b.WriteString(" (no recorded request to this method and URL, nor to its host or path)")
	case len(e.Diff) == 0:
		fmt.Fprintf(&b, " (interaction %d has the same request but was already replayed: the agent made more calls than recorded)", e.Nearest)
	case len(e.Diff) == 1 && strings.HasPrefix(e.Diff[0], "/"):
		fmt.Fprintf(&b, " (%s; it differs at %s)", head, e.Diff[0])
	case len(e.Diff) == 1:
		fmt.Fprintf(&b, " (%s; it differs: %s)", head, e.Diff[0])
	default:
		fmt.Fprintf(&b, " (%s; it differs in %d places)", head, len(e.Diff))
		for _, d := range e.Diff[:min(len(e.Diff), MaxShownDiffs)] {
			fmt.Fprintf(&b, "\n    %s", d)
		}
		if n := len(e.Diff) - MaxShownDiffs; n > 0 {
			fmt.Fprintf(&b, "\n    … and %d more", n)
		}
	}
	if e.Note != "" {
		fmt.Fprintf(&b, "\n%s", e.Note)
	}
	if len(e.Rules) > 0 {
		fmt.Fprintf(&b, "\ncompared after the suite's match rules: %s", strings.Join(e.Rules, "; "))
		if len(e.Diff) > 0 {
			b.WriteString("\nnone of them covers where it differs: if that value changes on every run, add a match rule for it (docs/recording.md), else re-record")
		}
	}
	if e.Rerecord != "" {
		fmt.Fprintf(&b, "\nre-record with: %s", e.Rerecord)
	}
	return b.String()
}

// Carries reports whether the request carries text (a string of a JSON
// body, as its JSON-escaped form appears there) that the nearest recorded
// request does not: what a program that kept state from another
// conversation would send.
func (e *MissError) Carries(text string) bool {
	if text == "" {
		return false
	}
	esc := []byte(strings.Trim(compactJSON(text), `"`))
	return bytes.Contains(e.live, esc) && !bytes.Contains(e.recorded, esc)
}

// Is makes errors.Is(err, ErrStale) true.
func (e *MissError) Is(target error) bool { return target == ErrStale }

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

// miss builds the error for a request with no match: the nearest recorded
// interaction with the same method and URL, preferring unplayed ones, and
// every difference from it; with none, the nearest with the same host or
// path, and how its method and URL differ too. liveURL is the request's
// URL, redacted. r.mu is held.
func (r *replayer) miss(req *http.Request, liveURL string, header []string, canon []byte) *MissError {
	e := &MissError{Cassette: r.path, Method: req.Method, URL: liveURL, Nearest: -1,
		Rules: r.opts.Match.Describe(), Rerecord: r.opts.Rerecord, live: canon}
	played := r.replayed
	against := differ(canon)
	best := -1
	var bestDiff []string
	consider := func(i int, d []string) {
		if best < 0 || len(d) < len(bestDiff) || (len(d) == len(bestDiff) && played[best] && !played[i]) {
			best, bestDiff = i, d
		}
	}
	group := r.groups[r.groupKey(req.Method, liveURL)]
	for _, i := range group {
		consider(i, append(headerDiff(r.header(i), header), against(r.canonical(i))...))
	}
	if i := r.reordered(group, canon, header); i >= 0 {
		best, bestDiff = i, append(headerDiff(r.header(i), header), against(r.canonical(i))...)
		e.Note = "they differ only in the order of the results of one turn's tool calls: an agent that runs a turn's tools at once sends them as they finish; compare them in any order with match: {tool_results: any_order} (docs/recording.md)"
	}
	if best < 0 {
		// Another method or URL: the nearest shares the most of host,
		// path and method, then differs the least.
		rank := 0 // sharing neither host nor path is not near
		var ranked []int
		for i, in := range r.items {
			if k := urlRank(in.Request.Method, in.Request.URL, req.Method, e.URL); k > rank {
				rank, ranked = k, []int{i}
			} else if k == rank && k > 0 {
				ranked = append(ranked, i)
			}
		}
		for _, i := range ranked {
			in := r.items[i]
			d := append(urlDiff(in.Request.Method, matchURL(in.Request.URL, r.opts.Match), req.Method, matchURL(e.URL, r.opts.Match)), headerDiff(r.header(i), header)...)
			consider(i, append(d, against(r.canonical(i))...))
		}
		if best >= 0 {
			e.NearestURL = r.items[best].Request.Method + " " + r.items[best].Request.URL
		}
	}
	e.Nearest, e.Diff = best, bestDiff
	if best >= 0 {
		e.recorded = r.canonical(best)
	}
	return e
}

// reordered is the recorded interaction of group, unplayed first, whose
// request is the live one (canon, header) but for the order of a turn's
// tool results, or -1: none is, or the suite's rules already compare them
// in any order. A reordering keeps the body's length: only a recorded
// body as long as the live one is decoded.
func (r *replayer) reordered(group []int, canon []byte, header []string) int {
	if r.opts.Match.ToolResultsAnyOrder() {
		return -1
	}
	var live []byte
	found := -1
	for _, i := range group {
		if len(headerDiff(r.header(i), header)) > 0 || (found >= 0 && !r.replayed[found]) || len(r.canonical(i)) != len(canon) {
			continue
		}
		if live == nil {
			if live = toolResultsSorted(canon); live == nil {
				return -1
			}
		}
		if rec := r.canonical(i); !bytes.Equal(rec, canon) && bytes.Equal(toolResultsSorted(rec), live) {
			found = i
		}
	}
	return found
}

// toolResultsSorted is a canonical JSON body with its tool results sorted
// (wire.SortToolResults), or nil when it is not JSON.
func toolResultsSorted(canon []byte) []byte {
	v, err := decodeJSON(canon)
	if err != nil {
		return nil
	}
	wire.SortToolResults(v)
	out, err := wire.MarshalPlain(v)
	if err != nil {
		return nil
	}
	return out
}

// urlRank is how much of a recorded request's method and URL a live one
// shares: 0 when neither its host nor its path, else more for the same
// host, the same path (or more of its leading segments) and the same
// method.
func urlRank(recMethod, recURL, method, rawURL string) int {
	ru, err1 := url.Parse(recURL)
	lu, err2 := url.Parse(rawURL)
	if err1 != nil || err2 != nil {
		return 0
	}
	sameHost := ru.Scheme == lu.Scheme && ru.Host == lu.Host
	if !sameHost && ru.Path != lu.Path {
		return 0
	}
	rs, ls := strings.Split(strings.Trim(ru.Path, "/"), "/"), strings.Split(strings.Trim(lu.Path, "/"), "/")
	shared := 0
	for shared < len(rs) && shared < len(ls) && rs[shared] == ls[shared] {
		shared++
	}
	k := 1 + 4*shared
	if len(rs) == len(ls) {
		k += 2 // one segment renamed reads nearer than one more or fewer
	}
	if sameHost {
		k += 1000
	}
	if recMethod == method {
		k += 1
	}
	return k
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
