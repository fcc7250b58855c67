package standin

import (
	"net/http"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/wire"
)

// ollamaPaths are the paths of Ollama's native API the stand-in knows,
// served or refused in Ollama's shape.
var ollamaPaths = []string{"/api/chat", "/api/generate", "/api/embed", "/api/embeddings", "/api/tags", "/api/show", "/api/version", "/api/ps",
	"/api/pull", "/api/push", "/api/create", "/api/copy", "/api/delete"}

// ollamaPath reports whether path is one of Ollama's native API's.
func ollamaPath(path string) bool {
	for _, p := range ollamaPaths {
		if strings.HasSuffix(path, p) {
			return true
		}
	}
	return false
}

// serveOllama answers Ollama's native API: POST …/api/chat and
// …/api/generate as model calls, GET …/api/tags (the models the price table names for ollama), POST
// …/api/show, GET …/api/version, POST …/api/embed and the older POST
// …/api/embeddings; anything else with Ollama's 404.
func (s *Server) serveOllama(w http.ResponseWriter, r *http.Request) {
	const serves = "the stand-in serves Ollama's POST …/api/chat, POST …/api/generate, GET …/api/tags, POST …/api/show, GET …/api/version, POST …/api/embed and POST …/api/embeddings"
	post := r.Method == http.MethodPost
	switch p := r.URL.Path; {
	case post && wire.IsOllama(p):
		s.serve(w, r, wire.Ollama)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/api/tags"):
		var names []string
		for _, m := range cost.Default().Models(llm.ProviderOllama) {
			names = append(names, strings.TrimPrefix(m, "ollama/")) // the price table's key, not Ollama's name
		}
		writeJSON(w, http.StatusOK, wire.OllamaModels(names))
	case post && strings.HasSuffix(p, "/api/show"):
		writeJSON(w, http.StatusOK, wire.OllamaShow())
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/api/version"):
		writeJSON(w, http.StatusOK, map[string]any{"version": wire.OllamaVersion})
	case post && strings.HasSuffix(p, wire.OllamaEmbedPath):
		s.serveEmbeddings(w, r, wire.Ollama, wire.ReadEmbeddings, wire.OllamaEmbedBody)
	case post && strings.HasSuffix(p, wire.OllamaEmbeddingsPath):
		s.serveEmbeddings(w, r, wire.Ollama, wire.ReadOllamaEmbeddings, wire.OllamaEmbeddingsBody)
	default:
		writeError(w, wire.Ollama, http.StatusNotFound, r.Method+" "+p+": "+serves, 0)
	}
}
