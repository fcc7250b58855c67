package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentreplay/testbed/harness/wire"
)

// Rule is one of a suite's own redaction rules (redact: in a suite file):
// exactly one field is set. A Pattern is found in any text, as the
// maintained rules are, so the scan finds what it matches too; Pointer,
// Header and Query name where a secret is, whatever its value.
type Rule struct {
	// Pattern matches a secret anywhere: its first capture group when it
	// has one, else the whole match.
	Pattern *regexp.Regexp
	// Pointer is a JSON pointer (RFC 6901) into request and response
	// bodies; a segment "*" stands for any key or index.
	Pointer string
	// Header names a request or response header.
	Header string
	// Query names a URL query or form parameter.
	Query string
}

// placeholderSalt is hashed with each secret into its placeholder. It is
// the same in every project and every file, so that a secret gets the same
// placeholder in a cassette, in the report of its replay and in a later
// recording: re-recording writes the same bytes.
const placeholderSalt = "testbed/redact/v1\x00"

// Placeholder is what a secret becomes wherever testbed writes it:
// REDACTED- and the first 8 hex digits of a salted SHA-256 of the secret.
// The same secret always gets the same placeholder, so two fields that held
// one key still show it; 32 bits of a hash give away nothing usable of a
// generated key, but could confirm a guess of a short, guessable value.
// Placeholders, like REDACTED and PlaceholderKey, are never secrets.
func Placeholder(secret string) string {
	sum := sha256.Sum256([]byte(placeholderSalt + secret))
	return Redacted + "-" + hex.EncodeToString(sum[:4])
}

// placeholderPattern matches the placeholders Placeholder makes.
var placeholderPattern = regexp.MustCompile(`REDACTED-[0-9a-f]{8}`)

// normalizePlaceholders replaces every placeholder in s by REDACTED, so
// that a request matches its recording whichever secret (and so
// placeholder) it carried, and cassettes recorded with plain REDACTED still
// match.
func normalizePlaceholders(s string) string {
	if !strings.Contains(s, Redacted+"-") {
		return s
	}
	return placeholderPattern.ReplaceAllString(s, Redacted)
}

// Detector finds secrets and replaces them with their placeholders. It is
// the one detector of testbed: recording redacts every part of an
// interaction with it, replay redacts live requests with it before
// matching, reports are redacted with it, and Scan finds with it what a
// file still holds. It is built from gitleaks' maintained default rules,
// testbed's own rules (bearer tokens, credentials in URLs, key=
// parameters, credential fields in JSON, an AWS secret access key beside
// its key id), the literal values of key variables and suite env: values,
// values given to named variables, and the suite's own Rules. It is safe
// for concurrent use.
type Detector struct {
	sc      *scanner
	headers []string // lower case
	queries []string
	ptrs    [][]string // pointer segments, unescaped
	// secrets, names and rules are what it was built from.
	secrets, names []string
	rules          []Rule
	learned        *learned
	// judged memoizes Text for short texts.
	judged judged
}

// judged is what a Detector's Text returned for texts of up to
// maxMemoText bytes, at most maxMemoTexts of them: URLs, header values and
// a report's short strings repeat across a run's calls (every model call of
// a suite goes to one URL), and Text is a function of the text alone. It
// keeps copies (a text may be a slice of a whole cassette file), 4 MB at
// most.
type judged struct {
	texts sync.Map // string → string
	n     atomic.Int64
}

const (
	maxMemoText  = 512
	maxMemoTexts = 4096
)

// learned holds the values a Detector's rules found by where they were
// (a credential field, a pointer, a header, a query key), shared by the
// Detectors Learned makes.
type learned struct {
	mu     sync.Mutex
	values map[string]bool
}

// learn keeps v, a secret found by where it was.
func (d *Detector) learn(v string) {
	if len(v) < 8 || notSecret(v) {
		return
	}
	d.learned.mu.Lock()
	d.learned.values[v] = true
	d.learned.mu.Unlock()
}

// Learned returns a Detector like d that also replaces, wherever they
// appear, the values d's rules found by where they were: a credential
// field's value, a pointer's, a credential header's, a query key's. An
// agent that put such a value in a body also puts it in its tool calls and
// answers, which reports hold; cassettes are redacted by d alone, so that
// a recording never depends on what another ran before it. When d found
// none (every replay of committed cassettes), it is d itself, with what
// it already judged.
func (d *Detector) Learned() (*Detector, error) {
	if d == nil {
		return nil, nil
	}
	d.learned.mu.Lock()
	values := slices.Sorted(maps.Keys(d.learned.values))
	d.learned.mu.Unlock()
	if len(values) == 0 {
		return d, nil
	}
	return NewDetector(append(slices.Clone(d.secrets), values...), d.names, d.rules)
}

// NewDetector returns a Detector for the given literal secrets (values
// shorter than 8 bytes are ignored), variable names (NAME=value) and rules.
func NewDetector(secrets, names []string, rules []Rule) (*Detector, error) {
	var patterns []*regexp.Regexp
	d := &Detector{secrets: secrets, names: slices.Clone(names), rules: rules, learned: &learned{values: map[string]bool{}}}
	for _, r := range rules {
		switch {
		case r.Pattern != nil:
			patterns = append(patterns, r.Pattern)
		case r.Pointer != "":
			d.ptrs = append(d.ptrs, pointerSegments(r.Pointer))
		case r.Header != "":
			d.headers = append(d.headers, strings.ToLower(r.Header))
		case r.Query != "":
			d.queries = append(d.queries, r.Query)
			names = append(names, r.Query)
		}
	}
	sc, err := newScanner(secrets, names, patterns)
	if err != nil {
		return nil, err
	}
	d.sc = sc
	return d, nil
}

// pointerSegments splits a JSON pointer into its unescaped segments.
func pointerSegments(p string) []string {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

// Text returns s with every secret the detector finds replaced by its
// placeholder: in s as it is, and in each base64 run of s that decodes to
// text holding one (the whole run is replaced).
func (d *Detector) Text(s string) string {
	if d == nil || len(s) < 8 {
		return s
	}
	if len(s) > maxMemoText {
		return d.text(s)
	}
	if r, ok := d.judged.texts.Load(s); ok {
		return r.(string)
	}
	r := d.text(s)
	if d.judged.n.Add(1) <= maxMemoTexts {
		k := strings.Clone(s)
		if r == s {
			r = k
		}
		d.judged.texts.Store(k, r)
	}
	return r
}

// text is Text without the memo.
func (d *Detector) text(s string) string {
	found := d.sc.text(s)
	for _, sp := range base64Spans(s) {
		if v, ok := decodeBase64(s[sp[0]:sp[1]], false); ok && len(d.sc.text(v)) > 0 {
			found = append(found, match{secret: s[sp[0]:sp[1]], start: sp[0], end: sp[1]})
		}
	}
	return replaceSpans(s, found)
}

// replaceSpans replaces the text of each match in s by the placeholder of
// that text; overlapping matches are one.
func replaceSpans(s string, found []match) string {
	if len(found) == 0 {
		return s
	}
	spans := mergedSpans(s, found)
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp.start])
		b.WriteString(sp.placeholder)
		at = sp.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// span is a stretch of a text to replace by placeholder.
type span struct {
	start, end  int
	placeholder string
}

// mergedSpans sorts the matches in text and merges overlapping ones.
func mergedSpans(text string, found []match) []span {
	slices.SortFunc(found, func(a, b match) int { return a.start - b.start })
	var spans []span
	for _, m := range found {
		if n := len(spans); n > 0 && m.start < spans[n-1].end {
			spans[n-1].end = max(spans[n-1].end, m.end)
			continue
		}
		spans = append(spans, span{start: m.start, end: m.end})
	}
	for i := range spans {
		// A rule that takes backslashes (jwt's) must not take the one that
		// starts an escape: the text would no longer be the JSON it was.
		for spans[i].end > spans[i].start+1 && text[spans[i].end-1] == '\\' {
			spans[i].end--
		}
		spans[i].placeholder = Placeholder(text[spans[i].start:spans[i].end])
		// Nor leave the backslash of an escape whose character it takes (a
		// suite's [A-Za-z0-9]{32,} from the n of \n on): the backslash goes
		// with it.
		if escaping(text, spans[i].start) {
			spans[i].start--
		}
	}
	return spans
}

// escaping reports whether the byte before offset i of text is a backslash
// that escapes the byte at i: the last of an odd run of backslashes.
func escaping(text string, i int) bool {
	n := 0
	for i-n > 0 && text[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}

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
	if !strings.Contains(s, "=") {
		return s
	}
	return secretParam.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretParam.FindStringSubmatch(m)
		if sub[3] == "" || notSecret(sub[3]) {
			return m
		}
		return sub[1] + sub[2] + "=" + Placeholder(sub[3])
	})
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
