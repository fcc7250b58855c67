package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
