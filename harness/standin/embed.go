package standin

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
)

// Embeddings. A vector has one dimension per climate concept (the count of
// the concept's keywords in the text, weight 1; the groups are the
// lexicon's embedConcepts, lexicon.go) and, in the remaining
// dimensions, the text's other words hashed (weight 0.2), normalized to unit
// length. Texts about the same concepts score high cosine similarity; texts
// that share only common words score low. It is a bag-of-concepts stand-in
// for an embedding model, deterministic and explainable.

var wordRe = regexp.MustCompile(`[\p{L}\p{N}+]+`)

func stopword(w string) bool {
	switch w {
	case "the", "a", "an", "and", "or", "of", "to", "in", "is", "are", "for", "on", "by", "with", "as", "at",
		"be", "it", "this", "that", "what", "how", "which", "from", "its", "their", "can", "do", "does":
		return true
	}
	return false
}

// embed returns the stand-in vector of text in dims dimensions.
func embed(text string, dims int) []float64 {
	cs := embedConcepts()
	if dims < len(cs)+8 {
		dims = len(cs) + 8
	}
	v := make([]float64, dims)
	lower := " " + strings.ToLower(text) + " "
	for i, words := range cs {
		for _, w := range words {
			v[i] += float64(strings.Count(lower, w))
		}
	}
	for _, w := range wordRe.FindAllString(lower, -1) {
		if stopword(w) || len(w) < 3 {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[len(cs)+int(h.Sum32()%uint32(dims-len(cs)))] += 0.2
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	if norm == 0 {
		v[dims-1], norm = 1, 1
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] = math.Round(v[i]/norm*1e6) / 1e6
	}
	return v
}

// serveEmbeddings answers POST …/embeddings in the OpenAI wire format.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), 0)
		return
	}
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "request is not JSON: "+err.Error(), 0)
		return
	}
	var texts []string
	if err := json.Unmarshal(req.Input, &texts); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "input must be a string or a list of strings", 0)
			return
		}
		texts = []string{one}
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		writeError(w, http.StatusBadRequest, `encoding_format must be "float" or "base64"`, 0)
		return
	}
	dims := req.Dimensions
	if dims <= 0 {
		dims = 64
	}
	var data []map[string]any
	tokens := 0
	for i, t := range texts {
		tokens += s.counter.Count(t)
		var v any = embed(t, dims)
		if req.EncodingFormat == "base64" {
			v = base64Vector(v.([]float64))
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
	}
	// Embedding is cheaper than generation: a quarter of the fixed and
	// per-input-token costs, no output tokens.
	lat := s.opts.Latency.Fixed/4 + s.opts.Latency.PerInputToken*time.Duration(tokens)/4
	w.Header().Set(cassette.LatencyHeader, lat.String())
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "model": req.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// base64Vector is a vector as OpenAI sends it for encoding_format "base64":
// its float32 values, little-endian, base64-encoded.
func base64Vector(v []float64) string {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
	}
	return base64.StdEncoding.EncodeToString(b)
}
