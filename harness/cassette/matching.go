package cassette

import (
	"net/http"
	"strings"

	matcher "github.com/agentreplay/testbed/harness/match"
)

// matchBody is what replay compares of a request body: its canonical form
// (CanonicalBody) with the match rules applied.
func matchBody(body []byte, opts Options) []byte {
	return canonicalBody(body, opts.Volatile, opts.Match)
}

// matchURL is what replay compares of a URL: its canonical form
// (CanonicalURL) with the match rules applied.
func matchURL(raw string, rules *matcher.Rules) string {
	return rules.URL(CanonicalURL(raw))
}

// keepCompared adds to kept, the request headers a recording keeps, the
// ones the match rules compare, as sent but for the literal secrets in
// them; a header whose name says it carries credentials stays REDACTED.
func keepCompared(kept, sent http.Header, rules *matcher.Rules, secrets []string) {
	for _, name := range rules.HeaderNames() {
		if _, ok := kept[name]; ok || isSecretHeader(name) {
			continue
		}
		for k, vs := range sent {
			if !strings.EqualFold(k, name) {
				continue
			}
			for _, v := range vs {
				kept[name] = append(kept[name], redactLiterals(v, secrets))
			}
		}
	}
}

// matchHeader is what replay compares of a live request's headers: the
// ones the match rules name, as a recording would keep them.
func matchHeader(sent http.Header, opts Options) []string {
	names := opts.Match.HeaderNames()
	if len(names) == 0 {
		return nil
	}
	secrets := opts.literals()
	kept := recordedHeaders(sent, secrets)
	keepCompared(kept, sent, opts.Match, secrets)
	return opts.Match.Header(kept)
}

// headerDiff describes how the compared headers differ, one
// "header Name: recorded → live" per header.
func headerDiff(recorded, live []string) []string {
	var out []string
	for i := range min(len(recorded), len(live)) {
		if recorded[i] != live[i] {
			name, a, _ := strings.Cut(recorded[i], ": ")
			_, b, _ := strings.Cut(live[i], ": ")
			a, b = clipPair(a, b)
			out = append(out, "header "+name+": "+a+" → "+b)
		}
	}
	return out
}
