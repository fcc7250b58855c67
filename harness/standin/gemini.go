package standin

import (
	"net/http"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// geminiUnserved are the Gemini API's model methods the stand-in does not
// serve: it answers them 501 UNIMPLEMENTED, and any other path it does not
// serve 404 NOT_FOUND, in Gemini's error shape.
var geminiUnserved = []string{":batchGenerateContent", ":predict", ":predictLongRunning"}

// serveGemini answers POST …/models/<model>:generateContent in the Gemini
// wire format, :embedContent and :batchEmbedContents (embed_gemini.go), and
// any other Gemini path (wire.GeminiPath) with Gemini's error.
func (s *Server) serveGemini(w http.ResponseWriter, r *http.Request) {
	const serves = "the stand-in serves POST …/models/<model>:generateContent, :streamGenerateContent (server-sent events with ?alt=sse, else a JSON array), :countTokens, :embedContent and :batchEmbedContents only"
	if id, ok := wire.ModelsPath(r.URL.Path); ok && r.Method == http.MethodGet {
		serveModels(w, wire.Gemini, id)
		return
	}
	if model, method, ok := wire.GeminiEmbedMethod(r.URL.Path); ok && r.Method == http.MethodPost {
		s.serveGeminiEmbed(w, r, model, method)
		return
	}
	_, _, ok := wire.GeminiModel(r.URL.Path)
	switch {
	case ok && r.Method != http.MethodPost:
		writeError(w, wire.Gemini, http.StatusNotFound, r.Method+" "+r.URL.Path+": "+serves, 0)
		return
	case !ok:
		for _, m := range geminiUnserved {
			if strings.HasSuffix(r.URL.Path, m) {
				writeError(w, wire.Gemini, http.StatusNotImplemented, m+": "+serves, 0)
				return
			}
		}
		writeError(w, wire.Gemini, http.StatusNotFound, r.URL.Path+": "+serves, 0)
		return
	}
	s.serve(w, r, wire.Gemini)
}
