package standin

import (
	"cmp"
	"io"
	"maps"
	"net/http"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/wire"
)

// The providers' resources beside their model calls that the stand-in
// serves: the OpenAI Conversations API, the Responses API's compaction,
// Gemini's cached contents and the model listings.

// serveConversations answers the OpenAI Conversations API from the
// conversations the stand-in keeps, with the x-request-id header its
// answers carry.
func (s *Server) serveConversations(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, wire.Responses, http.StatusBadRequest, err.Error(), 0)
		return
	}
	status, resp := s.threads.Conversations(r.Method, r.URL.Path, r.URL.Query(), body)
	maps.Copy(w.Header(), wire.RequestHeader(wire.Responses, append([]byte(r.Method+" "+r.URL.String()+"\n"), body...), 0))
	writeJSON(w, status, resp)
}

// serveCaches answers Gemini's cachedContents API (wire.CachedContents),
// counting a cache's tokens as a call's input is counted.
func (s *Server) serveCaches(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, wire.Gemini, http.StatusBadRequest, err.Error(), 0)
		return
	}
	status, resp := s.threads.CachedContents(r.Method, r.URL.Path, body, func(req wire.Request) int {
		return s.counter.Request(llm.Request{Messages: req.Messages, Tools: req.Tools}).Total()
	})
	writeJSON(w, status, resp)
}

// serveCompact answers the Responses API's compaction (wire.Compact),
// counting tokens as a call's are counted, at the modelled latency of a
// call reading the conversation and writing the summary.
func (s *Server) serveCompact(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, wire.Responses, http.StatusBadRequest, err.Error(), 0)
		return
	}
	status, resp := s.threads.Compact(body, func(req wire.Request) int {
		return s.counter.Request(llm.Request{Messages: req.Messages, Tools: req.Tools}).Total()
	})
	maps.Copy(w.Header(), wire.RequestHeader(wire.Responses, body, 0))
	answer, _ := resp.(map[string]any)
	if usage, ok := answer["usage"].(map[string]any); ok {
		w.Header().Set(cassette.LatencyHeader, s.opts.Latency.Of(usage["input_tokens"].(int), usage["output_tokens"].(int)).String())
	}
	writeJSON(w, status, resp)
}

// serveModels answers a model listing of dialect d: the model id, which
// the stand-in answers whatever it is, or with id "" the list of the
// models testbed's price table names for the provider.
func serveModels(w http.ResponseWriter, d wire.Dialect, id string) {
	if id != "" {
		writeJSON(w, http.StatusOK, wire.ModelObject(d, id))
		return
	}
	provider := map[wire.Dialect]string{wire.Anthropic: llm.ProviderAnthropic, wire.Gemini: llm.ProviderGemini}[d]
	writeJSON(w, http.StatusOK, wire.ModelList(d, cost.Default().Models(cmp.Or(provider, llm.ProviderOpenAI))))
}
