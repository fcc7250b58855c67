package standin

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// climateResultRules are the Climate Advisor rules after a tool result in
// the turn: they react to the turn's last result.
func climateResultRules() []rule[*ccTurn] {
	after := func(ps ...purpose) func(t *ccTurn) bool {
		return func(t *ccTurn) bool { return slices.ContainsFunc(ps, t.lastIs) }
	}
	listing := after(ccBrowse, ccCity)
	// searched is the city the last call searched for: the argument its
	// tool's city parameter took.
	searched := func(t *ccTurn) string {
		var a map[string]any
		json.Unmarshal(t.last.Arguments, &a)
		city, _ := a[paramFor(t.r.Tools, t.last.Name, "city")].(string)
		return city
	}
	return []rule[*ccTurn]{
		{name: "unreadable-result", doc: "a CityCatalyst tool's result that is not JSON: say it could not be read",
			match: func(t *ccTurn) bool { return !t.first() && !t.lastIs(ccKnowledge) && !t.parsed },
			act: func(t *ccTurn) (llm.Message, error) {
				return t.say("The %s tool returned something I could not read, so I cannot answer from it.", t.last.Name)
			}},
		{name: "tool-failed", doc: "a CityCatalyst tool reports failure: pass its error on without guessing data",
			match: func(t *ccTurn) bool { return !t.first() && !t.lastIs(ccKnowledge) && !t.env.Success },
			act: func(t *ccTurn) (llm.Message, error) {
				return t.say("I could not get that from CityCatalyst: %s. I will not guess the data; please try again later.", t.env.Error)
			}},
		{name: "none-for-city", doc: "a city search found no inventory: say so, with the city and year",
			match: func(t *ccTurn) bool { return listing(t) && len(inventoriesIn(t.env.Data)) == 0 && searched(t) != "" },
			act: func(t *ccTurn) (llm.Message, error) {
				var a map[string]any
				json.Unmarshal(t.last.Arguments, &a)
				year, _ := a[paramFor(t.r.Tools, t.last.Name, "year")].(float64)
				if year != 0 {
					return t.say("I found no inventories for %q in %d in your account.", searched(t), int(year))
				}
				return t.say("I found no inventories for %q in your account.", searched(t))
			}},
		{name: "none-at-all", doc: "browsing found no inventory: say the user has none yet",
			match: func(t *ccTurn) bool { return listing(t) && len(inventoriesIn(t.env.Data)) == 0 },
			act:   func(t *ccTurn) (llm.Message, error) { return t.say("You have no inventories yet.") }},
		{name: "sources-before-open", doc: "a listing found one inventory, the user asked about data sources, and the data-source tool comes before the one that opens an inventory (the prompt's order, else the request's): the data sources of that inventory",
			match: func(t *ccTurn) bool {
				return listing(t) && len(inventoriesIn(t.env.Data)) == 1 && t.text.has("sources") && t.offers(ccSources) && !t.openFirst()
			},
			act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccSources, slot{"id", inventoriesIn(t.env.Data)[0].ID})
			}},
		{name: "open-the-one", doc: "a listing found one inventory: open it with the tool whose description says it gives one's details",
			match: func(t *ccTurn) bool { return listing(t) && len(inventoriesIn(t.env.Data)) == 1 && t.offers(ccOpen) },
			act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccOpen, slot{"id", inventoriesIn(t.env.Data)[0].ID})
			}},
		{name: "list-and-ask", doc: "a listing found several inventories: list them and ask which to open",
			match: listing,
			act: func(t *ccTurn) (llm.Message, error) {
				invs := inventoriesIn(t.env.Data)
				p := t.prose
				var b strings.Builder
				b.WriteString(p.say("I found %d inventories:", len(invs)) + "\n")
				for _, inv := range invs {
					b.WriteString(p.say("- %s %d: %s, %s (ID %s)", inv.City, inv.Year, typeName(inv.Type), tonnes(p, inv.Total), inv.ID) + "\n")
				}
				b.WriteString(p.say("Which one should I open?"))
				return t.say("%s", b.String())
			}},
		{name: "sources-next", doc: "an inventory opened and the user asked about data sources: call the tool whose description offers them (when the order puts it after the opening, or it was not called yet)",
			match: func(t *ccTurn) bool {
				s, ok := chooseTool(t.r.Tools, ccSources)
				return t.lastIs(ccOpen) && t.text.has("sources") && ok && !calledIn(t.turn, s.Name)
			},
			act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccSources, slot{"id", openedInventory(t.env.Data).ID})
			}},
		{name: "summarize-inventory", doc: "an inventory opened: its name, city, year, type, total and GWP values",
			match: after(ccOpen),
			act: func(t *ccTurn) (llm.Message, error) {
				var d struct {
					Data map[string]any `json:"data"`
				}
				json.Unmarshal(t.env.Data, &d)
				inv := inventoryOf(d.Data)
				return t.say("%s (%s, %d) is a %s inventory; its emissions total %s, using %s GWP values.",
					inv.Name, inv.City, inv.Year, typeName(inv.Type), tonnes(t.prose, inv.Total), strings.ToUpper(str(d.Data["globalWarmingPotentialType"])))
			}},
		{name: "count-sources", doc: "data sources listed: how many, and the first three by name",
			match: after(ccSources),
			act: func(t *ccTurn) (llm.Message, error) {
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
		{name: "knowledge-unused", doc: "the knowledge-base search was not used: refuse to answer from memory",
			match: func(t *ccTurn) bool {
				return after(ccKnowledge)(t) && strings.HasPrefix(t.result, "Climate search was not used")
			},
			act: func(t *ccTurn) (llm.Message, error) {
				return t.say("I could not find this in the internal climate knowledge base, so I will not answer from memory.")
			}},
		{name: "quote-knowledge", doc: "a knowledge-base search answered: quote its first excerpt with its source",
			match: after(ccKnowledge),
			act: func(t *ccTurn) (llm.Message, error) {
				src, text := firstExcerpt(t.result)
				return t.say("According to the internal climate knowledge base (%s): %s", src, text)
			}},
		{name: "done", doc: "any other result: say it is done",
			match: func(*ccTurn) bool { return true },
			act:   func(t *ccTurn) (llm.Message, error) { return t.say("Done.") }},
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
func choice(q string, t lexText, invs []listed) *listed {
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
		if t.has(c) && n < len(cands) {
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
	if t.has("latest") {
		return byYear(true)
	}
	if t.has("oldest") {
		return byYear(false)
	}
	if len(cands) == 1 && len(cands) < len(invs) {
		return &invs[cands[0]]
	}
	return nil
}
