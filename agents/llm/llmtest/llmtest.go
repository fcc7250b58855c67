// Package llmtest provides model doubles for tests: a loopback endpoint for
// adapter tests that answers every request with one canned status and body
// and remembers what it was sent, a Scripted model, and a Recording client
// that keeps every request it passes on. Only _test.go files import it.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	"github.com/agentreplay/testbed/agents/llm"
)

// Request is one request a Server received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Server is an httptest server on 127.0.0.1. Close it when done.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// NewServer starts a server that answers with status, a JSON content type
// and reply.
func NewServer(status int, reply string) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: b})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, reply)
	}))
	return s
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Only returns the only request received, with its body decoded as a JSON
// object; an error if there was not exactly one or its body is not JSON.
func (s *Server) Only() (Request, map[string]any, error) {
	reqs := s.Requests()
	if len(reqs) != 1 {
		return Request{}, nil, fmt.Errorf("the server got %d requests, want 1", len(reqs))
	}
	var body map[string]any
	if len(reqs[0].Body) > 0 {
		if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
			return Request{}, nil, fmt.Errorf("request body: %w", err)
		}
	}
	return reqs[0], body, nil
}

// Scripted is a model whose answers come from Next, given the call's index
// (from 0) and request. It never touches the network.
type Scripted struct {
	Next func(i int, req llm.Request) llm.Message

	mu sync.Mutex
	n  int
}

// Chat answers with Next's message and finish reason "stop".
func (s *Scripted) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	i := s.n
	s.n++
	s.mu.Unlock()
	return llm.Response{Message: s.Next(i, req), FinishReason: "stop"}, nil
}

// Recording is an llm.Client that keeps a copy of every request it passes
// on to another client.
type Recording struct {
	mu     sync.Mutex
	client llm.Client
	calls  []llm.Request
}

// NewRecording returns a Recording that passes requests on to c.
func NewRecording(c llm.Client) *Recording { return &Recording{client: c} }

// Use passes later requests on to c instead; the record is kept.
func (r *Recording) Use(c llm.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.client = c
}

// Chat records a copy of req and passes it on.
func (r *Recording) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Messages = slices.Clone(req.Messages)
	req.Tools = slices.Clone(req.Tools)
	r.mu.Lock()
	r.calls = append(r.calls, req)
	c := r.client
	r.mu.Unlock()
	return c.Chat(ctx, req)
}

// Requests returns the recorded requests, in order.
func (r *Recording) Requests() []llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}
