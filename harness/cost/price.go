package cost

import "fmt"

// Usage is what one model call consumed, in tokens, as a provider bills
// it. Input is the whole prompt, CacheRead (CacheReadAudio in it),
// CacheWrite, CacheWrite1h and InputAudio included; Output is the whole answer, Reasoning and
// OutputAudio included.
type Usage struct {
	Input          int
	CacheRead      int // prompt tokens read from the provider's cache
	CacheReadAudio int // the audio part of CacheRead
	CacheWrite     int // prompt tokens written to it (Anthropic: 5-minute)
	CacheWrite1h   int // prompt tokens written to Anthropic's 1-hour cache
	InputAudio     int // uncached prompt tokens of audio
	Output         int
	Reasoning      int // output tokens the model spent thinking
	OutputAudio    int // output tokens of audio
	// Tier is the service tier that served the call ("flex", "priority",
	// "batch"), "" for the standard one.
	Tier string
	// WebSearches counts the server-side searches billed per search.
	WebSearches int
	// Geo is the inference geography the call ran in when it is billed
	// apart ("us", Anthropic's US-only inference), "" for the default.
	Geo string
}

// usOnly is what Anthropic's US-only inference (inference_geo "us",
// which only the models it bills so accept) costs over its rates, on
// every token: 1.1 times, as published for the Claude Platform on AWS
// (docs/cost.md cites it).
const usOnly = 1.1

// Cost is the price of one call, in US dollars, by part.
type Cost struct {
	Input, CacheRead, CacheWrite, Output, Reasoning float64
	// Audio is the audio tokens' part, in and out; Search the web
	// searches'.
	Audio, Search float64
	// Tier is the long-context tier the call was billed at (its Above), 0
	// for the base rates.
	Tier int
	// Unpriced names the parts the row has no price for (a service tier
	// without rates of its own, searches without a per-search rate): the
	// other parts are a lower bound of what the call cost.
	Unpriced []string
}

// Total is the call's price (of its priced parts, when some are Unpriced).
func (c Cost) Total() float64 {
	return c.Input + c.CacheRead + c.CacheWrite + c.Output + c.Reasoning + c.Audio + c.Search
}

// Price returns what m bills for u: the prompt's uncached tokens at the
// input rate, cached reads and writes at theirs (input's when the row has
// none; a 1-hour write without a rate at twice input's, Anthropic's
// published rule), audio tokens at the audio rates (input's and output's
// when none) and cached audio at the cached audio rate (the cached read's
// when none), the answer at the output rate and its reasoning tokens at
// the reasoning rate (output's when none), and each web search at the
// row's per-search rate (a call that searched at it once, when the row
// bills per prompt). A prompt above a long-context tier bills the
// whole call at that tier's rates. A call served at a service tier is
// billed at the row's rates for that tier, past a long-context tier at
// that service tier's rates for it; a tier the row has no rates for
// leaves the call unpriced (Cost.Unpriced says why), never priced at the
// standard rates, and so do web searches without a per-search rate. A
// call run in the US only (Geo "us") costs 1.1 times its tokens' price,
// its searches as they are; one in a geography testbed knows no price for
// is unpriced.
// Parts that do not add up (more cached, audio or reasoning tokens than
// the whole) are an error.
func (m *Model) Price(u Usage) (Cost, error) {
	if u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || u.CacheWrite1h < 0 || u.Reasoning < 0 ||
		u.CacheReadAudio < 0 || u.InputAudio < 0 || u.OutputAudio < 0 || u.WebSearches < 0 {
		return Cost{}, fmt.Errorf("%s: negative counts %+v", m.Name, u)
	}
	plain := u.Input - u.CacheRead - u.CacheWrite - u.CacheWrite1h
	if plain < 0 {
		return Cost{}, fmt.Errorf("%s: %d cached prompt tokens in a prompt of %d", m.Name, u.Input-plain, u.Input)
	}
	if u.CacheReadAudio > u.CacheRead {
		return Cost{}, fmt.Errorf("%s: %d cached audio tokens in %d cached prompt tokens", m.Name, u.CacheReadAudio, u.CacheRead)
	}
	if u.InputAudio > plain {
		return Cost{}, fmt.Errorf("%s: %d audio tokens in %d uncached prompt tokens", m.Name, u.InputAudio, plain)
	}
	if u.Reasoning > u.Output {
		return Cost{}, fmt.Errorf("%s: %d reasoning tokens in an answer of %d", m.Name, u.Reasoning, u.Output)
	}
	if u.Reasoning+u.OutputAudio > u.Output {
		return Cost{}, fmt.Errorf("%s: %d reasoning and %d audio tokens in an answer of %d", m.Name, u.Reasoning, u.OutputAudio, u.Output)
	}
	r, tiers := m.Rates, m.Tiers
	if u.Tier != "" {
		svc, ok := m.Service[u.Tier]
		if !ok {
			return Cost{Unpriced: []string{fmt.Sprintf("served at the %s tier, which %s has no rates for", u.Tier, m.Name)}}, nil
		}
		r, tiers = svc, m.ServiceTiers[u.Tier]
		if above := passed(m.Tiers, u.Input); above > passed(tiers, u.Input) {
			return Cost{Unpriced: []string{fmt.Sprintf("served at the %s tier past %d input tokens, which %s has no rates for", u.Tier, above, m.Name)}}, nil
		}
	}
	tier := passed(tiers, u.Input)
	for _, t := range tiers {
		if t.Above == tier {
			r = t.Rates
		}
	}
	or := func(p *float64, fallback float64) float64 {
		if p == nil {
			return fallback
		}
		return *p
	}
	c := Cost{
		Input:      float64(plain-u.InputAudio) * r.Input,
		CacheRead:  float64(u.CacheRead-u.CacheReadAudio)*or(r.CacheRead, r.Input) + float64(u.CacheReadAudio)*or(r.CacheReadAudio, or(r.CacheRead, r.Input)),
		CacheWrite: float64(u.CacheWrite)*or(r.CacheWrite, r.Input) + float64(u.CacheWrite1h)*or(r.CacheWrite1h, 2*r.Input),
		Output:     float64(u.Output-u.Reasoning-u.OutputAudio) * r.Output,
		Reasoning:  float64(u.Reasoning) * or(r.Reasoning, r.Output),
		Audio:      float64(u.InputAudio)*or(r.InputAudio, r.Input) + float64(u.OutputAudio)*or(r.OutputAudio, r.Output),
		Tier:       tier,
	}
	switch u.Geo {
	case "":
	case "us":
		c.Input, c.CacheRead, c.CacheWrite = c.Input*usOnly, c.CacheRead*usOnly, c.CacheWrite*usOnly
		c.Output, c.Reasoning, c.Audio = c.Output*usOnly, c.Reasoning*usOnly, c.Audio*usOnly
	default:
		return Cost{Unpriced: []string{fmt.Sprintf("run in the %s inference geography, which testbed has no price for", u.Geo)}}, nil
	}
	if u.WebSearches > 0 {
		if m.SearchPerQuery == nil {
			c.Unpriced = append(c.Unpriced, fmt.Sprintf("%d web searches, which %s has no per-search rate for", u.WebSearches, m.Name))
		} else {
			billed := u.WebSearches
			if m.SearchPerPrompt {
				billed = 1
			}
			c.Search = float64(billed) * *m.SearchPerQuery
		}
	}
	return c, nil
}

// passed is the Above of the highest of tiers a prompt of input tokens
// passes, 0 when it passes none.
func passed(tiers []Tier, input int) int {
	above := 0
	for _, t := range tiers {
		if input > t.Above {
			above = t.Above
		}
	}
	return above
}
