package standin

import (
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/wire"
)

// Embeddings. A vector has one dimension per climate concept (the count of
// the concept's keywords in the text, weight 1; the groups are the
// package lexicon, its EmbedConcepts) and, in the remaining
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
	cs := lexicon.EmbedConcepts()
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

// serveEmbeddings answers an embeddings request read with read (OpenAI's
// POST …/embeddings, and Ollama's …/api/embed, which reads alike; Ollama's
// older …/api/embeddings), its errors in dialect d's shape and its answer
// the one answer builds.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request, d wire.Dialect, read func([]byte) (wire.Embeddings, error), answer func(wire.Embeddings, [][]float64, int) any) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, d, http.StatusBadRequest, err.Error(), 0)
		return
	}
	req, err := read(body)
	if err != nil {
		writeError(w, d, http.StatusBadRequest, err.Error(), 0)
		return
	}
	vectors, tokens := s.embedAll(w, req, 64)
	writeJSON(w, http.StatusOK, answer(req, vectors, tokens))
}

// embedAll returns the stand-in vectors of req's texts, each in its
// dimensions (dims when it names none), with the tokens counted in them,
// and sets the modelled latency of the call: embedding is cheaper than
// generation, a quarter of the fixed and per-input-token costs, no output
// tokens.
func (s *Server) embedAll(w http.ResponseWriter, req wire.Embeddings, dims int) ([][]float64, int) {
	var vectors [][]float64
	tokens := 0
	for i, t := range req.Texts {
		tokens += s.counter.Count(t)
		n := req.Dims[i]
		if n <= 0 {
			n = dims
		}
		vectors = append(vectors, embed(t, n))
	}
	lat := s.opts.Latency.Fixed/4 + s.opts.Latency.PerInputToken*time.Duration(tokens)/4
	w.Header().Set(cassette.LatencyHeader, lat.String())
	return vectors, tokens
}
