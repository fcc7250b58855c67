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

// logical maps a path below the session prefix to the logical URL the
// cassettes record.
func (s *session) logical(path, query string) (string, error) {
	var base, tail string
	switch {
	case strings.HasPrefix(path, "/upstream/"):
		name, t, _ := strings.Cut(strings.TrimPrefix(path, "/upstream/"), "/")
		b, ok := s.Upstreams[name]
		if !ok {
			return "", fmt.Errorf("no upstream %q in this session (upstreams: %s)", name, strings.Join(slices.Sorted(maps.Keys(s.Upstreams)), ", "))
		}
		base, tail = b, "/"+t
	case strings.HasPrefix(path, "/v1beta/") && s.Gemini != "":
		base, tail = s.Gemini, path
	case strings.HasPrefix(path, "/openai/") && s.Azure != "":
		base, tail = s.Azure, path
	case strings.HasPrefix(path, "/api/") && s.Ollama != "":
		base, tail = s.Ollama, path
	case (path == "/v1/messages" || strings.HasPrefix(path, "/v1/messages/")) && s.Anthropic != "":
		// The Anthropic base URL has no version; the SDKs add /v1/messages.
		base, tail = s.Anthropic, path
	case strings.HasPrefix(path, "/v1/embeddings") && s.Embeddings != "":
		base, tail = s.Embeddings, strings.TrimPrefix(path, "/v1")
	case s.geminiV1(path):
		base, tail = s.Gemini, path
	case strings.HasPrefix(path, "/v1/") && s.Model != "":
		// The OpenAI base URL ends in its version (…/v1); the path repeats it.
		base, tail = s.Model, strings.TrimPrefix(path, "/v1")
	default:
		return "", fmt.Errorf("no route for %s: the proxy serves /v1/messages (Anthropic), /v1/… (OpenAI), /v1beta/… (Gemini), /openai/… (Azure OpenAI), /api/… (Ollama) and /upstream/<name>/…, each when the session has it", path)
	}
	u, err := url.Parse(strings.TrimRight(base, "/") + tail)
	if err != nil {
		return "", err
	}
	u.RawQuery = query
	return u.String(), nil
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
// header its provider reads, and drops the agent's own credentials.
func (s *session) authorize(h http.Header, path string) {
	if !strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/v1beta/") && !strings.HasPrefix(path, "/openai/") {
		return // an upstream keeps what the agent sent
	}
	for _, k := range []string{"Authorization", "X-Goog-Api-Key", "X-Api-Key", "Api-Key"} {
		h.Del(k)
	}
	switch {
	case strings.HasPrefix(path, "/v1beta/") || s.geminiV1(path):
		h.Set("X-Goog-Api-Key", s.Key)
	case strings.HasPrefix(path, "/openai/"):
		h.Set("Api-Key", s.Key)
	case strings.HasPrefix(path, "/v1/messages"):
		h.Set("X-Api-Key", s.Key)
	default:
		h.Set("Authorization", "Bearer "+s.Key)
	}
}
