package standin

import (
	"encoding/json"
	"io"
	"maps"
	"math/rand"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/wire"
)

// Options configure a Server. The zero value serves with DefaultLatency and
// no faults.
type Options struct {
	Policies []Policy
	Latency  Latency
	// FaultRate is the share of calls that fail, drawn from a generator seeded
	// with Seed, so the same run injects the same faults.
	FaultRate float64
	Seed      int64
	Faults    []string // kinds to draw from; default all
}

// Server is a running stand-in.
type Server struct {
	opts     Options
	counter  *tokens.Counter
	listener net.Listener
	srv      *http.Server
	mu       sync.Mutex
	rng      *rand.Rand
	// threads keeps its Responses API answers' conversations, for the
	// requests that continue one (previous_response_id).
	threads wire.Threads
}

// New returns a stand-in handler; Start serves it on loopback.
func New(opts Options) (*Server, error) {
	c, err := tokens.New(tokens.EncodingO200K)
	if err != nil {
		return nil, err
	}
	if opts.Latency == (Latency{}) {
		opts.Latency = DefaultLatency()
	}
	if len(opts.Faults) == 0 {
		opts.Faults = Faults()
	}
	return &Server{opts: opts, counter: c, rng: rand.New(rand.NewSource(opts.Seed))}, nil
}

// Start serves s on 127.0.0.1 until Close.
func (s *Server) Start() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.listener = l
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(l)
	return nil
}

// URL is the server's base URL, such as http://127.0.0.1:41234.
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Close stops the server.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// ServeHTTP implements http.Handler for POST …/chat/completions,
// …/v1/responses (Azure OpenAI's …/openai/responses), …/embeddings,
// …/models/<model>:generateContent, …/v1beta/interactions, …/v1/messages
// and Ollama's …/api/chat (with its model listing, details, version and
// embeddings).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// No Date header: recordings must not change with the wall clock. An
	// answer beside a model call (a listing, a stored resource, a token
	// count) takes a call's fixed latency; a model call's answer states its
	// own.
	w.Header()["Date"] = nil
	w.Header().Set(cassette.LatencyHeader, s.opts.Latency.Fixed.String())
	if ollamaPath(r.URL.Path) {
		s.serveOllama(w, r)
		return
	}
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/embeddings") {
		s.serveEmbeddings(w, r, wire.Chat, wire.ReadEmbeddings, wire.EmbeddingsBody)
		return
	}
	if d, ok := wire.CountDialect(r.URL.Path); ok && r.Method == http.MethodPost {
		s.serveCount(w, r, d)
		return
	}
	if wire.IsInteractions(r.URL.Path) || wire.IsStoredInteraction(r.URL.Path) {
		if r.Method != http.MethodPost || !wire.IsInteractions(r.URL.Path) {
			status, body := s.threads.StoredInteraction(r.Method, r.URL.Path, r.URL.Query())
			writeJSON(w, status, body)
			return
		}
		s.serve(w, r, wire.Interactions)
		return
	}
	if wire.IsCachedContents(r.URL.Path) {
		s.serveCaches(w, r)
		return
	}
	if wire.GeminiPath(r.URL.Path) {
		s.serveGemini(w, r)
		return
	}
	if strings.Contains(r.URL.Path, "/v1/conversations") {
		s.serveConversations(w, r)
		return
	}
	if id, ok := wire.ModelsPath(r.URL.Path); ok && r.Method == http.MethodGet {
		// OpenAI's, Anthropic's and Gemini's v1 listings share their path;
		// Anthropic's clients send anthropic-version, Gemini's their key
		// in x-goog-api-key (or ?key=).
		d := wire.Chat
		switch {
		case r.Header.Get("Anthropic-Version") != "":
			d = wire.Anthropic
		case r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key"):
			d = wire.Gemini
		}
		serveModels(w, d, id)
		return
	}
	// A resource the stand-in creates by POST to itself: a stored response
	// below it is got or deleted (wire.StoredResponse); the other paths
	// below it (batches) are a 404 in the dialect's own shape.
	for _, res := range []struct {
		path    string
		dialect wire.Dialect
	}{
		{"/v1/messages", wire.Anthropic},
		{"/v1/responses", wire.Responses},
		{"/openai/responses", wire.Responses}, // Azure OpenAI's
	} {
		if !strings.HasSuffix(r.URL.Path, res.path) && !strings.Contains(r.URL.Path, res.path+"/") {
			continue
		}
		if res.dialect == wire.Responses && wire.IsCompact(r.URL.Path) && r.Method == http.MethodPost {
			s.serveCompact(w, r)
			return
		}
		if res.dialect == wire.Responses && wire.IsStoredResponse(r.URL.Path) {
			sent, err := io.ReadAll(r.Body)
			if err != nil {
				writeError(w, wire.Responses, http.StatusBadRequest, err.Error(), 0)
				return
			}
			status, body := s.threads.StoredResponse(r.Method, r.URL.Path, r.URL.Query(), sent)
			maps.Copy(w.Header(), wire.RequestHeader(wire.Responses, []byte(r.Method+" "+r.URL.String()), 0))
			if events, ok := body.(wire.Resumed); ok {
				s.writeResumed(w, events)
				return
			}
			writeJSON(w, status, body)
			return
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, res.path) {
			writeError(w, res.dialect, http.StatusNotFound, "the stand-in serves POST …"+res.path+" only", 0)
			return
		}
		s.serve(w, r, res.dialect)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, wire.Chat, http.StatusNotFound, "the stand-in serves POST …/chat/completions, …/responses and …/embeddings only (and Gemini's, Anthropic's and Ollama's own paths)", 0)
		return
	}
	s.serve(w, r, wire.Chat)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// writeErrorBody answers status with an error body, carrying the modelled
// latency lat.
func writeErrorBody(w http.ResponseWriter, status int, lat time.Duration, body any) {
	w.Header().Set(cassette.LatencyHeader, lat.String())
	writeJSON(w, status, body)
}

// writeFailure answers status in e's error shape, carrying msg and the
// modelled latency lat.
func writeFailure(w http.ResponseWriter, e wire.Encoder, status int, msg string, lat time.Duration) {
	writeErrorBody(w, status, lat, e.Error(status, msg))
}

// writeError answers status in dialect d's error shape, carrying msg and
// the modelled latency lat.
func writeError(w http.ResponseWriter, d wire.Dialect, status int, msg string, lat time.Duration) {
	writeErrorBody(w, status, lat, wire.ErrorBody(d, status, msg))
}
