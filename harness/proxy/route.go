package proxy

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// Routing: which provider or upstream a path below a session's prefix
// stands for, and the key its provider reads.

// logical maps a path below the session prefix, sent with header h, to
// the logical URL the cassettes record. escaped is the same path as the
// agent escaped it: an upstream's tail is taken from it, so an id with a
// "?", "#" or "/" in it stays in its segment.
func (s *session) logical(path, escaped, query string, h http.Header) (string, error) {
	var base, tail string
	switch {
	case strings.HasPrefix(path, "/upstream/"):
		name, _, _ := strings.Cut(strings.TrimPrefix(path, "/upstream/"), "/")
		b, ok := s.Upstreams[name]
		if !ok {
			return "", fmt.Errorf("no upstream %q in this session (upstreams: %s)", name, strings.Join(slices.Sorted(maps.Keys(s.Upstreams)), ", "))
		}
		_, t, _ := strings.Cut(strings.TrimPrefix(escaped, "/upstream/"), "/")
		base, tail = b, "/"+t
	case strings.HasPrefix(path, "/v1beta/") && s.Gemini != "":
		base, tail = s.Gemini, path
	case strings.HasPrefix(path, "/openai/") && s.Azure != "":
		base, tail = s.Azure, path
	case strings.HasPrefix(path, "/api/") && s.Ollama != "":
		base, tail = s.Ollama, path
	case s.anthropicAPI(path, h):
		// The Anthropic base URL has no version; the SDKs add /v1/….
		base, tail = s.Anthropic, path
	case strings.HasPrefix(path, "/v1/embeddings") && s.Embeddings != "":
		base, tail = s.Embeddings, strings.TrimPrefix(path, "/v1")
	case s.geminiV1(path):
		base, tail = s.Gemini, path
	case strings.HasPrefix(path, "/v1/") && s.Model != "":
		// The OpenAI base URL ends in its version (…/v1); the path repeats it.
		base, tail = s.Model, strings.TrimPrefix(path, "/v1")
	default:
		return "", fmt.Errorf("no route for %s: the proxy serves /v1/messages and what Anthropic's clients send to /v1/… (Anthropic), /v1/… (OpenAI), /v1beta/… (Gemini), /openai/… (Azure OpenAI), /api/… (Ollama) and /upstream/<name>/…, each when the session has it", path)
	}
	u, err := url.Parse(strings.TrimRight(base, "/") + tail)
	if err != nil {
		return "", err
	}
	u.RawQuery = query
	return u.String(), nil
}

// anthropicAPI reports whether a request to path with header h is for the
// session's Anthropic API: its Messages paths (/v1/messages, token
// counting, batches), or any other path below /v1/ sent with
// anthropic-version, which every Anthropic client sends and no other
// provider's does: the models API (/v1/models, /v1/models/<id>), which
// OpenAI and Gemini have at the same path, and the files API.
func (s *session) anthropicAPI(path string, h http.Header) bool {
	if s.Anthropic == "" {
		return false
	}
	return path == "/v1/messages" || strings.HasPrefix(path, "/v1/messages/") ||
		strings.HasPrefix(path, "/v1/") && h.Get("Anthropic-Version") != ""
}

// geminiV1 reports whether path, below /v1/, is Gemini's: the version
// Google's newer SDKs call by default (@google/genai 3 calls
// /v1/models/<model>:generateContent and /v1/interactions). It is when the
// session has Gemini and the path is Gemini-shaped (a model's method, the
// Interactions API), or when the session has Gemini and no OpenAI model.
func (s *Session) geminiV1(path string) bool {
	return s.Gemini != "" && strings.HasPrefix(path, "/v1/") && (s.Model == "" || geminiShaped(path))
}

// geminiShaped reports whether path is one only Gemini has: a model's
// method (…/models/<model>:generateContent …), the Interactions API's or the
// cachedContents API's.
func geminiShaped(path string) bool {
	i := strings.LastIndex(path, "/models/")
	return (i >= 0 && strings.Contains(path[i:], ":")) || wire.IsInteractions(path) || wire.IsStoredInteraction(path) || wire.IsCachedContents(path)
}

// authorize sets the session's key on a model request to path, in the
// header its provider reads (h's anthropic-version tells Anthropic's
// requests, as for logical), and drops the agent's own credentials.
func (s *session) authorize(h http.Header, path string) {
	if !strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v1beta/") && !strings.HasPrefix(path, "/openai/") {
		return // an upstream keeps what the agent sent
	}
	for _, k := range []string{"Authorization", "X-Goog-Api-Key", "X-Api-Key", "Api-Key"} {
		h.Del(k)
	}
	switch {
	case s.anthropicAPI(path, h):
		h.Set("X-Api-Key", s.Key)
	case strings.HasPrefix(path, "/v1beta/") || s.geminiV1(path):
		h.Set("X-Goog-Api-Key", s.Key)
	case strings.HasPrefix(path, "/openai/"):
		h.Set("Api-Key", s.Key)
	default:
		h.Set("Authorization", "Bearer "+s.Key)
	}
}

// escapedBelow is the path below r's session (or alias) prefix as the
// agent escaped it: an upstream's path keeps its %3F, %23 and %2F, which
// the decoded path would turn into a query, a fragment or another segment.
func escapedBelow(r *http.Request) string {
	p := r.URL.EscapedPath()
	for _, prefix := range []string{"/s/", "/a/"} {
		if tail, ok := strings.CutPrefix(p, prefix); ok && strings.HasPrefix(r.URL.Path, prefix) {
			_, more, _ := strings.Cut(tail, "/")
			return "/" + more
		}
	}
	return p
}
