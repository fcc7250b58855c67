package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/trace"
)

// countingModel wraps the agent's model: every call becomes an LLM event
// with its role, tokens by part and its duration on the virtual clock.
type countingModel struct {
	next    llm.Client
	trace   *trace.Trace
	counter *tokens.Counter
	model   string
	sent    bool // keep what each call was sent (Options.Sent)
}

func (m *countingModel) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := m.trace.Elapsed()
	resp, err := m.next.Chat(ctx, req)
	addLLM(m.trace, m.counter, start, req, m.model, resp, err, m.sent)
	return resp, err
}

// addLLM adds the event of one model call that started at start.
func addLLM(tr *trace.Trace, counter *tokens.Counter, start time.Duration, req llm.Request, model string, resp llm.Response, err error, sent bool) {
	call := &trace.LLMCall{
		Role:     req.Role,
		Model:    model,
		Duration: tr.Elapsed() - start,
		Input:    counter.Request(req),
		Stream:   tr.LastStream(start),
		Params:   trace.ParamsOf(req),
	}
	if n := len(req.Messages); n > 0 && sent {
		last := req.Messages[n-1]
		call.Sent = last.Role + ": " + last.Content
	}
	if sent {
		call.Prompt = &trace.Prompt{Messages: slices.Clone(req.Messages), Tools: slices.Clone(req.Tools)}
	}
	if err != nil {
		call.Error = err.Error()
	} else {
		call.Output = counter.Output(resp.Message)
		call.Text = resp.Message.Content
		call.ResponseModel, call.ResponseID = resp.Model, resp.ID
		call.FinishReason, call.RawFinishReason = resp.FinishReason, resp.RawFinishReason
		for _, tc := range resp.Message.ToolCalls {
			call.ToolCalls = append(call.ToolCalls, trace.Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		}
		if resp.Usage != (llm.Usage{}) {
			call.Reported = trace.ReportedUsage(resp.Usage)
		}
	}
	tr.AddAt(trace.Event{Kind: trace.KindLLM, LLM: call}, start)
}

// ModelCall implements agents.ModelTracer.
func (t *tracer) ModelCall(req llm.Request, model string, resp llm.Response, err error, took time.Duration) {
	addLLM(t.trace, t.counter, t.trace.Elapsed()-took, req, model, resp, err, t.sent)
}

// countingEmbedder wraps the agent's embedder: every call becomes an
// embeddings event with its texts' tokens, the provider's reported usage
// and its duration on the virtual clock.
type countingEmbedder struct {
	next    llm.Embedder
	trace   *trace.Trace
	counter *tokens.Counter
	model   string
	asked   llm.EmbedParams // what next's requests ask of their vectors (embedParams)
}

// parameterized is an embedder that says what its requests ask of their
// vectors (openai.Embedder).
type parameterized interface{ Params() llm.EmbedParams }

// embedParams are what e's requests ask of their vectors, none when it
// does not say.
func embedParams(e llm.Embedder) llm.EmbedParams {
	if p, ok := e.(parameterized); ok {
		return p.Params()
	}
	return llm.EmbedParams{}
}

func (e *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	start := e.trace.Elapsed()
	vecs, u, err := e.next.Embed(ctx, texts)
	reported := -1
	if err == nil && u.InputTokens > 0 {
		reported = u.InputTokens
	}
	addEmbed(e.trace, e.counter, start, e.model, texts, 0, reported, e.asked, err)
	return vecs, u, err
}

// addEmbed adds the event of one embeddings call that started at start,
// asking asked of its vectors: texts (and tokens given as token ids)
// counted, reported < 0 when the provider said nothing.
func addEmbed(tr *trace.Trace, counter *tokens.Counter, start time.Duration, model string, texts []string, tokens, reported int, asked llm.EmbedParams, err error) {
	call := &trace.EmbedCall{Model: model, Duration: tr.Elapsed() - start, Texts: len(texts), Input: tokens,
		EmbedParams: llm.EmbedParams{Formats: slices.Clone(asked.Formats), Dimensions: asked.Dimensions}}
	for _, t := range texts {
		call.Input += counter.Count(t)
	}
	if reported >= 0 {
		call.Reported = &reported
	}
	if err != nil {
		call.Error = err.Error()
	}
	tr.AddAt(trace.Event{Kind: trace.KindEmbed, Embed: call}, start)
}

// EmbedCall implements agents.EmbedTracer.
func (t *tracer) EmbedCall(model string, texts []string, tokens, reported int, asked llm.EmbedParams, err error, took time.Duration) {
	addEmbed(t.trace, t.counter, t.trace.Elapsed()-took, model, texts, tokens, reported, asked, err)
}

// tracer implements agents.Tracer over a trace.
type tracer struct {
	trace   *trace.Trace
	counter *tokens.Counter
	sent    bool // keep what each model call was sent (Options.Sent)
	// results, when set, keeps each tool call's arguments and the text put
	// into the model's context, for a grader shown them (rubric with:).
	results *toolResults
}

func (t *tracer) Tool(name string, args json.RawMessage, raw []byte, context string, err error) {
	t.ToolCall("", name, args, raw, context, err)
}

// ToolCall implements agents.ToolCallTracer.
func (t *tracer) ToolCall(id, name string, args json.RawMessage, raw []byte, context string, err error) {
	tc := &trace.ToolCall{
		CallID: id, Name: name, Args: args, RawBytes: len(raw),
		RawTokens: t.counter.CountBytes(raw), ContextTokens: t.counter.Count(context),
	}
	if err != nil {
		tc.Error = err.Error()
	}
	t.trace.Add(trace.Event{Kind: trace.KindTool, Tool: tc})
	t.results.add(name, args, context, err)
}

func (t *tracer) Note(key string, value any) {
	if key == agents.NoteTurn {
		if n, ok := value.(int); ok {
			t.trace.SetTurn(n)
			t.results.setTurn(n)
		}
		return
	}
	t.trace.Add(trace.Event{Kind: trace.KindNote, Note: &trace.Note{Key: key, Value: plain(value)}})
}

// Router returns the transport a recording uses: requests for the logical
// hosts in routes go to their loopback base URLs, and any other host is
// refused (nothing leaves the machine by accident).
func Router(routes map[string]string, mode cassette.Mode) http.RoundTripper {
	return &routing{hosts: routes, mode: mode}
}

// NetworkRouter is Router that sends a host without a route to the
// network instead of refusing it: a recording against a real provider or
// real upstream APIs.
func NetworkRouter(routes map[string]string, mode cassette.Mode) http.RoundTripper {
	return &routing{hosts: routes, mode: mode, network: true}
}

// routing sends requests for logical hosts to the base URLs they are
// routed to. A host without a route goes to the network only when network
// is set; otherwise it is refused, so nothing leaves the machine by accident.
type routing struct {
	hosts   map[string]string
	mode    cassette.Mode
	network bool
	// sample is the sample being recorded; from the second on, requests to
	// a stand-in carry it in standin.SampleHeader so that the stand-in
	// samples like a model at a temperature above zero. The header is set
	// on the routed copy, so the cassette never holds it.
	sample int
	// faults asks the stand-ins for the scenario's faults, in
	// cassette.FaultHeader on the routed copy.
	faults *faultPlan
}

func (r *routing) RoundTrip(req *http.Request) (*http.Response, error) {
	target, ok := r.hosts[req.URL.Host]
	if !ok {
		if r.network {
			return http.DefaultTransport.RoundTrip(req)
		}
		return nil, fmt.Errorf("%s mode: no stand-in serves %s (routed hosts: %v); use --provider for a real model or --live-upstreams for real APIs",
			r.mode, req.URL.Host, slices.Sorted(maps.Keys(r.hosts)))
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host = u.Scheme, u.Host
	out.Host = u.Host
	if r.sample > 1 {
		out.Header.Set(standin.SampleHeader, strconv.Itoa(r.sample))
	}
	if kind := r.faults.next(req.URL); kind != "" {
		out.Header.Set(cassette.FaultHeader, kind)
	}
	return http.DefaultTransport.RoundTrip(out)
}

// plain turns a note's value into its JSON, as a report written to a file
// holds it (keys sorted, numbers as float64 writes them, no HTML escaping), so
// that a report built in memory and one read back, or merged from shards,
// agree. A value that has no JSON form is kept as its fmt text.
func plain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		return fmt.Sprint(v)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(decoded) != nil {
		return fmt.Sprint(v)
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// wallClock adds up the wall time spent in HTTP calls through it, so that
// an agent's own processing time can be told apart from its calls'.
type wallClock struct{ ns atomic.Int64 }

func (w *wallClock) around(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		start := time.Now()
		defer func() { w.ns.Add(int64(time.Since(start))) }()
		return next.RoundTrip(req)
	})
}

func (w *wallClock) total() time.Duration { return time.Duration(w.ns.Load()) }

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
