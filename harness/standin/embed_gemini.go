package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
)

// Gemini embeddings: POST …/models/<model>:embedContent answers
// {"embedding": {"values": […]}} and :batchEmbedContents (what the genai
// SDKs call) {"embeddings": [{"values": […]}, …]}, with the stand-in's
// vectors (embed: concepts and hashed words, unit length) in the model's
// documented dimension, or in outputDimensionality when a request asks
// for fewer. taskType and title are read and do not change the vector.

// geminiEmbedDims are the output dimensions of Gemini's embedding models,
// as Google's model pages give them; a model not listed gets
// defaultGeminiEmbedDims.
var geminiEmbedDims = map[string]int{
	"gemini-embedding-001": 3072, "gemini-embedding-exp-03-07": 3072,
	"text-embedding-004": 768, "embedding-001": 768,
}

const defaultGeminiEmbedDims = 768

// geminiEmbedRequest is an EmbedContentRequest.
type geminiEmbedRequest struct {
	Model                string         `json:"model"`
	Content              *geminiContent `json:"content"`
	TaskType             string         `json:"taskType"`
	Title                string         `json:"title"`
	OutputDimensionality int            `json:"outputDimensionality"`
}

// embedSuffixes are the embedding methods of a Gemini model path.
var embedSuffixes = []string{":embedContent", ":batchEmbedContents"}

// embedMethod returns the model and method (":embedContent" or
// ":batchEmbedContents") of an embedding path.
func embedMethod(path string) (model, method string, ok bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", "", false
	}
	for _, m := range embedSuffixes {
		if rest, found := strings.CutSuffix(path[i+len("/models/"):], m); found && rest != "" && !strings.Contains(rest, "/") {
			return rest, m, true
		}
	}
	return "", "", false
}

// serveGeminiEmbed answers an embedding method of model.
func (s *Server) serveGeminiEmbed(w http.ResponseWriter, r *http.Request, model, method string) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeGeminiError(w, http.StatusBadRequest, err.Error(), 0)
		return
	}
	var reqs []geminiEmbedRequest
	single := method == ":embedContent"
	if single {
		var one geminiEmbedRequest
		err = json.Unmarshal(body, &one)
		reqs = append(reqs, one)
	} else {
		var batch struct {
			Requests []geminiEmbedRequest `json:"requests"`
		}
		err = json.Unmarshal(body, &batch)
		reqs = batch.Requests
		if err == nil && len(reqs) == 0 {
			err = fmt.Errorf("* BatchEmbedContentsRequest.requests: requests is not specified")
		}
	}
	if err != nil {
		writeGeminiError(w, http.StatusBadRequest, "request is not valid: "+err.Error(), 0)
		return
	}
	limit, ok := geminiEmbedDims[model]
	if !ok {
		limit = defaultGeminiEmbedDims
	}
	var out []map[string]any
	tokens := 0
	for i, q := range reqs {
		if err := checkEmbed(q, model, limit, i, single); err != nil {
			writeGeminiError(w, http.StatusBadRequest, err.Error(), 0)
			return
		}
		dims := limit
		if q.OutputDimensionality > 0 {
			dims = q.OutputDimensionality
		}
		text := q.Content.text()
		tokens += s.counter.Count(text)
		out = append(out, map[string]any{"values": embed(text, dims)[:dims]})
	}
	lat := s.opts.Latency.Fixed/4 + s.opts.Latency.PerInputToken*time.Duration(tokens)/4
	w.Header().Set(cassette.LatencyHeader, lat.String())
	if single {
		writeJSON(w, http.StatusOK, map[string]any{"embedding": out[0]})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"embeddings": out})
}

// checkEmbed returns what the API refuses in the i-th request of a call to
// model: no content or no parts; in a batch, a request without the URL's
// model (models/<model>); an outputDimensionality above the model's.
func checkEmbed(q geminiEmbedRequest, model string, limit, i int, single bool) error {
	at := "EmbedContentRequest"
	if !single {
		at = fmt.Sprintf("BatchEmbedContentsRequest.requests[%d]", i)
	}
	switch {
	case q.Content == nil:
		return fmt.Errorf("* %s.content: content is not specified", at)
	case len(q.Content.Parts) == 0:
		return fmt.Errorf("* %s.content.parts: contents.parts must not be empty", at)
	case !single && q.Model == "":
		return fmt.Errorf("* %s.model: model is not specified", at)
	case !single && strings.TrimPrefix(q.Model, "models/") != model:
		return fmt.Errorf("* %s.model: %s is not the model of the URL, models/%s", at, q.Model, model)
	case q.OutputDimensionality < 0 || q.OutputDimensionality > limit:
		return fmt.Errorf("* %s.output_dimensionality: %d is not between 1 and %s's %d dimensions", at, q.OutputDimensionality, model, limit)
	}
	return nil
}
