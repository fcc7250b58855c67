package cost

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
)

// tierKey matches a long-context rate, the standard tier's or a service
// tier's: input_cost_per_token_above_200k_tokens, the 1-hour cache
// write's cache_creation_input_token_cost_above_1hr_above_200k_tokens,
// priority's input_cost_per_token_above_272k_tokens_priority.
var tierKey = regexp.MustCompile(`^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|cache_creation_input_token_cost_above_1hr|output_cost_per_reasoning_token)_above_(\d+)k_tokens(_flex|_priority|_batches)?$`)

// longTiers reads the long-context tiers of row whose keys end in suf (""
// for the standard tier, a service tier's suffix otherwise) with num (the
// row's rate of a key), over base, the rates below them. A standard tier's
// input or output rate not given is base's; a service tier's tier is kept
// only when it gives both, as a service tier is priced only when its row
// gives both. The rates neither gives are base's, scaled (Rates.scaled).
func longTiers(row map[string]json.RawMessage, num func(string) *float64, base Rates, suf string) []Tier {
	tiers := map[int]*Rates{}
	given := map[int]int{} // input and output rates given, by tier
	for key := range row {
		g := tierKey.FindStringSubmatch(key)
		if g == nil || g[3] != suf {
			continue
		}
		k, _ := strconv.Atoi(g[2])
		r := tiers[k*1000]
		if r == nil {
			r = &Rates{Input: base.Input, Output: base.Output}
			tiers[k*1000] = r
		}
		v := num(key)
		if v == nil {
			continue
		}
		switch g[1] {
		case "input_cost_per_token":
			r.Input, given[k*1000] = *v, given[k*1000]+1
		case "output_cost_per_token":
			r.Output, given[k*1000] = *v, given[k*1000]+1
		case "cache_read_input_token_cost":
			r.CacheRead = v
		case "cache_creation_input_token_cost":
			r.CacheWrite = v
		case "cache_creation_input_token_cost_above_1hr":
			r.CacheWrite1h = v
		case "output_cost_per_reasoning_token":
			r.Reasoning = v
		}
	}
	var out []Tier
	for _, above := range slices.Sorted(maps.Keys(tiers)) {
		if suf != "" && given[above] < 2 {
			continue
		}
		out = append(out, Tier{Above: above, Rates: tiers[above].scaled(base, true)})
	}
	return out
}
