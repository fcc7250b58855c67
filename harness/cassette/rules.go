package cassette

import (
	"fmt"
	"regexp"
	"strings"
)

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
	// near, when set, must match in the window too: what makes a value
	// without a keyword of its own a secret (an AWS key id beside its
	// secret access key).
	near *regexp.Regexp
	fix  string
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
	{what: "Google OAuth token", re: regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{20,}`), anchors: []string{"ya29."}, fix: fixKey},
	// A secret access key is 40 base64 characters with nothing to name it;
	// beside its access key id (64 bytes before it or 1 KiB after) it is one.
	// An = before it is an assignment (aws_secret_access_key=…), never part
	// of the same base64 run; one after it would be padding.
	{what: "AWS secret access key", re: regexp.MustCompile(`(?:^|[^A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		anchors: []string{"akia", "asia", "abia", "acca"}, near: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`), fix: fixKey},
	{what: "bearer token", label: "Bearer ", re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{8,})`), min: 12, anchors: []string{"bearer"}, fix: fixRedacted},
	{what: "credentials in a URL", re: regexp.MustCompile(`://([^/\s:@"'\\]+):([^/\s@"'\\]{6,})@`), anchors: []string{"://"}, fix: fixRedacted},
	{what: "key query parameter", re: regexp.MustCompile(`(?i)(?:^|[?&\s"'(])((?:key|api[_-]?key|access[_-]?token|auth[_-]?token|token|client[_-]?secret|secret|password)=([^&\s"'#\\)]+))`), min: 8, anchors: suffixed(keyAnchors, "="), fix: fixRedacted},
	{what: "key in JSON", re: regexp.MustCompile(`\\?"([A-Za-z0-9_-]*(?i:key|token|secret|password|passwd|authorization|credentials))\\?"\s*:\s*\\?"([^"\\]*)\\?"`), anchors: suffixed(keyAnchors, `"`, `\"`), fix: fixRedacted},
}

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
	if r.near != nil && !mixedCase(v) {
		return match{}, false
	}
	if r.what == "key query parameter" && !plausibleParam(v) {
		return match{}, false
	}
	return match{what: r.what, text: maskLabelled(r.what, label, v), fix: r.fix, secret: v, start: s, end: e}, true
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

// How far around an anchor a rule looks.
const (
	windowBefore = 64
	windowAfter  = 1024
)

// asciiLower lower-cases ASCII letters only, so that offsets into the
// result are offsets into s (strings.ToLower can change byte lengths).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mixedCase reports whether s has an upper-case letter, a lower-case
// letter and a digit, as a generated key does and a word or a hex digest
// does not.
func mixedCase(s string) bool {
	return strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, "0123456789")
}

// plausibleParam reports whether a key= value could be a credential rather
// than code that reads one (api_key=os.getenv("OPENAI_API_KEY")) or a
// template ({api_key}).
func plausibleParam(v string) bool {
	return !strings.ContainsAny(v, "(){}<>$[]") && strings.ContainsAny(v, "0123456789")
}

// ourRules applies secretRules to text (lower is its ASCII lower-case copy),
// each in windows around its anchors; a later rule's match overlapping an
// earlier one is the same secret.
func ourRules(text, lower string) []match {
	var found []match
	overlaps := func(s, e int) bool {
		for _, m := range found {
			if s < m.end && m.start < e {
				return true
			}
		}
		return false
	}
	for _, r := range secretRules {
		for _, a := range r.anchors {
			for off := 0; ; {
				i := strings.Index(lower[off:], a)
				if i < 0 {
					break
				}
				i += off
				off = i + len(a)
				// The window holds what a match can span around the anchor:
				// a field or parameter name before it, the secret after.
				w0, w1 := max(0, i-windowBefore), min(len(text), i+len(a)+windowAfter)
				if r.near != nil && !r.near.MatchString(text[w0:w1]) {
					continue
				}
				for _, loc := range r.re.FindAllStringSubmatchIndex(text[w0:w1], -1) {
					if m, ok := r.match(text, w0, loc); ok && !overlaps(m.start, m.end) {
						found = append(found, m)
					}
				}
			}
		}
	}
	return found
}
