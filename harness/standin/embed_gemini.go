package standin

import (
	"io"
	"net/http"

	"github.com/agentreplay/testbed/harness/wire"
)

// Gemini embeddings: :embedContent and :batchEmbedContents (what the genai
// SDKs call) answer with the stand-in's vectors (embed: concepts and
// hashed words, unit length) in the model's documented dimension, or in
// outputDimensionality when a request asks for fewer (wire.ReadGeminiEmbed).

// serveGeminiEmbed answers an embedding method of model.
func (s *Server) serveGeminiEmbed(w http.ResponseWriter, r *http.Request, model, method string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, wire.Gemini, http.StatusBadRequest, err.Error(), 0)
		return
	}
	req, err := wire.ReadGeminiEmbed(model, method, body)
	if err != nil {
		writeError(w, wire.Gemini, http.StatusBadRequest, err.Error(), 0)
		return
	}
	vectors, _ := s.embedAll(w, req, 0)
	for i, v := range vectors {
		vectors[i] = v[:req.Dims[i]]
	}
	writeJSON(w, http.StatusOK, wire.GeminiEmbedBody(method, vectors))
}
