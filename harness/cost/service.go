package cost

import (
	"encoding/json"
	"fmt"
)

// serviceSuffixes are the suffixes of LiteLLM's keys for a service tier's
// rates, by the tier a response names: OpenAI's "flex" and "priority"
// (input_cost_per_token_flex, cache_read_input_token_cost_priority …) and
// Anthropic's "batch" (input_cost_per_token_batches …).
var serviceSuffixes = map[string]string{"flex": "_flex", "priority": "_priority", "batch": "_batches"}

// serviceTiers reads a row's service tiers with num (the row's rate of a
// key, nil when absent): a tier is priced when the row gives both its
// input and its output rate; its cached and audio rates, when it gives
// none of its own, are the base row's scaled as its input rate is to the
// base's (OpenAI's flex and priority cached reads keep the standard
// tier's ratio to input), its reasoning rate its output rate's.
func serviceTiers(num func(string) *float64, base Rates) map[string]Rates {
	var out map[string]Rates
	for tier, suf := range serviceSuffixes {
		in, o := num("input_cost_per_token"+suf), num("output_cost_per_token"+suf)
		if in == nil || o == nil {
			continue
		}
		r := Rates{Input: *in, Output: *o, CacheRead: num("cache_read_input_token_cost" + suf), CacheWrite: num("cache_creation_input_token_cost" + suf),
			CacheWrite1h: num("cache_creation_input_token_cost_above_1hr" + suf), Reasoning: num("output_cost_per_reasoning_token" + suf),
			InputAudio: num("input_cost_per_audio_token" + suf), OutputAudio: num("output_cost_per_audio_token" + suf),
			CacheReadAudio: num("cache_read_input_audio_token_cost" + suf)}
		if out == nil {
			out = map[string]Rates{}
		}
		out[tier] = r.scaled(base, false)
	}
	return out
}

// searchRate reads search_context_cost_per_query (an object of the
// search context sizes to dollars per search): the medium size's, the one
// LiteLLM bills Anthropic's and Gemini's searches at. nil when the row has
// none; a rate that is not a number, or is negative, is a problem.
func searchRate(raw json.RawMessage, problem func(string)) *float64 {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var sizes map[string]json.RawMessage
	if err := json.Unmarshal(raw, &sizes); err != nil {
		problem(fmt.Sprintf("search_context_cost_per_query is not an object of sizes to dollars: %s", raw))
		return nil
	}
	v, ok := sizes["search_context_size_medium"]
	if !ok || string(v) == "null" {
		return nil
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || f < 0 {
		problem(fmt.Sprintf("search_context_cost_per_query.search_context_size_medium is not a price: %s", v))
		return nil
	}
	return &f
}

// searchPerPrompt reads testbed_search_per, testbed's own key (LiteLLM's
// schema has none for it): "prompt" when the row's per-search rate is
// billed once per call that searched, "query" (or no key) when it is
// billed per search. Any other value is a problem.
func searchPerPrompt(raw json.RawMessage, problem func(string)) bool {
	if len(raw) == 0 {
		return false
	}
	switch v := str(raw); v {
	case "prompt":
		return true
	case "query":
		return false
	default:
		problem(fmt.Sprintf(`testbed_search_per is "prompt" or "query", not %s`, raw))
		return false
	}
}
