package cost

import "fmt"

// Usage is what one model call consumed, in tokens, as a provider bills
// it. Input is the whole prompt, CacheRead, CacheWrite and CacheWrite1h
// included; Output is the whole answer, Reasoning included.
type Usage struct {
	Input        int
	CacheRead    int // prompt tokens read from the provider's cache
	CacheWrite   int // prompt tokens written to it (Anthropic: 5-minute)
	CacheWrite1h int // prompt tokens written to Anthropic's 1-hour cache
	Output       int
	Reasoning    int // output tokens the model spent thinking
}

// Cost is the price of one call, in US dollars, by part.
type Cost struct {
	Input, CacheRead, CacheWrite, Output, Reasoning float64
	// Tier is the long-context tier the call was billed at (its Above), 0
	// for the base rates.
	Tier int
}

// Total is the call's price.
func (c Cost) Total() float64 {
	return c.Input + c.CacheRead + c.CacheWrite + c.Output + c.Reasoning
}

// Price returns what m bills for u: the prompt's uncached tokens at the
// input rate, cached reads and writes at theirs (input's when the row has
// none; a 1-hour write without a rate at twice input's, Anthropic's
// published rule), the answer at the output rate and its reasoning tokens at the
// reasoning rate (output's when none). A prompt above a long-context tier
// bills the whole call at that tier's rates. Parts that do not add up (more
// cached or reasoning tokens than the whole) are an error.
func (m *Model) Price(u Usage) (Cost, error) {
	if u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || u.CacheWrite1h < 0 || u.Reasoning < 0 {
		return Cost{}, fmt.Errorf("%s: negative token counts %+v", m.Name, u)
	}
	plain := u.Input - u.CacheRead - u.CacheWrite - u.CacheWrite1h
	if plain < 0 {
		return Cost{}, fmt.Errorf("%s: %d cached prompt tokens in a prompt of %d", m.Name, u.Input-plain, u.Input)
	}
	if u.Reasoning > u.Output {
		return Cost{}, fmt.Errorf("%s: %d reasoning tokens in an answer of %d", m.Name, u.Reasoning, u.Output)
	}
	r, tier := m.Rates, 0
	for _, t := range m.Tiers {
		if u.Input > t.Above {
			r, tier = t.Rates, t.Above
		}
	}
	or := func(p *float64, fallback float64) float64 {
		if p == nil {
			return fallback
		}
		return *p
	}
	write5m := or(r.CacheWrite, r.Input)
	return Cost{
		Input:      float64(plain) * r.Input,
		CacheRead:  float64(u.CacheRead) * or(r.CacheRead, r.Input),
		CacheWrite: float64(u.CacheWrite)*write5m + float64(u.CacheWrite1h)*or(r.CacheWrite1h, 2*r.Input),
		Output:     float64(u.Output-u.Reasoning) * r.Output,
		Reasoning:  float64(u.Reasoning) * or(r.Reasoning, r.Output),
		Tier:       tier,
	}, nil
}
