package external

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/codings"
	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/wire"
)

// RoleHeader, on a model request, names the agent's role making the call
// ("router", "planner"), which the wire does not carry; an agent that has
// roles may send it. Recordings do not keep it.
const RoleHeader = "X-Testbed-Role"

// ExchangeHeader, on an upstream's answer given whole and not encoded
// (no Content-Encoding), names it within the scenario run: a tool the
// program reports may give that name as its "raw_from" instead of the
// answer's bytes as its "raw".
const ExchangeHeader = "X-Testbed-Exchange"

// observer is the session's transport: it sends each request on to the
// scenario's cassette (Config.HTTP) and reads, from the traffic, what the
// built-in agents report through Config.Model and Config.Tracer.
//
// A tool call is what the model asked for: each call of a model response
// waits, across later model calls (a delegated service's own conversation
// among them), for a request that carries its result. The upstream bodies
// fetched between a response and the next model request are its calls'
// raw payloads, whatever their status. At the end of a turn every asked
// call is reported in the order the model asked for them, those whose
// result never came back with an error, so the route is what the model
// chose even when the agent failed to run the tool.
type observer struct {
	cfg  agents.Config
	next http.RoundTripper

	mu      sync.Mutex
	last    []*askedCall // the calls of the last model response
	fetched []fetch      // upstream exchanges since that response
	asked   []*askedCall // every call the model asked for this turn, in order
	// answers are the upstream answers named in ExchangeHeader this run.
	answers map[string][]byte

	// Wall clock, for the run's timing (agents.Timing): when the first
	// request came, and the time spent answering requests.
	first time.Time
	busy  time.Duration
	// streaming is closed when the stream being handed on has been read
	// as traffic; nil when none is.
	streaming chan struct{}
	// turns are the turns the program started while that stream was
	// handed on, to note once it has been read (turn).
	turns []int
	// threads are the run's conversations its provider keeps, for the
	// requests that continue one (previous_response_id, an Anthropic
	// thread).
	threads wire.Threads
	// pending are the background calls not done yet, by their
	// responses' ids (background.go).
	pending map[string]pendingCall
}

// askedCall is one tool call the model asked for and what the traffic
// showed of it.
type askedCall struct {
	call     llm.ToolCall
	raw      []byte
	fetched  bool // an upstream answered after the call was asked
	answered bool
	result   string // the tool result the program sent back
	// forced: the request made the model call this one tool, and it did
	// so alone: when the program sends no result back, the call was its
	// answer in that tool's schema (structured output through a tool, as
	// LangChain's withStructuredOutput does), not a tool it failed to run.
	forced bool
}

func newObserver(cfg agents.Config) *observer {
	next := http.DefaultTransport
	if cfg.HTTP != nil && cfg.HTTP.Transport != nil {
		next = cfg.HTTP.Transport
	}
	return &observer{cfg: cfg, next: next}
}

// wall is when the first request came (zero if none did) and the wall time
// spent answering requests so far.
func (o *observer) wall() (time.Time, time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.first, o.busy
}

// Close implements cassette.Transport; the runner closes the cassette.
func (o *observer) Close() error { return nil }

// RoundTrip implements http.RoundTripper.
func (o *observer) RoundTrip(req *http.Request) (*http.Response, error) {
	began := time.Now()
	defer func() {
		o.mu.Lock()
		if o.first.IsZero() {
			o.first = began
		}
		o.busy += time.Since(began)
		o.mu.Unlock()
	}()
	o.settled(req.Context())
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	start := o.cfg.Clock()
	resp, err := o.next.RoundTrip(req)
	took := o.cfg.Clock().Sub(start)
	if err == nil && eventStream(resp.Header) {
		// A stream goes on to the agent as it arrives, and is read as
		// traffic once it has ended. It lasted until its last event: a
		// recording moves the clock on only once it has captured the
		// stream, which may be after its headers came.
		resp.Body = o.onEnd(resp.Body, func(got []byte, rerr error) {
			if offsets := stream.Offsets(resp.Header); len(offsets) > 0 {
				took = max(took, offsets[len(offsets)-1])
			} else {
				took = max(took, o.cfg.Clock().Sub(start))
			}
			o.traffic(req, body, resp, got, rerr, start, took)
		})
		return resp, nil
	}
	var got []byte
	if resp != nil {
		if got, err = io.ReadAll(resp.Body); err == nil {
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(got))
		}
	}
	o.traffic(req, body, resp, got, err, start, took)
	return resp, err
}

// maxInflated bounds what an encoded body may decode to before it is read
// as traffic; a larger one is read as it came.
const maxInflated = 256 << 20

// traffic reads one exchange, whole, sent at start and answered took
// later: a model call, or an upstream body, decoded as its
// Content-Encoding says (the program's HTTP client reads it so).
func (o *observer) traffic(req *http.Request, body []byte, resp *http.Response, got []byte, err error, start time.Time, took time.Duration) {
	if err == nil && resp != nil {
		got, _ = codings.Body(resp.Header, got, maxInflated)
	}
	// An upstream's own /api/chat or /api/embed (a web app's routes), or
	// /v1/interactions (a CRM's), is no call to the agent's model.
	upstream := o.upstream(req.URL)
	if wire.IsEmbeddings(req.URL.Path) && !(wire.IsOllamaEmbed(req.URL.Path) && upstream) {
		o.embed(req, body, resp, got, err, took)
	}
	d, model := wire.Of(req.URL.Path)
	if model && (d == wire.Ollama || d == wire.Interactions) && upstream {
		model = false
	}
	if !model {
		// An error body is what the upstream answered: raw like any other.
		// The model provider's other answers (embeddings, its model list,
		// a token count) are no tool's payload.
		if err == nil && resp.StatusCode < 300 && !upstream {
			if wire.IsCompact(req.URL.Path) {
				o.compacted(req, body, got, took)
			}
			if wire.Stateful(req.URL.Path) {
				o.threads.Follow(req.Method, req.URL.Path, body, got)
			}
			if wire.IsStoredResponse(req.URL.Path) {
				o.settle(resp, got, start.Add(took))
			}
		}
		if err == nil {
			o.mu.Lock()
			if o.upstream(req.URL) {
				o.fetched = append(o.fetched, fetch{url: req.URL, sent: body, body: got})
			}
			if !eventStream(resp.Header) && resp.Header.Get("Content-Encoding") == "" {
				// Still to be sent (a stream is read here once it was).
				if o.answers == nil {
					o.answers = map[string][]byte{}
				}
				id := strconv.Itoa(len(o.answers) + 1)
				o.answers[id] = got
				resp.Header = resp.Header.Clone()
				resp.Header.Set(ExchangeHeader, id)
			}
			o.mu.Unlock()
		}
		return
	}
	o.model(d, req, body, resp, got, err, start, took)
}

// upstream reports whether u is below the base URL of one of the run's
// upstreams.
func (o *observer) upstream(u *url.URL) bool {
	s := u.String()
	for _, base := range o.cfg.Upstreams {
		if rest, ok := strings.CutPrefix(s, strings.TrimRight(base, "/")); ok && (rest == "" || rest[0] == '/' || rest[0] == '?') {
			return true
		}
	}
	return false
}

// answer is the body of the upstream answer named id in ExchangeHeader.
func (o *observer) answer(id string) ([]byte, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.answers[id]
	return b, ok
}

// embed reports one embeddings call; a request it cannot read stays an
// HTTP exchange.
func (o *observer) embed(req *http.Request, body []byte, resp *http.Response, got []byte, err error, took time.Duration) {
	et, ok := o.cfg.Tracer.(agents.EmbedTracer)
	in, perr := wire.ReadEmbedCall(req.URL.Path, body)
	if !ok || perr != nil {
		return
	}
	reported := -1
	if err == nil && resp.StatusCode >= 400 {
		err = &statusError{code: resp.StatusCode, body: string(got)}
	}
	if n, ok := wire.ReportedEmbedTokens(req.URL.Path, got); ok && err == nil {
		reported = n
	}
	et.EmbedCall(in.Model, in.Texts, in.Tokens, reported, in.EmbedParams, err, took)
}

// model reports one model call, of dialect d, sent at start and answered
// took later, and the tool results its request carries. A background
// response answered unfinished is reported once an answer about it is
// final (settle).
func (o *observer) model(d wire.Dialect, req *http.Request, body []byte, resp *http.Response, got []byte, err error, start time.Time, took time.Duration) {
	in, kept, derr := o.threads.Decode(d, req.URL.Path, body)
	if derr != nil {
		return // not a request the harness reads: the call stays an HTTP exchange
	}
	o.results(in.Messages)
	r := llm.Request{Role: req.Header.Get(RoleHeader), Messages: in.Messages, Tools: in.Tools, MaxTokens: in.MaxTokens, Output: in.Output,
		Temperature: in.Temperature, Sampling: in.Sampling, Conversation: in.Conversation}
	if err == nil && d == wire.Responses && resp.StatusCode < 300 {
		if id, ok := wire.Unfinished(got); ok {
			o.pend(id, pendingCall{request: r, model: in.Model, kept: kept, start: start})
			return
		}
	}
	forced := ""
	if in.Choice.Required && len(in.Choice.Only) == 1 {
		forced = in.Choice.Only[0]
	}
	o.answered(d, r, in.Model, forced, kept, resp, got, err, took)
}

// answered reports the model call r of dialect d, to model (the
// endpoint's when "") and answered took later with resp (its body got) or
// err, and keeps the answer in the run's conversations (kept). forced is
// the one tool the request made the model call, if any.
func (o *observer) answered(d wire.Dialect, r llm.Request, model, forced string, kept func(llm.Message, []byte), resp *http.Response, got []byte, err error, took time.Duration) {
	var out llm.Response
	if err == nil {
		if resp.StatusCode >= 400 {
			err = &statusError{code: resp.StatusCode, body: string(got)}
		} else if events, streamed := streamOf(d, resp.Header, got); streamed {
			// A streamed answer, read as the adapters read it: a stream
			// cut short or malformed is the error the agent saw; one
			// whole with nothing in it is an empty answer.
			if out, err = decodeStream(d, events); errors.Is(err, llm.ErrNoContent) {
				err = nil
			}
		} else if out, err = decodeResponse(d, got); err != nil {
			// A 200 the agent's client could not read either: the call
			// failed, as a stream cut short does.
			err = fmt.Errorf("%s: the answer is not the API's JSON: %w", d, err)
		}
		if err == nil && kept != nil {
			kept(out.Message, got)
		}
	}
	if d == wire.Gemini || d == wire.Ollama {
		// Read by their places, as the requests' calls are (wire.Decode).
		for i := range out.Message.ToolCalls {
			out.Message.ToolCalls[i].ID = ""
		}
	}
	numberCalls(r.Messages, out.Message.ToolCalls)
	if mt, ok := o.cfg.Tracer.(agents.ModelTracer); ok {
		mt.ModelCall(r, cmp.Or(model, o.cfg.Endpoint.Model), out, err, took)
	}
	o.mu.Lock()
	o.last = nil
	for _, c := range out.Message.ToolCalls {
		a := &askedCall{call: c, forced: forced != "" && c.Name == forced && len(out.Message.ToolCalls) == 1}
		o.last = append(o.last, a)
		o.asked = append(o.asked, a)
	}
	o.mu.Unlock()
}

// numberCalls gives each of an answer's calls that came without an id (a
// Gemini functionCall, a legacy function_call) the one the next request's
// reading gives it (wire.CallID: its place among the calls of the
// conversation so far, sent), so that the result answering it is paired
// with it.
func numberCalls(sent []llm.Message, calls []llm.ToolCall) {
	n := 0
	for _, m := range sent {
		n += len(m.ToolCalls)
	}
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = wire.CallID(n + i + 1)
		}
	}
}

// results hands the upstream bodies fetched since the last model response
// to that response's calls (pairFetches: one each when the counts agree,
// else all to the first, the group's raw payload, in the order of the
// calls they answered), then pairs the tool results in msgs with the calls
// still waiting for one: by call id and tool name, the latest asked first,
// so that two conversations (an agent and the service it delegates to)
// numbering their calls alike are told apart.
func (o *observer) results(msgs []llm.Message) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.hand(msgs)
	names := map[string]string{} // call id → tool name, from the request's assistant messages
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
	}
	for _, m := range msgs {
		if m.Role != llm.RoleTool {
			continue
		}
		name := cmp.Or(m.Name, names[m.ToolCallID])
		for i := len(o.asked) - 1; i >= 0; i-- {
			a := o.asked[i]
			if !a.answered && a.call.ID == m.ToolCallID && (name == "" || a.call.Name == name) {
				a.answered, a.result = true, m.Content
				break
			}
		}
	}
}

// flush reports the turn's tool calls when emit is set, forgets them and
// returns them. A call answered with no upstream body fetched for it ran
// in the program (a local tool): its result is both its raw payload and
// its context. A call whose result never came back is reported with an
// error and no payload.
func (o *observer) flush(emit bool) turnCalls {
	o.unsettled()
	o.mu.Lock()
	asked, last := o.asked, o.last
	o.asked, o.last, o.fetched = nil, nil, nil
	o.mu.Unlock()
	if !emit {
		return asked
	}
	for _, a := range asked {
		if !a.answered && a.forced && slices.Contains(last, a) {
			continue // the turn's answer, in the tool's schema: no tool call
		}
		if !a.answered {
			agents.ReportTool(o.cfg.Tracer, a.call.ID, a.call.Name, a.call.Arguments, nil, "", errNoResult)
			continue
		}
		agents.ReportTool(o.cfg.Tracer, a.call.ID, a.call.Name, a.call.Arguments, a.payload(), a.result, nil)
	}
	return asked
}

// payload is the raw payload of an answered call: the upstream bodies
// fetched for it, or its result when it ran in the program.
func (a *askedCall) payload() []byte {
	if !a.fetched {
		return []byte(a.result)
	}
	return a.raw
}

// turnCalls are the calls the model asked for in a turn, in order, for the
// tools the program reports itself: each report is paired with the
// earliest call of its name not paired yet (take), whose payload and
// result stand for the "raw" and "context" the report leaves out.
type turnCalls []*askedCall

// take is the earliest call named name not taken yet, now taken; nil when
// there is none.
func (c turnCalls) take(name string) *askedCall {
	for i, a := range c {
		if a != nil && a.call.Name == name {
			c[i] = nil
			return a
		}
	}
	return nil
}

// errNoResult is the error of a tool call the model asked for whose
// result the program never sent back to the model.
var errNoResult = errors.New("the model asked for this call; the agent sent no result back")

// statusError is a model call the provider refused.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return http.StatusText(e.code) + ": " + clip(e.body) }
