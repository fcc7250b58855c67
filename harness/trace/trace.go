// Package trace records one run of one scenario: an ordered list of events
// (LLM calls, tool calls, HTTP exchanges, notes) on a virtual clock, and the
// metrics derived from them.
//
// A Trace is filled by the harness through the seams of agents.Config; it does
// not count tokens itself (callers store counts made with package tokens).
package trace

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// Kind is the kind of an Event.
type Kind string

// Event kinds.
const (
	KindLLM  Kind = "llm"
	KindTool Kind = "tool"
	KindHTTP Kind = "http"
	KindNote Kind = "note"
	// KindEmbed is an embeddings call: texts turned into vectors, billed
	// by their tokens, and kept apart from the chat calls' figures.
	KindEmbed Kind = "embed"
)

// Event is one thing that happened during a run.
type Event struct {
	Kind Kind `json:"kind"`
	Turn int  `json:"turn"`
	// At is the virtual time since the start of the scenario.
	At    time.Duration `json:"at_ns"`
	LLM   *LLMCall      `json:"llm,omitempty"`
	Tool  *ToolCall     `json:"tool,omitempty"`
	HTTP  *Exchange     `json:"http,omitempty"`
	Note  *Note         `json:"note,omitempty"`
	Embed *EmbedCall    `json:"embed,omitempty"`
}

// Parts is a token count broken down by where the tokens sit in a prompt.
type Parts struct {
	System      int `json:"system"`
	Tools       int `json:"tools"`
	History     int `json:"history"`
	ToolResults int `json:"tool_results"`
	User        int `json:"user"`
	Overhead    int `json:"overhead"`
}

// Total is the sum of all parts.
func (p Parts) Total() int {
	return p.System + p.Tools + p.History + p.ToolResults + p.User + p.Overhead
}

// Add returns the part-wise sum.
func (p Parts) Add(q Parts) Parts {
	return Parts{p.System + q.System, p.Tools + q.Tools, p.History + q.History,
		p.ToolResults + q.ToolResults, p.User + q.User, p.Overhead + q.Overhead}
}

// LLMCall is one model call.
type LLMCall struct {
	Role     string        `json:"role"`
	Model    string        `json:"model"`
	Duration time.Duration `json:"duration_ns"`
	Input    Parts         `json:"input"`
	Output   int           `json:"output"`
	// Reported is the provider's own usage, when it sent one.
	Reported *Usage `json:"reported,omitempty"`
	// Cost is the call's price, nil when its model is unpriced.
	Cost      *Cost  `json:"cost,omitempty"`
	Text      string `json:"text"`
	ToolCalls []Call `json:"tool_calls,omitempty"`
	Error     string `json:"error,omitempty"`
	// ResponseModel is the model the provider says answered (a dated
	// version of Model, often), when it said.
	ResponseModel string `json:"response_model,omitempty"`
	// ResponseID is the provider's id of the answer (llm.Response.ID:
	// chatcmpl-…, resp_…, msg_…, Gemini's responseId), when it gave one.
	// Reports written before leave it out.
	ResponseID string `json:"response_id,omitempty"`
	// FinishReason is why the model stopped, in the neutral set every
	// adapter maps to (llm.FinishReasons: stop, length, tool_calls,
	// content_filter, error, other); RawFinishReason is the provider's own
	// ("STOP", "end_turn", …).
	FinishReason    string `json:"finish_reason,omitempty"`
	RawFinishReason string `json:"raw_finish_reason,omitempty"`
	// Stream is the timing of the call's answer when it was streamed.
	Stream *Stream `json:"stream,omitempty"`
	// Params are the request's settings the agent gave, nil when it gave
	// none (reports written before have none).
	Params *Params `json:"params,omitempty"`
	// Sent is the last message of the request (the user's turn, or the
	// tool result the model was to read), as "role: text". A run keeps it
	// for testbed show; report files do not, as it can be a whole payload.
	Sent string `json:"-"`
	// Prompt is the whole request: its messages, the system prompt among
	// them, and the tool definitions. A run keeps it only when asked, for
	// testbed show and the HTML report's "what the model saw"; nil else.
	Prompt *Prompt `json:"prompt,omitempty"`
}

// EmbedCall is one embeddings call: Texts inputs turned into vectors.
// Input is their tokens as testbed counts them (the suite's tokenizer);
// Reported is the provider's own count (OpenAI's usage.prompt_tokens),
// when it sent one. It prices the call (Cost) and is not part of the chat
// calls' prompt tokens.
type EmbedCall struct {
	Model    string        `json:"model"`
	Duration time.Duration `json:"duration_ns"`
	Texts    int           `json:"texts"`
	Input    int           `json:"input"`
	Reported *int          `json:"reported,omitempty"`
	// Cost is the call's price, nil when its model is unpriced.
	Cost  *Cost  `json:"cost,omitempty"`
	Error string `json:"error,omitempty"`
	// EmbedParams are what the request asked of the vectors: their
	// encoding formats and dimensions, each when it said; reports written
	// before they were kept leave them out.
	llm.EmbedParams
}

// Tokens is the call's input tokens as billed: the provider's count when
// it reported one, else testbed's.
func (c *EmbedCall) Tokens() int {
	if c.Reported != nil {
		return *c.Reported
	}
	return c.Input
}

// Prompt is what a model call was sent.
type Prompt struct {
	Messages []llm.Message `json:"messages"`
	Tools    []llm.Tool    `json:"tools,omitempty"`
}

// Usage is provider-reported usage. Output includes the model's thinking;
// Reasoning is that part, when the provider reports it.
type Usage struct {
	// Input is every input token, those read from or written to a prompt
	// cache included; CacheRead and CacheWrite are those parts of it.
	// Output includes the model's thinking; Reasoning is that part.
	Input      int `json:"input"`
	Output     int `json:"output"`
	Reasoning  int `json:"reasoning,omitempty"`
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
	// CacheWrite1h is the part of CacheWrite written to Anthropic's
	// 1-hour cache (its usage.cache_creation.ephemeral_1h_input_tokens).
	CacheWrite1h int `json:"cache_write_1h,omitempty"`
	// CacheReadAudio is the audio part of CacheRead (llm.Usage's
	// CacheReadAudioTokens). Reports written before leave it out.
	CacheReadAudio int `json:"cache_read_audio,omitempty"`
	// InputAudio and OutputAudio are the audio parts of Input and Output;
	// ServiceTier the tier that served the call ("" for the standard one);
	// WebSearches the server-side searches billed per search (llm.Usage's
	// fields of the same names). Reports written before leave them out.
	InputAudio  int    `json:"input_audio,omitempty"`
	OutputAudio int    `json:"output_audio,omitempty"`
	ServiceTier string `json:"service_tier,omitempty"`
	WebSearches int    `json:"web_searches,omitempty"`
	// InferenceGeo is llm.Usage's: "us" for Anthropic's US-only inference.
	InferenceGeo string `json:"inference_geo,omitempty"`
}

// ReportedUsage is the usage a run keeps of a call from the provider's
// report of it (u), as the runner keeps it.
func ReportedUsage(u llm.Usage) *Usage {
	return &Usage{Input: u.InputTokens, Output: u.OutputTokens, Reasoning: u.ReasoningTokens, CacheRead: u.CacheReadTokens,
		CacheWrite: u.CacheWriteTokens, CacheWrite1h: u.CacheWrite1hTokens, CacheReadAudio: u.CacheReadAudioTokens, InputAudio: u.InputAudioTokens,
		OutputAudio: u.OutputAudioTokens, ServiceTier: u.ServiceTier, WebSearches: u.WebSearches, InferenceGeo: u.InferenceGeo}
}

// CallUsage is what one model or embeddings call used, as priced: the
// model, testbed's counts, the provider's usage when it reported one, and
// whether the call failed.
type CallUsage struct {
	Model string `json:"model"`
	// Embed marks an embeddings call: Input is its texts' tokens and
	// Reported.Input the provider's count of them.
	Embed    bool   `json:"embed,omitempty"`
	Input    int    `json:"input"`
	Output   int    `json:"output,omitempty"`
	Reported *Usage `json:"reported,omitempty"`
	Failed   bool   `json:"failed,omitempty"`
}

// Sources of a Cost: the usage a call was priced from.
const (
	CostFromReported = "reported" // the provider's own usage (LLMCall.Reported)
	CostFromCounted  = "counted"  // testbed's token counts (LLMCall.Input and Output)
	CostFromFailed   = "failed"   // a call that failed with no usage: billed nothing
)

// Cost is the price of one model call in US dollars.
type Cost struct {
	USD float64 `json:"usd"`
	// From says which usage it was priced from: CostFromReported or
	// CostFromCounted.
	From string `json:"from"`
	// Model is the price table's row the call was priced at.
	Model string `json:"model"`
	// Unpriced names the parts of the call the table has no price for
	// (a service tier its row has no rates for, web searches without a
	// per-search rate): USD is then what the rest cost, a lower bound, and
	// the call counts as unpriced, never as wholly priced.
	Unpriced []string `json:"unpriced,omitempty"`
}

// Call is a tool call the model asked for. ID is the call's id, as the
// provider gave it, or as testbed numbers a call that came without one
// (wire.CallID: a Gemini functionCall, an Ollama tool call, read from an
// outside agent's traffic); reports written before leave it out.
type Call struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolCall is one tool the agent executed, with its payload sizes. CallID
// is the id of the model's call it ran (Call.ID), when the agent said
// (agents.ReportTool); reports written before leave it out.
type ToolCall struct {
	CallID        string          `json:"call_id,omitempty"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args,omitempty"`
	RawBytes      int             `json:"raw_bytes"`
	RawTokens     int             `json:"raw_tokens"`
	ContextTokens int             `json:"context_tokens"`
	Error         string          `json:"error,omitempty"`
}

// Exchange is one HTTP request and its recorded answer.
type Exchange struct {
	Method   string        `json:"method"`
	URL      string        `json:"url"`
	Status   int           `json:"status"`
	Duration time.Duration `json:"duration_ns"`
	Error    string        `json:"error,omitempty"`
	// Fault is the kind of fault a stand-in injected into this exchange.
	Fault string `json:"fault,omitempty"`
	// Rule is the stand-in rule that decided a model's answer, when a
	// rule-based stand-in policy answered.
	Rule string `json:"rule,omitempty"`
	// Stream is the timing of a streamed answer; nil for a whole body.
	Stream *Stream `json:"stream,omitempty"`
}

// Stream is the timing of a streamed answer, from the request's start.
type Stream struct {
	Events int `json:"events"`
	// TokenEvents counts the events that carried content or a tool call.
	TokenEvents int `json:"token_events"`
	// FirstToken is the time to the first of them (TTFT); -1 when none did.
	FirstToken time.Duration `json:"first_token_ns"`
	// FirstEvent is the time to the first event of any kind (time to
	// first chunk); reports written before leave it out.
	FirstEvent time.Duration `json:"first_event_ns,omitempty"`
	// GapMean and GapP95 are the gaps between those events (inter-token
	// latency as the provider chunked it).
	GapMean time.Duration `json:"gap_mean_ns"`
	GapP95  time.Duration `json:"gap_p95_ns"`
	// Duration is the time to the last event.
	Duration time.Duration `json:"duration_ns"`
}

// Note is a named fact an agent reported. A run keeps Value as its JSON
// (a json.RawMessage), which holds a large value, such as a chart with its
// data, in a tenth of the memory of the decoded maps; a report read back from
// JSON holds it decoded. Decoded and Notes give the decoded form either way.
type Note struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// Decoded returns n's value as encoding/json decodes it into an any, or the
// value itself when it is not a json.RawMessage.
func (n *Note) Decoded() any {
	raw, ok := n.Value.(json.RawMessage)
	if !ok {
		return n.Value
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}

// Trace is the ordered record of one run. It is safe for concurrent use.
type Trace struct {
	mu      sync.Mutex
	turn    int
	elapsed time.Duration
	events  []Event
}

// SetTurn sets the user turn that following events belong to.
func (t *Trace) SetTurn(n int) {
	t.mu.Lock()
	t.turn = n
	t.mu.Unlock()
}

// Advance moves the virtual clock forward by d.
func (t *Trace) Advance(d time.Duration) {
	t.mu.Lock()
	t.elapsed += d
	t.mu.Unlock()
}

// Elapsed is the virtual time since the start of the run.
func (t *Trace) Elapsed() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.elapsed
}

// Add appends an event stamped with the current turn and virtual time.
func (t *Trace) Add(e Event) {
	t.mu.Lock()
	e.Turn = t.turn
	if e.At == 0 {
		e.At = t.elapsed
	}
	t.events = append(t.events, e)
	t.mu.Unlock()
}

// LastStream returns the stream timing of the last HTTP exchange added at
// or after virtual time since, or nil: the answer of a model call that
// started then, when it was streamed.
func (t *Trace) LastStream(since time.Duration) *Stream {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.events) - 1; i >= 0 && t.events[i].At >= since; i-- {
		if e := t.events[i]; e.Kind == KindHTTP && e.HTTP.Stream != nil {
			return e.HTTP.Stream
		}
	}
	return nil
}

// AddAt appends an event stamped with the current turn and virtual time
// at (Add stamps an event with the time now unless it has one; a call that
// started at 0 has one of 0).
func (t *Trace) AddAt(e Event, at time.Duration) {
	t.mu.Lock()
	e.Turn, e.At = t.turn, at
	t.events = append(t.events, e)
	t.mu.Unlock()
}

// Events returns a copy of the events so far.
func (t *Trace) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Event(nil), t.events...)
}
