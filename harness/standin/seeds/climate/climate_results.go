package climate

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// climateResultRules are the Climate Advisor rules after a tool result in
// the turn: they react to the turn's last result.
func climateResultRules() []policy.Rule[*ccTurn] {
	after := func(ps ...policy.Purpose) func(t *ccTurn) bool {
		return func(t *ccTurn) bool { return slices.ContainsFunc(ps, t.lastIs) }
	}
	listing := after(ccBrowse, ccCity)
	// searched is the city the last call searched for: the argument its
	// tool's city parameter took.
	searched := func(t *ccTurn) string {
		var a map[string]any
		json.Unmarshal(t.last.Arguments, &a)
		city, _ := a[policy.ParamFor(t.r.Tools, t.last.Name, "city")].(string)
		return city
	}
	return []policy.Rule[*ccTurn]{
		{Name: "unreadable-result", Doc: "a CityCatalyst tool's result that is not JSON: say it could not be read",
			Match: func(t *ccTurn) bool { return !t.first() && !t.lastIs(ccKnowledge) && !t.parsed },
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.say("The %s tool returned something I could not read, so I cannot answer from it.", t.last.Name)
			}},
		{Name: "tool-failed", Doc: "a CityCatalyst tool reports failure: pass its error on without guessing data",
			Match: func(t *ccTurn) bool { return !t.first() && !t.lastIs(ccKnowledge) && !t.env.Success },
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.say("I could not get that from CityCatalyst: %s. I will not guess the data; please try again later.", t.env.Error)
			}},
		{Name: "none-for-city", Doc: "a city search found no inventory: say so, with the city and year",
			Match: func(t *ccTurn) bool { return listing(t) && len(inventoriesIn(t.env.Data)) == 0 && searched(t) != "" },
			Act: func(t *ccTurn) (llm.Message, error) {
				var a map[string]any
				json.Unmarshal(t.last.Arguments, &a)
				year, _ := a[policy.ParamFor(t.r.Tools, t.last.Name, "year")].(float64)
				if year != 0 {
					return t.say("I found no inventories for %q in %d in your account.", searched(t), int(year))
				}
				return t.say("I found no inventories for %q in your account.", searched(t))
			}},
		{Name: "none-at-all", Doc: "browsing found no inventory: say the user has none yet",
			Match: func(t *ccTurn) bool { return listing(t) && len(inventoriesIn(t.env.Data)) == 0 },
			Act:   func(t *ccTurn) (llm.Message, error) { return t.say("You have no inventories yet.") }},
		{Name: "sources-before-open", Doc: "a listing found one inventory, the user asked about data sources, and the data-source tool comes before the one that opens an inventory (the prompt's order, else the request's): the data sources of that inventory",
			Match: func(t *ccTurn) bool {
				return listing(t) && len(inventoriesIn(t.env.Data)) == 1 && t.text.Has("sources") && t.offers(ccSources) && !t.openFirst()
			},
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccSources, policy.Slot{Word: "id", Value: inventoriesIn(t.env.Data)[0].ID})
			}},
		{Name: "open-the-one", Doc: "a listing found one inventory: open it with the tool whose description says it gives one's details",
			Match: func(t *ccTurn) bool { return listing(t) && len(inventoriesIn(t.env.Data)) == 1 && t.offers(ccOpen) },
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccOpen, policy.Slot{Word: "id", Value: inventoriesIn(t.env.Data)[0].ID})
			}},
		{Name: "list-and-ask", Doc: "a listing found several inventories: list them and ask which to open",
			Match: listing,
			Act: func(t *ccTurn) (llm.Message, error) {
				invs := inventoriesIn(t.env.Data)
				p := t.prose
				var b strings.Builder
				b.WriteString(p.Say("I found %d inventories:", len(invs)) + "\n")
				for _, inv := range invs {
					b.WriteString(p.Say("- %s %d: %s, %s (ID %s)", inv.City, inv.Year, typeName(inv.Type), tonnes(p, inv.Total), inv.ID) + "\n")
				}
				b.WriteString(p.Say("Which one should I open?"))
				return t.say("%s", b.String())
			}},
		{Name: "sources-next", Doc: "an inventory opened and the user asked about data sources: call the tool whose description offers them (when the order puts it after the opening, or it was not called yet)",
			Match: func(t *ccTurn) bool {
				s, ok := policy.ChooseTool(t.r.Tools, ccSources)
				return t.lastIs(ccOpen) && t.text.Has("sources") && ok && !calledIn(t.turn, s.Name)
			},
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccSources, policy.Slot{Word: "id", Value: openedInventory(t.env.Data).ID})
			}},
		{Name: "summarize-inventory", Doc: "an inventory opened: its name, city, year, type, total and GWP values",
			Match: after(ccOpen),
			Act: func(t *ccTurn) (llm.Message, error) {
				var d struct {
					Data map[string]any `json:"data"`
				}
				json.Unmarshal(t.env.Data, &d)
				inv := inventoryOf(d.Data)
				return t.say("%s (%s, %d) is a %s inventory; its emissions total %s, using %s GWP values.",
					inv.Name, inv.City, inv.Year, typeName(inv.Type), tonnes(t.prose, inv.Total), strings.ToUpper(str(d.Data["globalWarmingPotentialType"])))
			}},
		{Name: "count-sources", Doc: "data sources listed: how many, and the first three by name",
			Match: after(ccSources),
			Act: func(t *ccTurn) (llm.Message, error) {
				var d struct {
					Data []map[string]any `json:"data"`
				}
				json.Unmarshal(t.env.Data, &d)
				if len(d.Data) == 0 {
					return t.say("There are no data sources available for this inventory.")
				}
				var names []string
				for _, s := range d.Data[:min(3, len(d.Data))] {
					names = append(names, sourceName(s))
				}
				return t.say("There are %d data sources available for this inventory, including %s.", len(d.Data), strings.Join(names, "; "))
			}},
		{Name: "knowledge-unused", Doc: "the knowledge-base search was not used: refuse to answer from memory",
			Match: func(t *ccTurn) bool {
				return after(ccKnowledge)(t) && strings.HasPrefix(t.result, "Climate search was not used")
			},
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.say("I could not find this in the internal climate knowledge base, so I will not answer from memory.")
			}},
		{Name: "quote-knowledge", Doc: "a knowledge-base search answered: quote its first excerpt with its source",
			Match: after(ccKnowledge),
			Act: func(t *ccTurn) (llm.Message, error) {
				src, text := firstExcerpt(t.result)
				return t.say("According to the internal climate knowledge base (%s): %s", src, text)
			}},
		{Name: "done", Doc: "any other result: say it is done",
			Match: func(*ccTurn) bool { return true },
			Act:   func(t *ccTurn) (llm.Message, error) { return t.say("Done.") }},
	}
}

// openedInventory reads get_inventory's data.
func openedInventory(raw json.RawMessage) listed {
	var d struct {
		Data map[string]any `json:"data"`
	}
	json.Unmarshal(raw, &d)
	return inventoryOf(d.Data)
}

// ccOrdinals are the lexicon's ordinal concepts, by position.
var ccOrdinals = []string{"ordinal_1", "ordinal_2", "ordinal_3", "ordinal_4"}

// choice picks the inventory the user refers to among invs, or nil: by id,
// by a listed city written in the message, then by year, ordinal, or a
// latest or oldest word among those.
func choice(q string, t lexicon.Text, invs []listed) *listed {
	if id := ccUUIDRe.FindString(q); id != "" {
		for i := range invs {
			if strings.EqualFold(invs[i].ID, id) {
				return &invs[i]
			}
		}
	}
	var cands []int
	for i, inv := range invs {
		if inv.City != "" && strings.Contains(q, inv.City) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		for i := range invs {
			cands = append(cands, i)
		}
	}
	if m := ccYearRe.FindString(q); m != "" {
		y, _ := strconv.Atoi(m)
		for _, i := range cands {
			if invs[i].Year == y {
				return &invs[i]
			}
		}
		return nil
	}
	// Ordinals in a fixed order, so a message naming two picks the same one
	// every time.
	for n, c := range ccOrdinals {
		if t.Has(c) && n < len(cands) {
			return &invs[cands[n]]
		}
	}
	byYear := func(newest bool) *listed {
		best := cands[0]
		for _, i := range cands[1:] {
			if newest && invs[i].Year > invs[best].Year || !newest && invs[i].Year < invs[best].Year {
				best = i
			}
		}
		return &invs[best]
	}
	if t.Has("latest") {
		return byYear(true)
	}
	if t.Has("oldest") {
		return byYear(false)
	}
	if len(cands) == 1 && len(cands) < len(invs) {
		return &invs[cands[0]]
	}
	return nil
}
