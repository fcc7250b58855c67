package cassette

import (
	"net/http"
	"net/url"
	"slices"
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

// withoutQuery is a URL without its query.
func withoutQuery(raw string) string {
	s, _, _ := strings.Cut(raw, "?")
	return s
}

// queryDiff describes how the query parameters of two URLs differ, one
// "query key: recorded → live" per parameter, by key.
func queryDiff(recorded, live string) []string {
	a, b := query(recorded), query(live)
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		va, vb := values(a, k), values(b, k)
		if va != vb {
			va, vb = clipPair(va, vb)
			out = append(out, "query "+k+": "+va+" → "+vb)
		}
	}
	return out
}

// query is raw's query parameters; none when it does not parse.
func query(raw string) url.Values {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	return u.Query()
}

// values is q's values of k, joined, or (absent).
func values(q url.Values, k string) string {
	vs, ok := q[k]
	if !ok {
		return "(absent)"
	}
	return strings.Join(vs, ", ")
}
