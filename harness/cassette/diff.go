package cassette

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/wI2L/jsondiff"

	"github.com/agentreplay/testbed/harness/wire"
)

// differ returns the function that describes how live differs from a
// recorded body, one difference a line (live is decoded once). Model
// requests are compared by meaning: tools by name (a tool added, removed
// or moved, a parameter whose type changed), messages by position (a
// message added or removed; one changed in place by JSON pointer), whatever
// the wire format (OpenAI Chat Completions and Responses, Anthropic
// Messages, Gemini generateContent); the rest, and any other JSON, by JSON
// pointer with both values; a body that is not JSON as a short note. With
// defaults, the request is a call of an API whose defaults modelDefaults
// holds, and a member added or dropped at one says so.
func differ(live []byte, defaults bool) func(recorded []byte) []string {
	lv, lerr := decodeJSON(live)
	return func(recorded []byte) []string {
		if bytes.Equal(recorded, live) {
			return nil
		}
		rv, rerr := decodeJSON(recorded)
		if rerr != nil || lerr != nil || !document(rv) || !document(lv) {
			return bodyNote(recorded, live)
		}
		out, ok := valueDiff(rv, lv, defaults)
		if !ok || len(out) == 0 {
			return bodyNote(recorded, live)
		}
		return out
	}
}

// valueDiff is diff of two decoded JSON documents, with modelHints when
// defaults (the request is a call of an API whose defaults modelDefaults
// holds); false when they cannot be compared by their parts.
func valueDiff(rv, lv any, defaults bool) ([]string, bool) {
	var out []string
	rm, rok := rv.(map[string]any)
	lm, lok := lv.(map[string]any)
	h := valueHints
	if defaults {
		h = modelHints
	}
	if rok && lok {
		rm, lm = maps.Clone(rm), maps.Clone(lm)
		if d, ok := toolsDiff(rm, lm); ok {
			out = append(out, d...)
			delete(rm, "tools")
			delete(lm, "tools")
		}
		for _, key := range []string{"messages", "contents", "input"} {
			ra, rok := rm[key].([]any)
			la, lok := lm[key].([]any)
			if rok && lok {
				out = append(out, listDiff("/"+key, ra, la)...)
				delete(rm, key)
				delete(lm, key)
			}
		}
		rv, lv = rm, lm
	}
	d, ok := pointerDiffIn("", rv, lv, h)
	return append(out, d...), ok
}

// document reports whether v is a JSON object or array, which are compared
// by their parts; any other body is compared as bytes.
func document(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// bodyNote is the difference of two bodies that are not both JSON: bodies
// that are not one JSON object or array are matched as bytes.
func bodyNote(recorded, live []byte) []string {
	a, b := clipPair(string(recorded), string(live))
	return []string{fmt.Sprintf("the body: %s → %s", a, b)}
}

// pointerDiff lists how live differs from recorded by JSON pointer, each
// under prefix; false when they cannot be compared (not JSON documents).
func pointerDiff(prefix string, recorded, live any) ([]string, bool) {
	return pointerDiffIn(prefix, recorded, live, noHints)
}

// bodyDiff is pointerDiff of two request bodies, or parts of them at
// prefix, a pointer into the body: a value that differs only in a value
// of a built-in pattern says so, with the match rule that would compare
// it (volatile).
func bodyDiff(prefix string, recorded, live any) ([]string, bool) {
	return pointerDiffIn(prefix, recorded, live, valueHints)
}

// pointerDiffIn is pointerDiff, each line with the hints h asks for: a
// member added or removed is named as such.
func pointerDiffIn(prefix string, recorded, live any, h hints) ([]string, bool) {
	if equalJSON(recorded, live) {
		return nil, true
	}
	rb, err1 := wire.MarshalPlain(recorded)
	lb, err2 := wire.MarshalPlain(live)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	if bytes.Equal(rb, lb) {
		return nil, true
	}
	patch, err := jsondiff.CompareJSON(rb, lb)
	if err != nil {
		return nil, false
	}
	if len(patch) == 0 {
		// Two scalars that differ only in white space give no patch.
		a, b := clipPair(string(rb), string(lb))
		return []string{fmt.Sprintf("%s: %s → %s", cmpPath(prefix, ""), a, b)}, true
	}
	var out []string
	for _, op := range patch {
		path := cmpPath(prefix, string(op.Path))
		switch op.Type {
		case jsondiff.OperationAdd:
			out = append(out, memberLine(path, op.Value, true, h))
		case jsondiff.OperationRemove:
			out = append(out, memberLine(path, op.OldValue, false, h))
		default:
			a, b := clipPair(compactJSON(op.OldValue), compactJSON(op.Value))
			line := fmt.Sprintf("%s: %s → %s", path, a, b)
			if h >= valueHints {
				line += volatile("body", path, op.OldValue, op.Value)
			}
			out = append(out, line)
		}
	}
	return out, true
}

// cmpPath joins a JSON pointer prefix and a pointer below it; "/" for the
// whole document.
func cmpPath(prefix, path string) string {
	if prefix+path == "" {
		return "/"
	}
	return prefix + path
}

// listDiff compares two lists of messages (or of Responses input items):
// the ones the live list adds or drops, found by the parts both share at
// the start and at the end, and those in between changed in place (by
// JSON pointer).
func listDiff(key string, recorded, live []any) []string {
	same := func(i, j int) bool { return equalJSON(recorded[i], live[j]) }
	head := 0
	for head < len(recorded) && head < len(live) && same(head, head) {
		head++
	}
	tail := 0
	for tail < len(recorded)-head && tail < len(live)-head && same(len(recorded)-1-tail, len(live)-1-tail) {
		tail++
	}
	rMid, lMid := recorded[head:len(recorded)-tail], live[head:len(live)-tail]
	var out []string
	n := min(len(rMid), len(lMid))
	for k := range n {
		d, _ := bodyDiff(fmt.Sprintf("%s/%d", key, head+k), rMid[k], lMid[k])
		if len(d) == 1 && emptyContentOnly(rMid[k], lMid[k]) {
			d[0] += emptyContentNote
		}
		out = append(out, d...)
	}
	for k := n; k < len(rMid); k++ {
		out = append(out, fmt.Sprintf("message removed: %s/%d%s %s", key, head+k, roleOf(rMid[k]), clip(gist(rMid[k]))))
	}
	for k := n; k < len(lMid); k++ {
		out = append(out, fmt.Sprintf("message added: %s/%d%s %s", key, head+k, roleOf(lMid[k]), clip(gist(lMid[k]))))
	}
	return out
}

// roleOf is " (role)" for a message with a role, or " (type)" for a
// Responses item with a type, else "".
func roleOf(v any) string {
	m, _ := v.(map[string]any)
	for _, k := range []string{"role", "type"} {
		if s, ok := m[k].(string); ok && s != "" {
			return " (" + s + ")"
		}
	}
	return ""
}

// gist is what a message says: its text content when it has one, else
// the whole message as JSON.
func gist(v any) string {
	if m, ok := v.(map[string]any); ok {
		if s, ok := m["content"].(string); ok {
			return compactJSON(s)
		}
	}
	return compactJSON(v)
}

// prefixed is lines, each led by at.
func prefixed(at string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = at + l
	}
	return out
}

// equalJSON reports whether a and b, decoded by decodeJSON (numbers as
// written), are the same JSON value.
func equalJSON(a, b any) bool { return reflect.DeepEqual(a, b) }

// jsonOrAbsent is v as compact JSON, or "(absent)" for nil.
func jsonOrAbsent(v any) string {
	if v == nil {
		return "(absent)"
	}
	return compactJSON(v)
}

// urlDiff describes how a live request's method and URL differ from a
// recorded one's: the method, the host, the path, and each query key
// added, removed or changed (secret parameters are not compared).
func urlDiff(recMethod, recURL, method, rawURL string) []string {
	var out []string
	if recMethod != method {
		out = append(out, fmt.Sprintf("method: %s → %s", recMethod, method))
	}
	ru, err1 := url.Parse(CanonicalURL(recURL))
	lu, err2 := url.Parse(CanonicalURL(rawURL))
	if err1 != nil || err2 != nil {
		if recURL != rawURL {
			a, b := clipPair(recURL, rawURL)
			out = append(out, fmt.Sprintf("url: %s → %s", a, b))
		}
		return out
	}
	if ru.Scheme+"://"+ru.Host != lu.Scheme+"://"+lu.Host {
		out = append(out, fmt.Sprintf("host: %s://%s → %s://%s", ru.Scheme, ru.Host, lu.Scheme, lu.Host))
	}
	if ru.EscapedPath() != lu.EscapedPath() {
		a, b := clipPair(ru.EscapedPath(), lu.EscapedPath())
		out = append(out, fmt.Sprintf("path: %s → %s", a, b)+versionHint(ru.Path, lu.Path))
	}
	rq, lq := ru.Query(), lu.Query()
	for _, k := range slices.Sorted(maps.Keys(rq)) {
		if _, ok := lq[k]; !ok {
			out = append(out, fmt.Sprintf("query key removed: %s (was %s)", k, clip(strings.Join(rq[k], ","))))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(lq)) {
		r, ok := rq[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("query key added: %s=%s", k, clip(strings.Join(lq[k], ","))))
		case !slices.Equal(r, lq[k]):
			a, b := clipPair(strings.Join(r, ","), strings.Join(lq[k], ","))
			out = append(out, fmt.Sprintf("query %s: %s → %s", k, a, b)+volatile("query", k, strings.Join(r, ","), strings.Join(lq[k], ",")))
		}
	}
	return out
}

// compactJSON is v as compact JSON.
func compactJSON(v any) string {
	b, err := wire.MarshalPlain(v)
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
