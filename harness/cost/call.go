package cost

import (
	"fmt"

	"github.com/agentreplay/testbed/harness/trace"
)

// Pricer prices the model calls of a trace: a table, and the names a
// suite's models stand for in it (the stand-in's gemma3:4b served through
// Ollama is ollama/gemma3:4b; openai/gpt-4.1 through OpenRouter is
// gpt-4.1). A nil Table prices nothing: every call is unpriced.
type Pricer struct {
	Table  *Table
	Models map[string]string
}

// Call prices one model call of provider's (the endpoint's provider:
// openai, gemini, anthropic): from the provider's reported usage when the
// call has one, else from testbed's own counts. A call that failed with no
// usage is billed nothing. nil when the model is unpriced.
func (p Pricer) Call(provider string, c *trace.LLMCall) *trace.Cost {
	m, ok := p.lookup(provider, c.Model)
	if !ok {
		return nil
	}
	u, from := Usage{Input: c.Input.Total(), Output: c.Output}, trace.CostFromCounted
	if r := c.Reported; r != nil {
		u = Usage{Input: r.Input, CacheRead: r.CacheRead, CacheReadAudio: r.CacheReadAudio, CacheWrite: r.CacheWrite - r.CacheWrite1h, CacheWrite1h: r.CacheWrite1h,
			InputAudio: r.InputAudio, Output: r.Output, Reasoning: r.Reasoning, OutputAudio: r.OutputAudio, Tier: r.ServiceTier, WebSearches: r.WebSearches,
			Geo: r.InferenceGeo}
		from = trace.CostFromReported
	} else if c.Error != "" {
		return &trace.Cost{From: trace.CostFromFailed, Model: m.Name}
	}
	price, err := m.Price(u)
	if err != nil {
		// usage whose parts do not add up is the provider's; price it
		// from testbed's counts (at the tier that served it, with its
		// searches, in its geography) rather than not at all
		u, from = Usage{Input: c.Input.Total(), Output: c.Output, Tier: u.Tier, WebSearches: u.WebSearches, Geo: u.Geo}, trace.CostFromCounted
		if price, err = m.Price(u); err != nil {
			return nil
		}
	}
	return &trace.Cost{USD: price.Total(), From: from, Model: m.Name, Unpriced: price.Unpriced}
}

// Embed prices one embeddings call at its model's input rate: from the
// provider's reported tokens when the call has them, else from testbed's
// count of its input. A call that failed with no usage is billed nothing.
// nil when the model is unpriced.
func (p Pricer) Embed(provider string, c *trace.EmbedCall) *trace.Cost {
	m, ok := p.lookup(provider, c.Model)
	if !ok {
		return nil
	}
	n, from := c.Input, trace.CostFromCounted
	switch {
	case c.Reported != nil:
		n, from = *c.Reported, trace.CostFromReported
	case c.Error != "":
		return &trace.Cost{From: trace.CostFromFailed, Model: m.Name}
	}
	price, err := m.Price(Usage{Input: n})
	if err != nil {
		return nil
	}
	return &trace.Cost{USD: price.Total(), From: from, Model: m.Name}
}

// Trace prices every model and embeddings call of events in place (their
// LLMCall.Cost and EmbedCall.Cost).
func (p Pricer) Trace(provider string, events []trace.Event) {
	for _, e := range events {
		switch {
		case e.Kind == trace.KindLLM && e.LLM != nil:
			e.LLM.Cost = p.Call(provider, e.LLM)
		case e.Kind == trace.KindEmbed && e.Embed != nil:
			e.Embed.Cost = p.Embed(provider, e.Embed)
		}
	}
}

// lookup finds model's row, mapped through Models.
func (p Pricer) lookup(provider, model string) (*Model, bool) {
	if to, ok := p.Models[model]; ok {
		model = to
	}
	return p.Table.Lookup(provider, model)
}

// Estimate is what a request may cost at most: its prompt's tokens at the
// input rate and maxOutput tokens at the output rate (the request's
// max_tokens; tiers apply; 0 for an embeddings request). ok is false when
// the model is unpriced.
func (p Pricer) Estimate(provider, model string, input, maxOutput int) (usd float64, ok bool) {
	m, ok := p.lookup(provider, model)
	if !ok {
		return 0, false
	}
	c, err := m.Price(Usage{Input: input, Output: maxOutput})
	if err != nil {
		return 0, false
	}
	return c.Total(), true
}

// Lumped prices calls known only by their summed tokens (what a report
// written before it kept each call's tokens holds): input and output at
// the model's rates, as one request. That is what the calls cost when no
// long-context tier applies to the sum (none can then apply to a call);
// when one does and there were several calls, each call's tier cannot be
// told from the sum, and an error says so. ok is false when the model is
// unpriced.
func (p Pricer) Lumped(provider, model string, calls, input, output int) (usd float64, ok bool, err error) {
	m, ok := p.lookup(provider, model)
	if !ok {
		return 0, false, nil
	}
	c, err := m.Price(Usage{Input: input, Output: output})
	if err != nil {
		return 0, false, err
	}
	if c.Tier > 0 && calls > 1 {
		return 0, false, fmt.Errorf("%d calls of %s hold %d input tokens together, above its long-context tier of %d: each call's rate cannot be told from the sum", calls, m.Name, input, c.Tier)
	}
	return c.Total(), true, nil
}

// Usage prices one call from what a report keeps of it (trace.CallUsage),
// as Call and Embed price it from the trace.
func (p Pricer) Usage(provider string, u trace.CallUsage) *trace.Cost {
	var failed string
	if u.Failed {
		failed = "failed"
	}
	if u.Embed {
		c := &trace.EmbedCall{Model: u.Model, Input: u.Input, Error: failed}
		if u.Reported != nil {
			n := u.Reported.Input
			c.Reported = &n
		}
		return p.Embed(provider, c)
	}
	return p.Call(provider, &trace.LLMCall{Model: u.Model, Input: trace.Parts{User: u.Input}, Output: u.Output, Reported: u.Reported, Error: failed})
}

// Metrics prices again the calls m keeps (its Calls) and sets its spend:
// CostUSD, EmbedCostUSD and the priced, unpriced and counted calls. An
// error says when m does not keep every call it counts (a report written
// before reports kept them).
func (p Pricer) Metrics(provider string, m *trace.Metrics) error {
	if len(m.Calls) != m.LLMCalls+m.EmbedCalls {
		return fmt.Errorf("the report keeps the usage of %d of its %d model and embeddings calls", len(m.Calls), m.LLMCalls+m.EmbedCalls)
	}
	var events []trace.Event
	for _, u := range m.Calls {
		c := p.Usage(provider, u)
		if u.Embed {
			events = append(events, trace.Event{Kind: trace.KindEmbed, Embed: &trace.EmbedCall{Cost: c}})
		} else {
			events = append(events, trace.Event{Kind: trace.KindLLM, LLM: &trace.LLMCall{Cost: c}})
		}
	}
	s := trace.Measure(events)
	m.CostUSD, m.EmbedCostUSD, m.PricedCalls, m.UnpricedCalls, m.CountedCalls = s.CostUSD, s.EmbedCostUSD, s.PricedCalls, s.UnpricedCalls, s.CountedCalls
	return nil
}
