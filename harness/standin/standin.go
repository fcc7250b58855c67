// Package standin is a deterministic stand-in model: a loopback server that
// speaks the OpenAI Chat Completions, Responses and embeddings, Gemini
// generateContent and Anthropic Messages wire formats (through package
// wire, which reads and writes them), streamed (server-sent events, see
// stream.go) or not, answers from the request alone through per-agent
// policies, models latency, reports usage, and can inject faults at a
// seeded rate.
//
// This package is the server and the registry of policies (Policies); the
// policies live in packages of their own, which never import it (see
// docs/standin.md, "Parts"). They follow each agent's prompt protocol as
// tables of named rules (package policy) that read the request alone —
// tool names, descriptions and schemas, the system prompt, the messages —
// through one shared multilingual lexicon (package lexicon), number and
// coordinate patterns, and date words relative to the request's "now"; the
// rule that decided is sent in cassette.RuleHeader. Paraphrases a policy
// has no rule for are answered wrongly, as a weak model would. It never
// sees scenario expectations, and a spec fails if its code holds a
// committed scenario's input (see docs/standin.md). An agent the stand-in
// has never seen is answered by the generic policy (package generic),
// asked only when no agent's own policy accepts a request: a plumbing
// stand-in that picks a tool by word overlap, fills its arguments from the
// schema and answers from the tool results, so that an outside agent can be
// recorded and replayed; its numbers measure plumbing, not a prompt, and
// cassettes and reports say so. It does not sleep: the latency it models
// travels in the cassette.LatencyHeader response header, which the
// recorder stores as the interaction's duration.
package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin/generic"
	"github.com/agentreplay/testbed/harness/standin/grader"
	"github.com/agentreplay/testbed/harness/standin/policy"
	"github.com/agentreplay/testbed/harness/standin/seeds/cba"
	"github.com/agentreplay/testbed/harness/standin/seeds/climate"
	"github.com/agentreplay/testbed/harness/standin/seeds/family"
	"github.com/agentreplay/testbed/harness/standin/seeds/kura"
	"github.com/agentreplay/testbed/harness/standin/seeds/odbchat"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/wire"
)

// Policy answers the requests of one agent protocol (see package policy).
type Policy = policy.Policy

// Request is a chat request as a policy sees it (see package policy).
type Request = policy.Request

// GenericName is the name of the generic policy (generic.Name), the value
// of cassette.PolicyHeader on the responses it gives.
const GenericName = generic.Name

// JudgeLabel is how the stand-in judge's scores are labelled wherever they
// appear: its reasons start with it.
const JudgeLabel = grader.Label

// Policies returns every policy the stand-in knows: the judge, the
// agent-specific ones, then the generic one, which accepts any request the others do not.
func Policies() []Policy {
	return []Policy{grader.Policy{}, odbchat.Router{}, odbchat.Classifier{}, odbchat.OnePass{}, climate.Advisor{}, family.Assistant{}, family.Visualization{}, cba.Assistant{}, kura.Planner{}, kura.Executor{}, kura.Synthesizer{}, generic.New()}
}

// Latency is the model of how long a call takes, in two parts: the time to
// first token (a fixed cost plus a cost per input token, the prompt's
// processing, so longer prompts are slower to start) and a time per output
// token after it.
type Latency struct {
	Fixed          time.Duration // time to first token of an empty prompt
	PerInputToken  time.Duration // prompt processing, per input token
	PerOutputToken time.Duration // generation, per output token
}

// FirstToken returns the modelled time to first token of a call with in
// input tokens.
func (l Latency) FirstToken(in int) time.Duration {
	return l.Fixed + time.Duration(in)*l.PerInputToken
}

// Of returns the modelled duration of a call: its time to first token, then
// out output tokens.
func (l Latency) Of(in, out int) time.Duration {
	return l.FirstToken(in) + time.Duration(out)*l.PerOutputToken
}

// DefaultLatency models a small local model (a 4B model on a workstation GPU):
// 120 ms fixed to first token, prompt processing at 2,500 tokens/s (400 µs
// a token, also before the first token) and generation at 40 tokens/s (25 ms
// a token).
func DefaultLatency() Latency {
	return Latency{Fixed: 120 * time.Millisecond, PerInputToken: 400 * time.Microsecond, PerOutputToken: 25 * time.Millisecond}
}

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

// serveCount answers a token count of dialect d: the input tokens of the
// request it carries, counted as a call's input is, with the request id
// header the dialect's answers carry.
func (s *Server) serveCount(w http.ResponseWriter, r *http.Request, d wire.Dialect) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, d, http.StatusBadRequest, err.Error(), 0)
		return
	}
	req, manage, err := s.threads.ReadCount(d, body)
	if err != nil {
		status, header, refused := wire.Refusal(d, body, 0, err)
		maps.Copy(w.Header(), header)
		writeErrorBody(w, status, 0, refused)
		return
	}
	maps.Copy(w.Header(), wire.RequestHeader(d, body, 0))
	count := func(msgs []llm.Message) int {
		return s.counter.Request(llm.Request{Messages: msgs, Tools: req.Tools}).Total()
	}
	n := count(req.Messages)
	if manage != nil {
		writeJSON(w, http.StatusOK, wire.ManagedCountBody(count(manage(req.Messages, count)), n))
		return
	}
	writeJSON(w, http.StatusOK, wire.CountBody(d, n))
}

// serve answers a model call in dialect d: a request the real API
// refuses with its refusal, else the policies' answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, d wire.Dialect) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, d, http.StatusBadRequest, err.Error(), 0)
		return
	}
	sample := sampleOf(r)
	call, err := s.threads.Read(d, r.URL.Path, body, sample)
	if err != nil {
		status, header, refused := wire.Refusal(d, body, sample, err)
		maps.Copy(w.Header(), header)
		writeErrorBody(w, status, 0, refused)
		return
	}
	for k, vs := range call.Encoder.Header {
		w.Header()[k] = vs
	}
	call.Encoder.Array = d == wire.Gemini && call.Encoder.Events != nil && r.URL.Query().Get("alt") != "sse"
	s.respond(w, call.Encoder, call.Request, sample, r.Header.Get(cassette.FaultHeader))
}

// respond answers req in dialect d: the fault it asks for (in FaultHeader
// or by marker) or draws, else the answer of the first policy that accepts
// it, sampled as sample (see SampleHeader).
func (s *Server) respond(w http.ResponseWriter, d wire.Encoder, req Request, sample int, asked string) {
	count := func(msgs []llm.Message) int {
		return s.counter.Request(llm.Request{Messages: msgs, Tools: req.Tools}).Total()
	}
	if d.Context != nil {
		// The model reads the conversation as the request asks it
		// managed: compacted, its old tool results cleared.
		req.Messages = d.Context(req.Messages, count)
	}
	in := count(req.Messages)
	fault := s.fault(asked, req)
	if fault != "" && !answers(fault) {
		s.writeFault(w, d, fault, req, in)
		return
	}
	// The policy decides among the tools the request lets it call (none
	// under tool_choice none), and its answer keeps the calls the request
	// allows (the first, when it allows one at a time); one that must call
	// a tool and did not calls one the generic policy's way.
	offered := req.Offered()
	p := s.policy(offered)
	if p == nil {
		w.Header().Set(cassette.PolicyHeader, cassette.NoPolicy)
		writeFailure(w, d, http.StatusBadRequest, noPolicy(offered), s.opts.Latency.Of(in, 0))
		return
	}
	smp := newSampler(sample, offered)
	msg, rule, err := policy.AnswerOf(p, smp.view(offered))
	if err != nil && smp != nil {
		// A misread the policy cannot follow: a model still answers.
		msg, rule, err = policy.AnswerOf(p, offered)
	}
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, p.Name()+": "+err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	by := p.Name()
	switch limited := req.Choice.Limit(msg); {
	case req.Choice.Required && len(limited.ToolCalls) == 0:
		if forced, ok := generic.Required(offered); ok {
			msg, rule, by = forced, generic.RequiredRule, generic.Name
		}
	case len(msg.ToolCalls) > 0 && len(limited.ToolCalls) == 0 && limited.Content == "":
		// The policy only called tools the request does not let it call:
		// the generic policy answers what the request offers instead.
		if alt, name, err := policy.AnswerOf(generic.New(), offered); err == nil {
			msg, rule, by = alt, name, generic.Name
		}
	}
	msg = req.Choice.Limit(msg)
	msg = smp.reword(msg)
	if by == generic.Name {
		// Recordings say that their answers came from the plumbing stand-in.
		w.Header().Set(cassette.PolicyHeader, generic.Name)
	}
	if rule != "" {
		w.Header().Set(cassette.RuleHeader, rule)
	}
	if fault != "" {
		var applied bool
		if msg, applied = misuse(msg, fault); applied {
			w.Header().Set(cassette.FaultHeader, fault)
		}
	}
	// A model given stop sequences stops at the first it writes, and one
	// given a token limit where it reaches it.
	var end wire.End
	msg, end.Stop = req.StopAt(msg)
	out := s.counter.Output(msg)
	msg, out, end.Truncated, err = req.LimitAt(msg, out)
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	if d.Events != nil {
		s.stream(w, d, req.Model, msg, end, in, out, smp, fault)
		return
	}
	resp, err := d.Completion(req.Model, msg, end, in, out)
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, p.Name()+": "+err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	lat := smp.jitter(s.opts.Latency.Of(in, out))
	if fault == FaultSlowFirstToken {
		w.Header().Set(cassette.FaultHeader, fault)
		lat += SlowFirstToken
	}
	w.Header().Set(cassette.LatencyHeader, lat.String())
	writeJSON(w, http.StatusOK, resp)
}

// stream answers msg as dialect d's event stream, shaped by fault.
func (s *Server) stream(w http.ResponseWriter, d wire.Encoder, model string, msg llm.Message, end wire.End, in, out int, smp *sampler, fault string) {
	events, err := d.Events(model, msg, end, in, out)
	if err != nil {
		writeFailure(w, d, http.StatusInternalServerError, err.Error(), s.opts.Latency.Of(in, 0))
		return
	}
	s.writeStream(w, events, d, in, out, smp, fault)
}

func (s *Server) policy(r Request) Policy {
	for _, p := range s.opts.Policies {
		if p.Accepts(r) {
			return p
		}
	}
	return nil
}

// noPolicy is the message of the answer to a request no policy accepts:
// what the request was (the start of its system prompt, its tools), so that
// the prompt edit that lost the policy is found.
func noPolicy(req Request) string {
	var tools []string
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	system := []rune(req.System())
	if len(system) > 80 {
		system = append(system[:80], '…')
	}
	return fmt.Sprintf("%s this prompt (system prompt %q, tools: [%s]); add one in harness/standin, or undo the prompt edit that lost it",
		cassette.NoPolicyCause, string(system), strings.Join(tools, ", "))
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
