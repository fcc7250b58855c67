package cassette

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Finding is something in a cassette that looks like a secret.
type Finding struct {
	Path string
	Line int
	What string // which rule matched
	Text string // the match, masked: a recognisable prefix and the last four characters at most
	Fix  string // what to do about it
}

// String formats f as "path:line: what text: fix".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s %s: %s", f.Path, f.Line, f.What, f.Text, f.Fix)
}

// What to do about a finding.
const (
	fixKey      = "revoke this key at its provider, then re-record the cassette (recording redacts it) or replace it with REDACTED"
	fixRedacted = "re-record the cassette (recording replaces it with REDACTED) or replace the value with REDACTED; revoke it if it is real"
	fixEnv      = "this is the value of a key variable in your environment: revoke it, then re-record the cassette or replace it with REDACTED"
)

// A secretRule finds secrets on one line of a cassette. The secret is the
// rule's first capture group (the whole match without one); label goes
// before its masked value.
type secretRule struct {
	what  string
	label string
	re    *regexp.Regexp
	min   int // shortest secret that counts
	// anchors are lower-case strings every match contains; the rule runs
	// only on a window around each of them (lines hold whole response
	// bodies, megabytes long, and a regular expression over all of them
	// is slow).
	anchors []string
	fix     string
}

// keyAnchors are where credential-like JSON fields and parameters end.
var keyAnchors = []string{"key", "token", "secret", "password", "passwd", "authorization", "credentials"}

func suffixed(words []string, suffixes ...string) []string {
	var out []string
	for _, w := range words {
		for _, s := range suffixes {
			out = append(out, w+s)
		}
	}
	return out
}

// secretRules are tried in order; on one line, a later rule's match that
// overlaps an earlier one's is the same secret and not reported again, so the
// most specific rules come first.
var secretRules = []secretRule{
	{what: "Anthropic key", re: regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{16,}`), anchors: []string{"sk-ant-"}, fix: fixKey},
	{what: "OpenAI-style key", re: regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}`), anchors: []string{"sk-"}, fix: fixKey},
	{what: "Google API key", re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{30,}`), anchors: []string{"aiza"}, fix: fixKey},
	{what: "bearer token", label: "Bearer ", re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})`), min: 12, anchors: []string{"bearer"}, fix: fixRedacted},
	{what: "credentials in a URL", re: regexp.MustCompile(`://([^/\s:@"'\\]+):([^/\s@"'\\]{6,})@`), anchors: []string{"://"}, fix: fixRedacted},
	{what: "key query parameter", re: regexp.MustCompile(`(?i)(?:^|[?&\s"'(])((?:key|api[_-]?key|access[_-]?token|auth[_-]?token|token|client[_-]?secret|secret|password)=([^&\s"'#\\)]+))`), min: 8, anchors: suffixed(keyAnchors, "="), fix: fixRedacted},
	{what: "key in JSON", re: regexp.MustCompile(`\\?"([A-Za-z0-9_-]*(?i:key|token|secret|password|passwd|authorization|credentials))\\?"\s*:\s*\\?"([^"\\]*)\\?"`), anchors: suffixed(keyAnchors, `"`, `\"`), fix: fixRedacted},
}

// KeyVariables returns the provider key variables whose values must never
// appear in a cassette. The CLI adds the agents' own keys (agents.Info.Keys).
func KeyVariables() []string {
	return []string{"OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"}
}

// PlaceholderKey is the key the harness gives SDKs that insist on one when
// no real key is used (replays and stand-ins). It is not a secret.
const PlaceholderKey = "testbed-placeholder-key"

// notSecret reports whether a matched value is one of the harness's own
// stand-ins for a secret rather than a secret.
func notSecret(v string) bool {
	return strings.Contains(v, Redacted) || strings.Contains(v, PlaceholderKey)
}

// Scan looks for secrets in every .yaml file under root: known key shapes
// (OpenAI, Anthropic and Google keys, bearer tokens, credentials in URLs,
// key=, token= and similar parameters in URLs and bodies, key, token, secret
// and password fields in JSON bodies, secret request headers not redacted),
// and the literal values of the given secrets (for example the key
// variables set in the environment; values shorter than 8 bytes are
// ignored). REDACTED and PlaceholderKey are not secrets. Findings are masked.
func Scan(root string, secrets []string) ([]Finding, error) {
	var values []string
	for _, s := range secrets {
		if len(s) >= 8 && !notSecret(s) {
			values = append(values, s)
		}
	}
	var out []Finding
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		found, err := scanFile(path, values)
		out = append(out, found...)
		return err
	})
	return out, err
}

// headerLine matches a YAML mapping key that names a request or response
// header, alone on its line (go-vcr writes the values below it) or with a
// flow sequence of values.
var headerLine = regexp.MustCompile(`^\s*([A-Za-z0-9-]+):\s*(?:\[(.*)\])?\s*$`)

func scanFile(path string, secrets []string) ([]Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Finding
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	header := "" // the secret header whose values follow, if any
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		found := scanLine(line, secrets)
		// Secret headers: go-vcr writes "Authorization:" and, below it, "- value".
		if header != "" {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
				if len(found) == 0 && !notSecret(v) && strings.TrimSpace(v) != "" {
					found = append(found, match{what: "unredacted " + header + " header", text: mask(unquote(v)), fix: fixRedacted})
				}
			} else {
				header = ""
			}
		}
		if m := headerLine.FindStringSubmatch(line); m != nil && isSecretHeader(m[1]) {
			if strings.Contains(line, "[") {
				for _, v := range strings.Split(m[2], ",") {
					v = unquote(strings.TrimSpace(v))
					if len(found) == 0 && v != "" && !notSecret(v) {
						found = append(found, match{what: "unredacted " + m[1] + " header", text: mask(v), fix: fixRedacted})
					}
				}
			} else {
				header = m[1]
			}
		}
		for _, m := range found {
			out = append(out, Finding{Path: path, Line: n, What: m.what, Text: m.text, Fix: m.fix})
		}
	}
	return out, sc.Err()
}

// match is one secret found on a line.
type match struct {
	what, text, fix string
	start, end      int
}

// scanLine applies every rule and the literal secrets to one line.
func scanLine(line string, secrets []string) []match {
	var lower string
	var found []match
	overlaps := func(s, e int) bool {
		for _, m := range found {
			if s < m.end && m.start < e {
				return true
			}
		}
		return false
	}
	for _, s := range secrets {
		for off := 0; ; {
			i := strings.Index(line[off:], s)
			if i < 0 {
				break
			}
			found = append(found, match{what: "value of a key variable", text: mask(s), fix: fixEnv, start: off + i, end: off + i + len(s)})
			off += i + len(s)
		}
	}
	for _, r := range secretRules {
		for _, a := range r.anchors {
			if lower == "" {
				lower = strings.ToLower(line)
			}
			for off := 0; ; {
				i := strings.Index(lower[off:], a)
				if i < 0 {
					break
				}
				i += off
				off = i + len(a)
				// The window holds what a match can span around the anchor:
				// a field or parameter name before it, the secret after.
				w0, w1 := max(0, i-windowBefore), min(len(line), i+len(a)+windowAfter)
				for _, loc := range r.re.FindAllStringSubmatchIndex(line[w0:w1], -1) {
					if m, ok := r.match(line, w0, loc); ok && !overlaps(m.start, m.end) {
						found = append(found, m)
					}
				}
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].start < found[j].start })
	return found
}

// How far around an anchor a rule looks.
const (
	windowBefore = 64
	windowAfter  = 1024
)

// match turns one regular expression match, at offset w0 of line, into a
// finding: the secret is the last capture group (the whole match without
// one), and a second group names it (a parameter or field).
func (r secretRule) match(line string, w0 int, loc []int) (match, bool) {
	s, e := loc[0], loc[1]
	label := r.label
	if k := len(loc)/2 - 1; k >= 1 {
		s, e = loc[2*k], loc[2*k+1]
		if k >= 2 {
			label = line[w0+loc[2] : w0+loc[3]]
		}
	}
	if s < 0 {
		return match{}, false
	}
	s, e = w0+s, w0+e
	v := line[s:e]
	if len(v) < r.min || notSecret(v) {
		return match{}, false
	}
	if r.what == "key in JSON" && !secretValue(label, v) {
		return match{}, false
	}
	return match{what: r.what, text: maskLabelled(r.what, label, v), fix: r.fix, start: s, end: e}, true
}

// maskLabelled masks v and puts what names it in front: the parameter
// (key=…7890) or JSON field ("api_key": …9xyz).
func maskLabelled(what, label, v string) string {
	switch {
	case what == "key in JSON":
		return fmt.Sprintf("%q: %s", label, mask(v))
	case what == "credentials in a URL":
		return "//" + label + ":" + mask(v) + "@"
	case what == "key query parameter":
		name, _, _ := strings.Cut(label, "=")
		return name + "=" + mask(v)
	}
	return label + mask(v)
}

// keyPrefixes are the recognisable starts of key formats, kept in masks.
var keyPrefixes = []string{"sk-ant-", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-", "AIza"}

// mask keeps a key's recognisable prefix and, when the secret is long enough
// that they give nothing away, its last four characters: sk-proj-…abcd.
func mask(s string) string {
	prefix := ""
	for _, p := range keyPrefixes {
		if strings.HasPrefix(s, p) {
			prefix = p
			break
		}
	}
	rest := s[len(prefix):]
	if len(rest) < 16 {
		return prefix + "…"
	}
	return prefix + "…" + rest[len(rest)-4:]
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
