// Package trace records one run of one scenario: an ordered list of events
// (LLM calls, tool calls, HTTP exchanges, notes) on a virtual clock, and the
// metrics derived from them.
//
// A Trace is filled by the harness through the seams of agents.Config; it does
// not count tokens itself (callers store counts made with package tokens).
package trace

import (
	"encoding/json"
	"sort"
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
	// FinishReason is why the model stopped, in the neutral set every
	// adapter maps to (llm.FinishReasons: stop, length, tool_calls,
	// content_filter, error, other); RawFinishReason is the provider's own
	// ("STOP", "end_turn", …).
	FinishReason    string `json:"finish_reason,omitempty"`
	RawFinishReason string `json:"raw_finish_reason,omitempty"`
	// Stream is the timing of the call's answer when it was streamed.
	Stream *Stream `json:"stream,omitempty"`
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
	// InputAudio and OutputAudio are the audio parts of Input and Output;
	// ServiceTier the tier that served the call ("" for the standard one);
	// WebSearches the server-side searches billed per search (llm.Usage's
	// fields of the same names). Reports written before leave them out.
	InputAudio  int    `json:"input_audio,omitempty"`
	OutputAudio int    `json:"output_audio,omitempty"`
	ServiceTier string `json:"service_tier,omitempty"`
	WebSearches int    `json:"web_searches,omitempty"`
}

// ReportedUsage is the usage a run keeps of a call from the provider's
// report of it (u), as the runner keeps it.
func ReportedUsage(u llm.Usage) *Usage {
	return &Usage{Input: u.InputTokens, Output: u.OutputTokens, Reasoning: u.ReasoningTokens, CacheRead: u.CacheReadTokens,
		CacheWrite: u.CacheWriteTokens, CacheWrite1h: u.CacheWrite1hTokens, InputAudio: u.InputAudioTokens, OutputAudio: u.OutputAudioTokens,
		ServiceTier: u.ServiceTier, WebSearches: u.WebSearches}
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

// Call is a tool call the model asked for.
type Call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolCall is one tool the agent executed, with its payload sizes.
type ToolCall struct {
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

// Metrics are the figures derived from a list of events.
type Metrics struct {
	LLMCalls     int   `json:"llm_calls"`
	ToolCalls    int   `json:"tool_calls"`
	HTTPCalls    int   `json:"http_calls"`
	Input        Parts `json:"input"`
	InputTokens  int   `json:"input_tokens"`
	OutputTokens int   `json:"output_tokens"`
	// ReportedInput and ReportedOutput sum the provider's own usage over
	// the calls that reported one.
	ReportedInput  int `json:"reported_input"`
	ReportedOutput int `json:"reported_output"`
	// ReportedCacheRead and ReportedCacheWrite are the parts of
	// ReportedInput the provider read from and wrote to its prompt cache.
	ReportedCacheRead  int `json:"reported_cache_read,omitempty"`
	ReportedCacheWrite int `json:"reported_cache_write,omitempty"`
	// ReportedReasoning is the part of ReportedOutput the provider says
	// the model spent thinking (OpenAI's reasoning_tokens, Gemini's
	// thoughtsTokenCount, Anthropic's thinking tokens).
	ReportedReasoning int `json:"reported_reasoning,omitempty"`
	// CostUSD sums the prices of the PricedCalls; UnpricedCalls counts
	// the calls whose model the price table lacks (never counted as $0),
	// and CountedCalls those of the priced ones priced from testbed's own
	// counts because the provider reported no usage.
	CostUSD       float64 `json:"cost_usd,omitempty"`
	PricedCalls   int     `json:"priced_calls,omitempty"`
	UnpricedCalls int     `json:"unpriced_calls,omitempty"`
	CountedCalls  int     `json:"counted_calls,omitempty"`
	// EmbedCalls counts the embeddings calls and EmbedTokens their input
	// tokens as billed (Tokens); they are not model calls nor input tokens
	// above. EmbedCostUSD is their part of CostUSD, and PricedCalls,
	// UnpricedCalls and CountedCalls count them too.
	EmbedCalls   int     `json:"embed_calls,omitempty"`
	EmbedTokens  int     `json:"embed_tokens,omitempty"`
	EmbedCostUSD float64 `json:"embed_cost_usd,omitempty"`
	// Calls is every model and embeddings call's usage, in call order:
	// what a report keeps so that it can be priced again without its
	// trace (a blessed baseline keeps no trace, a sampled scenario's report
	// only its first sample's).
	Calls         []CallUsage `json:"calls,omitempty"`
	RawTokens     int         `json:"raw_tokens"`
	ContextTokens int         `json:"context_tokens"`
	// Faults counts the exchanges into which a stand-in injected a fault.
	Faults  int             `json:"faults,omitempty"`
	Latency time.Duration   `json:"latency_ns"`
	Roles   map[string]Role `json:"roles,omitempty"`
	// Streams holds the timing of each streamed model call, in call order.
	Streams []StreamCall `json:"streams,omitempty"`
}

// StreamCall is one streamed model call's timing and output.
type StreamCall struct {
	Role string `json:"role"`
	Stream
	Output int `json:"output"` // output tokens, as counted
}

// TPOT is the time per output token after the first: the stream's time
// from its first token to its end over the tokens that followed; 0 when
// fewer than two tokens came.
func (c StreamCall) TPOT() time.Duration {
	if c.FirstToken < 0 || c.Output < 2 {
		return 0
	}
	return (c.Duration - c.FirstToken) / time.Duration(c.Output-1)
}

// TokensPerSecond is the output tokens over the time from the first token
// to the stream's end; 0 when that time is 0.
func (c StreamCall) TokensPerSecond() float64 {
	if c.FirstToken < 0 || c.Duration <= c.FirstToken {
		return 0
	}
	return float64(c.Output) / (c.Duration - c.FirstToken).Seconds()
}

// Role is the per-role share of LLM calls.
type Role struct {
	Calls        int           `json:"calls"`
	InputTokens  int           `json:"input_tokens"`
	OutputTokens int           `json:"output_tokens"`
	Latency      time.Duration `json:"latency_ns"`
}

// Measure derives Metrics from events. Latency is the sum of the recorded
// durations of the HTTP exchanges, since agents call sequentially.
func Measure(events []Event) Metrics {
	var m Metrics
	for _, e := range events {
		switch e.Kind {
		case KindLLM:
			m.LLMCalls++
			m.Input = m.Input.Add(e.LLM.Input)
			m.OutputTokens += e.LLM.Output
			if u := e.LLM.Reported; u != nil {
				m.ReportedInput += u.Input
				m.ReportedOutput += u.Output
				m.ReportedCacheRead += u.CacheRead
				m.ReportedCacheWrite += u.CacheWrite
				m.ReportedReasoning += u.Reasoning
			}
			m.price(e.LLM.Cost)
			m.Calls = append(m.Calls, CallUsage{Model: e.LLM.Model, Input: e.LLM.Input.Total(), Output: e.LLM.Output,
				Reported: e.LLM.Reported, Failed: e.LLM.Error != ""})
			if m.Roles == nil {
				m.Roles = map[string]Role{}
			}
			r := m.Roles[e.LLM.Role]
			r.Calls++
			r.InputTokens += e.LLM.Input.Total()
			r.OutputTokens += e.LLM.Output
			r.Latency += e.LLM.Duration
			m.Roles[e.LLM.Role] = r
			if st := e.LLM.Stream; st != nil {
				m.Streams = append(m.Streams, StreamCall{Role: e.LLM.Role, Stream: *st, Output: e.LLM.Output})
			}
		case KindEmbed:
			u := CallUsage{Model: e.Embed.Model, Embed: true, Input: e.Embed.Input, Failed: e.Embed.Error != ""}
			if r := e.Embed.Reported; r != nil {
				u.Reported = &Usage{Input: *r}
			}
			m.Calls = append(m.Calls, u)
			m.EmbedCalls++
			m.EmbedTokens += e.Embed.Tokens()
			m.price(e.Embed.Cost)
			if c := e.Embed.Cost; c != nil {
				m.EmbedCostUSD += c.USD
			}
		case KindTool:
			m.ToolCalls++
			m.RawTokens += e.Tool.RawTokens
			m.ContextTokens += e.Tool.ContextTokens
		case KindHTTP:
			m.HTTPCalls++
			m.Latency += e.HTTP.Duration
			if e.HTTP.Fault != "" {
				m.Faults++
			}
		}
	}
	m.InputTokens = m.Input.Total()
	return m
}

// price counts one call's price c (nil: unpriced). A call with parts
// unpriced counts as unpriced, its priced parts in CostUSD: a lower bound.
func (m *Metrics) price(c *Cost) {
	if c == nil {
		m.UnpricedCalls++
		return
	}
	if len(c.Unpriced) > 0 {
		m.UnpricedCalls++
		m.CostUSD += c.USD
		return
	}
	m.PricedCalls++
	m.CostUSD += c.USD
	if c.From == CostFromCounted {
		m.CountedCalls++
	}
}

// TokenReduction is 1 − context/raw over the tool calls, or 0 when no raw
// payload was seen.
func (m Metrics) TokenReduction() float64 {
	if m.RawTokens == 0 {
		return 0
	}
	return 1 - float64(m.ContextTokens)/float64(m.RawTokens)
}

// Notes returns the values noted under key, in order.
func Notes(events []Event, key string) []any {
	var out []any
	for _, e := range events {
		if e.Kind == KindNote && e.Note.Key == key {
			out = append(out, e.Note.Decoded())
		}
	}
	return out
}

// OfTurn returns the events of user turn n.
func OfTurn(events []Event, n int) []Event {
	var out []Event
	for _, e := range events {
		if e.Turn == n {
			out = append(out, e)
		}
	}
	return out
}

// RoleNames returns the roles of m in sorted order.
func (m Metrics) RoleNames() []string {
	names := make([]string, 0, len(m.Roles))
	for n := range m.Roles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
