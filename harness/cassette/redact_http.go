package cassette

// What the parts of an exchange go through: a URL, a form, request and
// response headers, a body and the JSON in it.

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// URL returns raw with its secrets replaced: the values of credential
// query parameters and of the rules' query keys, a password in its user
// information, and whatever the detector finds in any query value or in
// the whole URL as it came (see refound).
func (d *Detector) URL(raw string) string {
	return d.refound(raw, d.redactURL(raw))
}

// redactURL is URL but for what its passes hide from each other.
func (d *Detector) redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return d.Text(raw)
	}
	q := u.Query()
	changed := false
	for k, vs := range q {
		named := slices.Contains(secretParams, k) || slices.Contains(d.queries, k)
		for i, v := range vs {
			nv := v
			switch {
			case named && v != "" && !notSecret(v):
				nv = Placeholder(v)
				d.learn(v)
			default:
				nv = d.Text(v)
			}
			if nv != v {
				vs[i], changed = nv, true
			}
		}
	}
	if pw, ok := u.User.Password(); ok && !notSecret(pw) {
		d.learn(pw)
		u.User = url.UserPassword(u.User.Username(), Placeholder(pw))
		changed = true
	}
	if changed {
		u.RawQuery = q.Encode()
		raw = u.String()
	}
	return d.Text(raw)
}

// Form redacts form values in place, as URL does query values.
func (d *Detector) Form(form url.Values) {
	for k, vs := range form {
		named := slices.Contains(secretParams, k) || slices.Contains(d.queries, k)
		for i, v := range vs {
			if named && v != "" && !notSecret(v) {
				d.learn(v)
				vs[i] = Placeholder(v)
			} else {
				vs[i] = d.Text(v)
			}
		}
	}
}

// secretHeader reports whether a header carries credentials: by its name,
// or because a rule names it.
func (d *Detector) secretHeader(name string) bool {
	return isSecretHeader(name) || slices.Contains(d.headers, strings.ToLower(name))
}

// RequestHeaders returns what a recording keeps of request headers h: the
// allowlisted ones with their secrets replaced, the credential ones (by
// name or by rule) as REDACTED, nothing else. Headers are not matched, so
// a credential header's value is dropped whole.
func (d *Detector) RequestHeaders(h http.Header) http.Header {
	out := http.Header{}
	for name, vs := range h {
		switch {
		case d.secretHeader(name):
			for _, v := range vs {
				d.learnHeader(name, v)
			}
			out[name] = []string{Redacted}
		case slices.ContainsFunc(recordedRequestHeaders, func(a string) bool { return strings.EqualFold(a, name) }):
			for _, v := range vs {
				out[name] = append(out[name], d.Text(v))
			}
		}
	}
	return out
}

// learnHeader learns credential header name's value (see headerValues).
func (d *Detector) learnHeader(name, v string) {
	for _, x := range headerValues(name, v) {
		d.learn(x)
	}
}

// LearnHeaders learns the values of h's credential headers, as recording
// them does, so that a replay's reports replace those values wherever the
// agent also put them (see Learned).
func (d *Detector) LearnHeaders(h http.Header) {
	if d == nil {
		return
	}
	for name, vs := range h {
		if d.secretHeader(name) {
			for _, v := range vs {
				d.learnHeader(name, v)
			}
		}
	}
}

// ResponseHeaders returns a copy of response headers h with the credential
// ones (Set-Cookie, or by rule) as REDACTED, those naming the account
// (accountHeaders) left out, and the secrets in every other value
// replaced.
func (d *Detector) ResponseHeaders(h http.Header) http.Header {
	h = h.Clone()
	for _, name := range accountHeaders {
		h.Del(name)
	}
	for name, vs := range h {
		for i, v := range vs {
			if d.secretHeader(name) {
				d.learnHeader(name, v)
				vs[i] = Redacted
			} else {
				vs[i] = d.Text(v)
			}
		}
	}
	return h
}

// Body returns body, sent or received with headers h, with its secrets
// replaced. An event stream, a stream of newline-delimited JSON, or one
// sent as a JSON array (Gemini without alt=sse), is judged as the client
// reassembles it (see redactStream). In a JSON body the values of credential fields (api_key,
// password; key and token when the value looks like a key) and of the
// rules' pointers are replaced whole, each string is judged decoded when
// the body has escapes, and then the text as a whole; a JSON body
// is re-encoded compactly when anything changed. Any other body has its
// credential key=value parameters replaced, then its text. Whatever the
// detector finds in the body as it came is replaced too (see refound).
func (d *Detector) Body(h http.Header, body string) string {
	if d == nil || body == "" {
		return body
	}
	return d.refound(body, d.body(h, body))
}

// body is Body but for what its passes hide from each other.
func (d *Detector) body(h http.Header, body string) string {
	if isStream, lines := streamKind(h, body); isStream {
		return d.Text(d.redactStream(body, lines))
	}
	trimmed := strings.TrimSpace(body)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if v, err := decodeJSON([]byte(trimmed)); err == nil {
			// The text pass below sees what the strings hold as written;
			// only escaped strings need to be judged decoded, one by one: a
			// rule's match ends at a quote, which an escaped JSON text
			// inside a string (a tool's result sent back) writes \".
			escaped := strings.ContainsRune(trimmed, '\\')
			// A stream sent as one JSON array is judged reassembled first.
			streamed := trimmed[0] == '[' && len(d.redactEvents(arrayEvents(v))) > 0
			if d.walkJSON(v, nil, escaped) || streamed {
				if out, err := wire.MarshalPlain(v); err == nil {
					i := strings.Index(body, trimmed)
					body = body[:i] + string(out) + body[i+len(trimmed):]
				}
			}
			return d.Text(body)
		}
	}
	return d.Text(d.params(d.formParts(h, body)))
}

// refound is after, what the detector's passes made of before, with each
// secret the rules find in before replaced wherever after still holds it.
// The passes replace as they go (a credential field's value, each string
// of a JSON body, a query value) and a rule that finds a secret by what is
// beside it (an AWS secret access key by its key id) no longer finds it
// once another replaced that; the text as it came is what every rule must
// be run on. A text no pass changed held nothing to find.
func (d *Detector) refound(before, after string) string {
	if after == before {
		return after
	}
	spans := mergedSpans(before, d.sc.text(before))
	// The longest first, so that a secret holding another is replaced whole.
	slices.SortFunc(spans, func(a, b span) int { return (b.end - b.start) - (a.end - a.start) })
	for _, sp := range spans {
		if v := strings.TrimPrefix(before[sp.start:sp.end], `\`); len(v) >= 8 && !strings.ContainsAny(v, `"\`) {
			after = strings.ReplaceAll(after, v, sp.placeholder)
		}
	}
	return after
}

// params replaces the values of credential key=value parameters (and the
// rules' query keys) in s.
func (d *Detector) params(s string) string {
	return replaceParams(s, Placeholder)
}

// walkJSON redacts the JSON value v in place, at pointer path, and reports
// whether it changed anything: the values of credential fields and of the
// rules' pointers, and, when texts is set, whatever the detector finds in
// each string.
func (d *Detector) walkJSON(v any, path []string, texts bool) bool {
	changed := false
	visit := func(key string, x any, set func(any)) {
		at := append(path[:len(path):len(path)], key)
		if s, ok := x.(string); ok {
			switch {
			case s != "" && !notSecret(s) && (secretValue(key, s) || d.pointed(at)):
				d.learn(s)
				set(Placeholder(s))
				changed = true
			case texts:
				if r := d.decodedText(s, at); r != s {
					set(r)
					changed = true
				}
			}
			return
		}
		if x != nil && d.pointed(at) {
			if raw, err := wire.MarshalPlain(x); err == nil {
				set(Placeholder(string(raw)))
				changed = true
			}
			return
		}
		if d.walkJSON(x, at, texts) {
			changed = true
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			visit(k, x, func(n any) { v[k] = n })
		}
	case []any:
		for i, x := range v {
			visit(fmt.Sprint(i), x, func(n any) { v[i] = n })
		}
	}
	return changed
}

// decodedText is Text of s, the string at path of a JSON body, decoded.
// When s is itself JSON that holds escapes (a text quoted in a tool's
// result sent back), its strings are judged decoded too, as a body's are
// (its keys continue path), and s is re-encoded compactly if they changed:
// a rule's match ends where the text ends, which the escape of a quote or
// a newline hides from it.
func (d *Detector) decodedText(s string, path []string) string {
	t := strings.TrimSpace(s)
	if t == "" || !strings.ContainsRune(t, '\\') || !strings.ContainsRune(`{["`, rune(t[0])) {
		return d.Text(s)
	}
	v, err := decodeJSON([]byte(t))
	if err != nil {
		return d.Text(s)
	}
	changed := false
	if inner, ok := v.(string); ok {
		if r := d.decodedText(inner, path); r != inner {
			v, changed = r, true
		}
	} else {
		changed = d.walkJSON(v, path, true)
	}
	if changed {
		if out, err := wire.MarshalPlain(v); err == nil {
			s = strings.Replace(s, t, string(out), 1)
		}
	}
	return d.Text(s)
}

// pointed reports whether a rule's pointer names path.
func (d *Detector) pointed(path []string) bool {
	for _, p := range d.ptrs {
		if len(p) != len(path) {
			continue
		}
		same := true
		for i := range p {
			if p[i] != "*" && p[i] != path[i] {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}
