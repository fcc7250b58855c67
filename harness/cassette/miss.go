package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
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
	// pointer ("/temperature: 0 → 0.2", "/stream: member added: false").
	// Error shows the first MaxShownDiffs.
	Diff []string
	// Note, when set, is a finding about the cause, printed after the
	// differences (for example that a kept-alive program kept state from
	// an earlier run).
	Note string
	// Ignorable are the JSON pointers (a * for any index) of the body
	// members the request adds or leaves out that a match: ignore rule
	// could leave out of matching, when an SDK now sends (or stops
	// sending) them on every call: not what the model is asked or a
	// message says, nor a model request's member at another value than
	// the default its absence means. Error offers the rule.
	Ignorable []string
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
	if len(e.Ignorable) > 0 {
		fmt.Fprintf(&b, "\n%s", ignoreAdvice(e.Ignorable, e.uncovered()))
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

// uncovered is how many lines of Diff are not about a member of Ignorable.
func (e *MissError) uncovered() int {
	n := 0
	for _, d := range e.Diff {
		at, _, member := strings.Cut(d, ": member ")
		if !member || !slices.ContainsFunc(e.Ignorable, func(p string) bool { return covers(p, at) }) {
			n++
		}
	}
	return n
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

// miss builds the error for a request with no match: the nearest recorded
// interaction with the same method and URL, preferring unplayed ones, and
// every difference from it; with none, the nearest with the same host or
// path, and how its method and URL differ too. liveURL is the request's
// URL, redacted. r.mu is held.
func (r *replayer) miss(req *http.Request, liveURL string, header []string, canon []byte) *MissError {
	e := &MissError{Cassette: r.path, Method: req.Method, URL: liveURL, Nearest: -1,
		Rules: r.opts.Match.Describe(), Rerecord: r.opts.Rerecord, live: canon}
	played := r.replayed
	defaults := documentedDefaults(liveURL)
	against := differ(canon, defaults)
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
			in := r.items[best].Request
			e.NearestURL = in.Method + " " + in.URL
			if note := apiSwitch(in.URL, e.URL); note != "" {
				// A body of one API read against another's is noise.
				e.Note = note
				bestDiff = append(urlDiff(in.Method, matchURL(in.URL, r.opts.Match), req.Method, matchURL(e.URL, r.opts.Match)), headerDiff(r.header(best), header)...)
			}
		}
	}
	e.Nearest, e.Diff = best, bestDiff
	if best >= 0 {
		e.recorded = r.canonical(best)
		if e.Note == "" {
			e.Ignorable = ignorable(e.recorded, canon, defaults)
		}
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
