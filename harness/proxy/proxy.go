// Package proxy serves recorded traffic to agents that are not compiled into
// testbed: an agent in any language points its SDK's base URL at the proxy,
// and each of its requests is answered from (or recorded into) a scenario's
// cassette through the same transports the built-in agents use, so the
// cassettes keep the logical URLs and one format serves both.
//
// Every scenario run gets a session with its own path prefix,
// /s/<id>/, under which the agent's base URLs live:
//
//	/s/<id>/v1/messages        Anthropic Messages (when the session has Anthropic;
//	                           and any /v1/… sent with anthropic-version: its models API)
//	/s/<id>/v1/…               OpenAI Chat Completions, Responses and embeddings
//	/s/<id>/v1beta/…           Gemini generateContent and the Interactions API
//	                           (and /v1/… when Gemini-shaped, or the session's only /v1)
//	/s/<id>/openai/…           Azure OpenAI (deployments, responses, embeddings)
//	/s/<id>/api/…              Ollama's native API (chat, tags, show, version, embed)
//	/s/<id>/upstream/<name>/…  an upstream API the suite names
//	/s/<id>/clock              the scenario's clock (replayed time), when the session has one
//	/s/<id>/turn?n=N           POST: the agent starts user turn N (from 0)
//
// A program that outlives one scenario run (kept alive for a variant's
// runs) is given an alias instead, /a/<id>/, that stands for whichever
// session is bound to it at the time (Alias, Bind); between runs it is
// bound to none, and its requests are refused. Clients that cannot change
// paths send the session in the X-Testbed-Session header instead. A request for a session the proxy did not issue is a 404
// naming the problem, never a guess. The server listens on 127.0.0.1 only.
package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/stream"
)

// SessionHeader names the session for clients that cannot put it in the path.
const SessionHeader = "X-Testbed-Session"

// logicalHeader, on a 504 answer, is the logical URL of the exchange.
const logicalHeader = "X-Testbed-Url"

// Session is one scenario run's view of the proxy.
type Session struct {
	// Transport answers the session's requests: a cassette in replay,
	// record or live mode (cassette.Open).
	Transport cassette.Transport
	// Model, Gemini and Anthropic are the logical base URLs that /v1,
	// /v1beta and /v1/messages stand for, as the cassettes record them (for
	// example https://api.openai.com/v1,
	// https://generativelanguage.googleapis.com and
	// https://api.anthropic.com); empty when the agent does not use that
	// provider. SetModel sets the one of an endpoint's provider.
	Model, Gemini, Anthropic string
	// Azure is the logical base URL that /openai stands for: an Azure
	// OpenAI resource's endpoint (https://<resource>.openai.azure.com),
	// under which the SDKs call /openai/deployments/<deployment>/… and
	// /openai/responses; empty when the agent does not use one.
	Azure string
	// Ollama is the logical base URL that /api stands for: an Ollama
	// server (http://localhost:11434), under which its clients call
	// /api/chat, /api/tags …; empty when the agent does not use one.
	Ollama string
	// Embeddings is the logical base URL of /v1/embeddings when it is not
	// Model's (an agent that chats through one provider and embeds with
	// another).
	Embeddings string
	// Upstreams maps an upstream's name to its logical base URL.
	Upstreams map[string]string
	// Key, when set, is a real provider's API key: the proxy puts it on
	// every model request in place of the placeholder the agent was given
	// (Authorization for OpenAI, x-goog-api-key for Gemini, x-api-key for
	// Anthropic), so that an
	// agent recorded against a real model never holds the key. Recordings
	// redact it like any key.
	Key string
	// Clock, when set, is the scenario's clock, served at /s/<id>/clock
	// as RFC 3339 text: replay never waits, so an agent that times its own
	// steps reads this clock rather than its own to get the replayed time.
	Clock func() time.Time
	// Turn, when set, is told the user turn an agent starts working on
	// (POST /s/<id>/turn?n=1, counting from 0), so that the calls that
	// follow are counted to it: an agent that works on several turns at
	// once says so.
	Turn func(n int)
	// MaxBody bounds a request's body, in bytes; 0 is DefaultMaxBody. A
	// larger request is answered 413 in its provider's error shape, naming
	// the limit, and ends the session with an error.
	MaxBody int64
}

// DefaultMaxBody is the largest request body a session takes unless its
// MaxBody says otherwise: 32 MiB, far above any prompt a model accepts
// (a million tokens of text is about 4 MiB), so that a runaway agent cannot
// fill testbed's memory.
const DefaultMaxBody int64 = 32 << 20

// SetModel sets the logical base URL of the model endpoint ep: Anthropic,
// Gemini, Azure, Ollama or Model (OpenAI's wire format, the default) by
// its provider.
func (s *Session) SetModel(ep llm.Endpoint) {
	switch ep.Provider {
	case llm.ProviderOllama:
		s.Ollama = ep.BaseURL
	case llm.ProviderGemini:
		s.Gemini = ep.BaseURL
	case llm.ProviderAnthropic:
		s.Anthropic = ep.BaseURL
	case llm.ProviderAzure:
		s.Azure = ep.BaseURL
	default:
		s.Model = ep.BaseURL
	}
}

// Proxy is the server. Build it with Start.
type Proxy struct {
	url string
	srv *http.Server

	mu       sync.Mutex
	sessions map[string]*session
	aliases  map[string]string // alias → bound session id, "" when none
}

// session is a Session and what happened in it.
type session struct {
	Session
	mu      sync.Mutex
	misses  []error // replay misses and transport errors, in call order
	escapes []error // calls the proxy refused: ErrEscaped, ErrTooLarge
}

// Start serves a proxy on a free port of 127.0.0.1.
func Start() (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start proxy: %w", err)
	}
	p := &Proxy{url: "http://" + ln.Addr().String(), sessions: map[string]*session{}, aliases: map[string]string{}}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// Serve serves the proxy on ln too (a listener another process opened,
// such as an isolated program's own loopback port), until ln or the proxy
// is closed.
func (p *Proxy) Serve(ln net.Listener) { p.srv.Serve(ln) }

// URL is the proxy's address, without a trailing slash.
func (p *Proxy) URL() string { return p.url }

// Close stops the server; open sessions are not closed.
func (p *Proxy) Close() error { return p.srv.Close() }

// Open issues a session and returns its base URL, under which the agent's
// base URLs live (Base/v1 for an OpenAI SDK, Base/upstream/<name> for an
// upstream).
func (p *Proxy) Open(s Session) (id, base string) {
	id = newID()
	p.mu.Lock()
	p.sessions[id] = &session{Session: s}
	p.mu.Unlock()
	return id, p.url + "/s/" + id
}

// Alias issues a stable prefix, /a/<id>, that stands for the session bound
// to it (Bind), and returns its id and base URL: a program that serves
// several scenario runs in turn gets it in place of a session's base URL.
func (p *Proxy) Alias() (id, base string) {
	id = newID()
	p.mu.Lock()
	p.aliases[id] = ""
	p.mu.Unlock()
	return id, p.url + "/a/" + id
}

// Bind makes alias stand for session from now on; an empty session
// unbinds it, and its requests are refused until the next Bind.
func (p *Proxy) Bind(alias, session string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.aliases[alias]; !ok {
		return fmt.Errorf("proxy: no alias %q", alias)
	}
	if _, ok := p.sessions[session]; session != "" && !ok {
		return fmt.Errorf("proxy: no session %q", session)
	}
	p.aliases[alias] = session
	return nil
}

// End closes a session's transport (a recording is saved) and forgets it,
// returning the replay misses and transport errors its requests met, joined.
// A request for it afterwards is refused.
func (p *Proxy) End(id string) error {
	p.mu.Lock()
	s := p.sessions[id]
	delete(p.sessions, id)
	p.mu.Unlock()
	if s == nil {
		return fmt.Errorf("proxy: no session %q", id)
	}
	s.mu.Lock()
	errs := append(append([]error(nil), s.misses...), s.escapes...)
	s.mu.Unlock()
	if err := s.Transport.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// newID is a fresh random session or alias id.
func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ServeHTTP routes a request to its session's transport.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	if r.Method == http.MethodConnect || r.URL.IsAbs() {
		p.escape(w, r)
		return
	}
	id, rest := sessionOf(r)
	if tail, ok := strings.CutPrefix(r.URL.Path, "/a/"); ok {
		alias, more, _ := strings.Cut(tail, "/")
		p.mu.Lock()
		bound, known := p.aliases[alias]
		p.mu.Unlock()
		if !known {
			problem(w, "/"+more, http.StatusNotFound, "alias %q was not issued by this proxy", alias)
			return
		}
		if bound == "" {
			problem(w, "/"+more, http.StatusNotFound, "alias %q stands for no scenario run now: a kept-alive program may call its base URLs only while it answers a turn", alias)
			return
		}
		id, rest = bound, "/"+more
	}
	if id == "" {
		problem(w, rest, http.StatusNotFound, "no session: put the session's base URL (%s/s/<id>) in the agent's SDK, or send %s", p.url, SessionHeader)
		return
	}
	p.mu.Lock()
	s := p.sessions[id]
	p.mu.Unlock()
	if s == nil {
		problem(w, rest, http.StatusNotFound, "session %q was not issued by this proxy, or has ended", id)
		return
	}
	if rest == "/turn" && s.Turn != nil && r.Method == http.MethodPost {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil || n < 0 {
			problem(w, rest, http.StatusBadRequest, "want /turn?n=<turn, from 0>")
			return
		}
		s.Turn(n)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if rest == "/clock" && s.Clock != nil {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, s.Clock().Format(time.RFC3339Nano))
		return
	}
	target, err := s.logical(rest, escapedBelow(r), r.URL.RawQuery, r.Header)
	if err != nil {
		problem(w, rest, http.StatusNotFound, "%v", err)
		return
	}
	body, ok := s.body(w, r, rest, target)
	if !ok {
		return
	}
	// The agent hanging up cancels the call until its answer begins; from
	// then on the answer is read to its end (and recorded whole), as a
	// client that stops at a stream's last event ([DONE]) and drops the
	// connection still got all of it.
	ctx, cancel := context.WithCancel(cassette.WithSent(context.WithoutCancel(r.Context()), received))
	defer cancel()
	hungUp := context.AfterFunc(r.Context(), cancel)
	if ns, err := strconv.ParseInt(r.Header.Get(TimeoutHeader), 10, 64); err == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(ns))
		defer cancel()
		// Judged on the time left when the client sent the request, as
		// without the proxy: the hop here must not count against it.
		ctx = cassette.WithTimeLeft(ctx, time.Duration(ns))
	}
	out, err := http.NewRequestWithContext(ctx, r.Method, target, bytes.NewReader(body))
	if err != nil {
		problem(w, rest, http.StatusBadRequest, "%v", err)
		return
	}
	for k, vs := range r.Header {
		if !hopHeader(k) {
			out.Header[k] = vs
		}
	}
	if s.Key != "" {
		s.authorize(out.Header, rest)
	}
	resp, err := s.Transport.RoundTrip(out)
	hungUp()
	if err != nil {
		s.mu.Lock()
		s.misses = append(s.misses, err)
		s.mu.Unlock()
		var miss *cassette.MissError
		var late *cassette.DeadlineError
		switch {
		case errors.As(err, &late):
			// The recorded exchange outlasted the client's deadline.
			w.Header().Set(DeadlineHeader, fmt.Sprintf("%d %d", int64(late.Waited), int64(late.Took)))
			w.Header().Set(logicalHeader, late.URL)
			problem(w, rest, http.StatusGatewayTimeout, "%v", err)
			return
		case isTimeout(err):
			w.Header().Set(timeoutHeader, err.Error())
			problem(w, rest, http.StatusGatewayTimeout, "%v", err)
			return
		case errors.As(err, &miss):
			// The agent sees why it got no answer, once (x-should-retry:
			// false); the run calls the scenario stale.
			replayMiss(w, rest, err)
			return
		}
		problem(w, rest, http.StatusBadGateway, "%v", err)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if !hopHeader(k) {
			w.Header()[k] = vs
		}
	}
	if stream.Is(resp.Header) {
		// A stream may be counted once it has been read: no clock yet.
		w.WriteHeader(resp.StatusCode)
		passStream(w, resp.Body)
		return
	}
	if s.Clock != nil {
		w.Header().Set(ClockHeader, s.Clock().Format(time.RFC3339Nano))
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// body reads r's body whole, up to the session's MaxBody. A larger one is
// answered 413 in the provider's shape, naming the limit, and counted
// against the session (ErrTooLarge); ok is false then, and when the body
// could not be read.
func (s *session) body(w http.ResponseWriter, r *http.Request, rest, target string) (body []byte, ok bool) {
	limit := s.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	if r.ContentLength <= limit {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var big *http.MaxBytesError
		if err == nil {
			return body, true
		}
		if !errors.As(err, &big) {
			problem(w, rest, http.StatusBadRequest, "read the request body: %v", err)
			return nil, false
		}
	}
	u, _ := url.Parse(target)
	u.RawQuery = ""
	err := &tooLargeError{method: r.Method, target: u.String(), limit: limit}
	s.mu.Lock()
	s.escapes = append(s.escapes, err)
	s.mu.Unlock()
	w.Header().Set("Connection", "close") // the rest of the body is not read
	problem(w, rest, http.StatusRequestEntityTooLarge, "%v", err)
	return nil, false
}

// passStream copies an event stream to the agent as it arrives, flushing
// what each read gives, so that a live or recorded stream reaches the agent
// event by event (a replayed one arrives whole, its timing in the trace).
func passStream(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// sessionOf finds the session of r, and the path below its prefix.
func sessionOf(r *http.Request) (id, rest string) {
	if tail, ok := strings.CutPrefix(r.URL.Path, "/s/"); ok {
		id, rest, _ = strings.Cut(tail, "/")
		return id, "/" + rest
	}
	return r.Header.Get(SessionHeader), r.URL.Path
}

// hopHeader reports whether a header belongs to one connection only.
func hopHeader(k string) bool {
	switch http.CanonicalHeaderKey(k) {
	case "Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "Te", "Trailer", "Content-Length", SessionHeader, TimeoutHeader:
		return true
	}
	return false
}
