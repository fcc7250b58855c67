package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// ErrEscaped is matched (errors.Is) by End's error when the session's agent
// called a host directly rather than through its base URLs: a host it was
// not given, or the real internet in a replay.
var ErrEscaped = errors.New("the agent called a host it was not given")

// escapeError is one such call; models are the session's model endpoints
// (their providers and logical base URLs).
type escapeError struct {
	target string
	models []llm.Endpoint
}

func (e *escapeError) Error() string {
	return fmt.Sprintf("the agent called %s directly, not through the base URLs it was given (%s): %s", e.target, GivenBaseURLs(e.models...), DirectAdvice(e.target, e.models...))
}

// GivenBaseURLs names the variables that gave an agent the base URLs of
// models (BaseURLEnv of each provider with a base URL: OPENAI_BASE_URL,
// ANTHROPIC_BASE_URL …), then its upstreams': "ANTHROPIC_BASE_URL,
// <NAME>_BASE_URL …".
func GivenBaseURLs(models ...llm.Endpoint) string {
	var names []string
	for _, m := range models {
		if n := BaseURLEnv(m.Provider); m.BaseURL != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(append(names, "<NAME>_BASE_URL …"), ", ")
}

// DirectAdvice is what an error about a call to target (a host, host:port
// or URL) that an agent made directly, not through the base URLs it was
// given, advises: to name that host as an upstream in the suite, or stop
// calling it; unless it is the host of one of models (the run's model
// endpoints), which no upstream can stand for: then a client in the agent
// does not read the variable that gave it the base URL of that endpoint's
// provider (ANTHROPIC_BASE_URL for Anthropic's), as the OpenAI Agents
// SDK's trace exporter does not read OPENAI_BASE_URL, which that advice
// names only for OpenAI's own host.
func DirectAdvice(target string, models ...llm.Endpoint) string {
	host := target
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		host = u.Host
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	for _, m := range models {
		if u, err := url.Parse(m.BaseURL); err == nil && m.BaseURL != "" && strings.EqualFold(u.Hostname(), host) {
			advice := fmt.Sprintf("that is the host of the model's own API (%s), which the agent was given in %s as a base URL of the proxy, so a client in it does not read that variable: ",
				m.BaseURL, BaseURLEnv(m.Provider))
			if strings.EqualFold(host, "api.openai.com") {
				advice += "the OpenAI Agents SDK's trace exporter, for one, posts to https://api.openai.com/v1/traces/ingest whatever OPENAI_BASE_URL says " +
					"(testbed turns it off with OPENAI_AGENTS_DISABLE_TRACING=1 unless the suite's agent env: sets that variable); "
			}
			return advice + "give that client the base URL, or turn it off"
		}
	}
	return "name that host as an upstream in the suite, or stop calling it"
}

func (e *escapeError) Is(target error) bool { return target == ErrEscaped }

// ErrTooLarge is matched (errors.Is) by End's error when the session's
// agent sent a request whose body was over the session's MaxBody.
var ErrTooLarge = errors.New("request body too large")

// tooLargeError is one such request.
type tooLargeError struct {
	method, target string
	limit          int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s %s: the request body is over the proxy's %s limit and was refused with 413; if the agent really sends that much, raise it with agent: max_request_body in the suite", e.method, e.target, size(e.limit))
}

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// size formats a byte count as the suite's max_request_body writes it:
// 32MiB, 512KiB, 1000B.
func size(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// problem answers with a JSON error body in the shape of the provider
// whose path the request was for (errorBody), so that the agent's own SDK
// reads it and its error says why. A problem that asking again cannot
// change (all but a bad gateway and a timeout) carries x-should-retry:
// false, which the official OpenAI and Anthropic SDKs obey, so that a
// deterministic answer such as a replay miss is not sent three times.
func problem(w http.ResponseWriter, path string, status int, format string, args ...any) {
	problemCoded(w, path, status, openAICodes[status], format, args...)
}

// MissHeader marks the answer to a call the session's cassette lacks (its
// body says why), for a client that must tell a stale cassette from the
// agent's own failure.
const MissHeader = "X-Testbed-Replay-Miss"

// replayMiss answers a request the cassette does not have: 404, with the
// code testbed_replay_miss in OpenAI's shape. Not a 5xx: a replay miss is
// as final as its cassette, and clients that read no x-should-retry
// retry a 5xx (@google/genai's Interactions client four times, up to 7.5 s
// in all; LangChain.js six times); none of them retries a 404.
func replayMiss(w http.ResponseWriter, path string, err error) {
	w.Header().Set(MissHeader, "true")
	problemCoded(w, path, http.StatusNotFound, "replay_miss", "%v", err)
}

// problemCoded is problem with OpenAI's error code (after "testbed_")
// given.
func problemCoded(w http.ResponseWriter, path string, status int, code, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	if status != http.StatusBadGateway && status != http.StatusGatewayTimeout {
		w.Header().Set("X-Should-Retry", "false")
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(errorBody(path, status, code, "testbed proxy: "+fmt.Sprintf(format, args...)))
}

// errorBody is an error in the shape of the provider served at path (below
// the session's prefix): Gemini's under /v1beta/ and for its paths under
// /v1/ (geminiShaped), Ollama's under /api/,
// Anthropic's under /v1/messages (wire.ErrorBody), OpenAI's under /v1/ and /openai/ (Azure)
// with a testbed_ code
// saying what went wrong (testbed_replay_miss, testbed_escaped …);
// elsewhere (an upstream, no session) one that all three SDKs read:
// OpenAI's, with Anthropic's top-level type.
func errorBody(path string, status int, code, msg string) any {
	switch {
	case strings.HasPrefix(path, "/v1beta/") || geminiShaped(path):
		return wire.ErrorBody(wire.Gemini, status, msg)
	case strings.HasPrefix(path, "/api/"):
		return wire.ErrorBody(wire.Ollama, status, msg)
	case path == "/v1/messages" || strings.HasPrefix(path, "/v1/messages/"):
		return wire.ErrorBody(wire.Anthropic, status, msg)
	case strings.HasPrefix(path, "/v1/") || strings.HasPrefix(path, "/openai/"):
		kind := "server_error"
		if status < 500 {
			kind = "invalid_request_error"
		}
		if code == "" {
			code = "proxy_error"
		}
		return wire.OpenAIError(msg, kind, "", "testbed_"+code)
	}
	return map[string]any{"type": "error", "error": map[string]string{"message": msg, "type": "testbed_proxy"}}
}

// openAICodes say what went wrong, by the status the proxy answers with.
var openAICodes = map[int]string{
	http.StatusBadRequest: "bad_request", http.StatusForbidden: "escaped", http.StatusNotFound: "not_found",
	http.StatusRequestEntityTooLarge: "request_too_large",
	http.StatusBadGateway:            "bad_gateway", http.StatusGatewayTimeout: "timeout",
}

// isTimeout reports whether err is a timeout (a net.Error that says so).
func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}
