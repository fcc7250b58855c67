package trace

import (
	"sort"
	"time"
)

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
