package cassette

import (
	"net/http"
	neturl "net/url"
	"strings"

	matcher "github.com/agentreplay/testbed/harness/match"
	"github.com/agentreplay/testbed/harness/wire"
)

// matchBody is what replay compares of a request body sent to url: its
// canonical form (CanonicalBody) with the match rules applied, and the ids
// of the tool calls and results of a Gemini call and of an Ollama chat
// numbered (wire.NumberGeminiCallIDs, wire.NumberOllamaCallIDs): those
// APIs give a call no id, and clients make one up.
func matchBody(body []byte, url string, opts Options) []byte {
	var numbered func(any)
	if u, err := neturl.Parse(url); err == nil {
		if _, _, ok := wire.GeminiModel(u.Path); ok {
			numbered = wire.NumberGeminiCallIDs
		} else if strings.HasSuffix(u.Path, wire.OllamaChatPath) {
			numbered = wire.NumberOllamaCallIDs
		}
	}
	return canonicalBody(body, opts.Volatile, opts.Match, numbered)
}

// matchURL is what replay compares of a URL: its canonical form
// (CanonicalURL) with the match rules applied.
func matchURL(raw string, rules *matcher.Rules) string {
	return rules.URL(CanonicalURL(raw))
}

// keepCompared adds to kept, the request headers a recording keeps, the
// ones the match rules compare, as sent but for the secrets in them (d); a
// header whose name says it carries credentials stays REDACTED.
func keepCompared(kept, sent http.Header, rules *matcher.Rules, d *Detector) {
	for _, name := range rules.HeaderNames() {
		if _, ok := kept[name]; ok || d.secretHeader(name) {
			continue
		}
		for k, vs := range sent {
			if !strings.EqualFold(k, name) {
				continue
			}
			for _, v := range vs {
				kept[name] = append(kept[name], d.Text(v))
			}
		}
	}
}

// matchHeader is what replay compares of a live request's headers: the
// ones the match rules name, as a recording would keep them.
func matchHeader(sent http.Header, rules *matcher.Rules, d *Detector) []string {
	if len(rules.HeaderNames()) == 0 {
		return nil
	}
	kept := d.RequestHeaders(sent)
	keepCompared(kept, sent, rules, d)
	return rules.Header(kept)
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
