// Package climate is the stand-in's policy for the Climate Advisor
// (agents/climate): Advisor, a table of named rules over the shared
// lexicon.
package climate

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// The Climate Advisor policy is a table of named rules (climateRules),
// looking only at the conversation, through the shared lexicon's concepts
// (climate_science, inventory, sources, detail, product, how_to, ordinals,
// latest, oldest), four-digit years, inventory ids and place names: a
// phrase after a preposition of place in English, Spanish or French, or
// before "'s". With no tool called yet in the turn it answers a product
// question directly, opens an inventory the user picks from an earlier
// listing, searches the climate knowledge base for a science question,
// searches a named city's inventories, lists the inventories the user has, or
// says what it can do. After a tool result it follows the inventory flow of
// the prompt (climate_results.go).

var (
	ccYearRe     = regexp.MustCompile(`\b(19|20)\d{2}\b`)
	ccUUIDRe     = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	ccCityAfter  = regexp.MustCompile(`(?i)(?:^|\s)(?:for|in|of|from|about|para|en|de|del|pour|à|du)\s+(.+?)(?:\s+(?:in|for|from|en|de|pour)\s+(?:19|20)\d{2}|\s+(?:19|20)\d{2}|[?!,;¿¡]|\.(?:\s|$)|\s+(?:inventory|inventories|inventario|inventaire|emissions|data|please|city)\b|$)`)
	ccCityBefore = regexp.MustCompile(`(\p{Lu}[\p{L}.()'-]*(?:\s+(?:de|do|da|del|la|\p{Lu}[\p{L}.()'-]*))*)'s\b`)
)

// notCity reports whether a phrase after a preposition names no city: its
// first word is a stop word or a lexicon word, or it speaks of inventories.
func notCity(s string) bool {
	first := strings.ToLower(strings.Fields(s + " x")[0])
	if lexicon.IsStop(first) {
		return true
	}
	t := lexicon.Read(first)
	for _, c := range []string{"climate_science", "inventory", "sources", "detail", "place", "climate"} {
		if t.Has(c) {
			return true
		}
	}
	return lexicon.Read(s).Has("inventory")
}

// Advisor is the Climate Advisor's policy (see above).
type Advisor struct{}

// Name is "climate/advisor".
func (Advisor) Name() string { return "climate/advisor" }

// Accepts reports whether r follows its protocol.
func (Advisor) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "You are Climate Advisor")
}

// listed is an inventory seen in a tool result.
type listed struct {
	ID, Name, City, Type string
	Year                 int
	Total                float64
}

// ccTurn is what the Climate Advisor rules read from a request.
type ccTurn struct {
	r       policy.Request
	user    string
	text    lexicon.Text
	before  []llm.Message // the conversation before the last user message
	turn    []llm.Message // the messages after it
	city    string        // a city the question names about an inventory
	year    int
	science bool
	// After a tool result: the turn's last call and the result's envelope.
	last   llm.ToolCall
	result string
	env    ccEnvelope
	parsed bool // the result was read as an envelope
	// ins is what the system prompt instructs: the order of the tools.
	ins instruct.Set
	// prose is how it writes: the prompt's language and length.
	prose lexicon.Prose
}

// ccEnvelope is the JSON every CityCatalyst tool answers with.
type ccEnvelope struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   string          `json:"error"`
}

// Decide answers by climateRules and names the rule.
func (Advisor) Decide(r policy.Request) (llm.Message, string, error) {
	last := -1
	for i, m := range r.Messages {
		if m.Role == llm.RoleUser {
			last = i
		}
	}
	if last < 0 {
		return llm.Message{}, "", fmt.Errorf("no user message")
	}
	t := &ccTurn{r: r, user: r.Messages[last].Content, before: r.Messages[:last], turn: r.Messages[last+1:], ins: policy.InstructionsOf(r)}
	t.text = lexicon.Read(t.user)
	t.prose = lexicon.ProseOf(t.ins, t.user)
	t.science = t.text.Has("climate_science")
	t.city, t.year = cityOf(t.user)
	if t.city != "" && !t.text.Has("inventory") && !t.text.Has("sources") && !t.text.Has("detail") {
		t.city = "" // a phrase after "for" names no city when nothing asks about an inventory
	}
	for _, m := range t.turn {
		if len(m.ToolCalls) > 0 {
			t.last = m.ToolCalls[len(m.ToolCalls)-1]
		}
	}
	if len(t.turn) > 0 {
		t.result = t.turn[len(t.turn)-1].Content
		t.parsed = json.Unmarshal([]byte(t.result), &t.env) == nil
	}
	return policy.Decide(climateRules(), t)
}

// RuleNames lists the names of its rules, in table order.
func (Advisor) RuleNames() []string { return policy.Names(climateRules()) }

// The kinds of tool the Climate Advisor rules call, in the words a tool's
// description would say them; policy.ChooseTool takes the offered tool for each.
var (
	ccBrowse    = policy.Purpose{Name: "browse", Words: "list browse"}
	ccCity      = policy.Purpose{Name: "city", Words: "find city search"}
	ccOpen      = policy.Purpose{Name: "open", Words: "detail one total"}
	ccSources   = policy.Purpose{Name: "sources", Words: "data source available"}
	ccKnowledge = policy.Purpose{Name: "knowledge", Words: "knowledge search question"}
)

// offers reports whether the request offers a tool for p.
func (t *ccTurn) offers(p policy.Purpose) bool { return policy.Offers(t.r, p) }

// mayCall reports whether the tool chosen for p is offered and may be
// called for the question: by the prompt's condition on it, else when
// fits (the lexicon says its purpose).
func (t *ccTurn) mayCall(p policy.Purpose, fits bool) bool {
	tool, ok := policy.ChooseTool(t.r.Tools, p)
	return ok && policy.MayCall(t.ins, tool.Name, t.text, fits)
}

// call calls the tool chosen for p, its arguments filled from slots, and a
// parameter that asks for a question or query from the user's words.
func (t *ccTurn) call(p policy.Purpose, slots ...policy.Slot) (llm.Message, error) {
	return policy.CallFor(t.r, p, append(slots, policy.Slot{Word: "question query", Value: t.user})...)
}

// openFirst reports whether the tool that opens one inventory comes before
// the one that lists its data sources: by the prompt's stated order, else
// by the order the request lists them (instruct's default).
func (t *ccTurn) openFirst() bool {
	open, ok1 := policy.ChooseTool(t.r.Tools, ccOpen)
	src, ok2 := policy.ChooseTool(t.r.Tools, ccSources)
	return !ok1 || !ok2 || policy.Precedes(t.ins, t.r.Tools, open.Name, src.Name)
}

// lastIs reports whether the turn's last call was of the tool chosen for p.
func (t *ccTurn) lastIs(p policy.Purpose) bool {
	return !t.first() && policy.Serves(t.r.Tools, t.last.Name, p)
}

// say answers in the prompt's language and length (prose).
func (t *ccTurn) say(format string, a ...any) (llm.Message, error) {
	return llm.Message{Role: llm.RoleAssistant, Content: t.prose.Finish(t.prose.Say(format, a...))}, nil
}

// first reports whether no tool was called yet in the turn.
func (t *ccTurn) first() bool { return len(t.turn) == 0 }

// picked is the inventory of an earlier listing the user picks, or nil.
func (t *ccTurn) picked() *listed {
	if invs := listedBefore(t.before, t.r.Tools); len(invs) > 0 {
		return choice(t.user, t.text, invs)
	}
	return nil
}

// climateRules is the Climate Advisor policy's table, tried in order: the
// first step of a turn, then the steps after a tool result.
func climateRules() []policy.Rule[*ccTurn] {
	return append([]policy.Rule[*ccTurn]{
		{Name: "product-question", Doc: "a product or how-to word without a climate-science word: answer directly, with no tool",
			Match: func(t *ccTurn) bool {
				return t.first() && (t.text.Has("product") || t.text.Has("how_to")) && !t.science
			},
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.say("In CityCatalyst you do this from the inventory's page: open the inventory, then use the menu for the step you need. This is a product question, so I have not searched the climate knowledge base.")
			}},
		{Name: "pick-listed", Doc: "a year, ordinal, latest/oldest word, id or city that picks one inventory of an earlier listing: the tool described as giving one's details",
			Match: func(t *ccTurn) bool { return t.first() && t.offers(ccOpen) && t.picked() != nil },
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccOpen, policy.Slot{Word: "id", Value: t.picked().ID})
			}},
		{Name: "science-search", Doc: "no city, and a climate-science word, or, when the prompt sets a condition on calling the tool described as searching a knowledge base, a question that meets it: that tool, with the question",
			Match: func(t *ccTurn) bool { return t.first() && t.city == "" && t.mayCall(ccKnowledge, t.science) },
			Act:   func(t *ccTurn) (llm.Message, error) { return t.call(ccKnowledge) }},
		{Name: "sources-of-opened", Doc: "a data-source word, no city, and an inventory opened earlier: the tool described as giving data sources, for it",
			Match: func(t *ccTurn) bool {
				return t.first() && t.text.Has("sources") && t.city == "" && t.offers(ccSources) && openedBefore(t.before, t.r.Tools) != ""
			},
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.call(ccSources, policy.Slot{Word: "id", Value: openedBefore(t.before, t.r.Tools)})
			}},
		{Name: "city-search", Doc: "a city named about an inventory: the tool described as finding by city, with the year when one is written",
			Match: func(t *ccTurn) bool { return t.first() && t.city != "" && t.offers(ccCity) },
			Act: func(t *ccTurn) (llm.Message, error) {
				var year any
				if t.year > 0 {
					year = t.year
				}
				return t.call(ccCity, policy.Slot{Word: "city", Value: t.city}, policy.Slot{Word: "year", Value: year})
			}},
		{Name: "my-inventories", Doc: "an inventory word without a city: the tool described as listing",
			Match: func(t *ccTurn) bool { return t.first() && t.text.Has("inventory") && t.offers(ccBrowse) },
			Act:   func(t *ccTurn) (llm.Message, error) { return t.call(ccBrowse) }},
		{Name: "capabilities", Doc: "anything else in a first step: say what the assistant can help with",
			Match: func(t *ccTurn) bool { return t.first() },
			Act: func(t *ccTurn) (llm.Message, error) {
				return t.say("I can help you find and understand your CityCatalyst inventories, their data sources, and climate questions such as GPC scopes or emission factors.")
			}},
	}, climateResultRules()...)
}

// cityOf finds a city name and year in a request: before "'s", or the
// phrase after a preposition of place that is not a stop or lexicon word.
func cityOf(q string) (string, int) {
	year := 0
	if m := ccYearRe.FindString(q); m != "" {
		year, _ = strconv.Atoi(m)
	}
	if m := ccCityBefore.FindStringSubmatch(q); m != nil && !notCity(m[1]) {
		return strings.TrimSpace(m[1]), year
	}
	// Every preposition is tried, also one inside a phrase an earlier
	// preposition took ("de emisiones para Quito").
	for at := 0; at < len(q); {
		loc := ccCityAfter.FindStringSubmatchIndex(q[at:])
		if loc == nil {
			break
		}
		c := strings.TrimSpace(q[at+loc[2] : at+loc[3]])
		at += loc[2]
		if strings.EqualFold(c, "the") {
			continue
		}
		if len(c) > 4 && strings.EqualFold(c[:4], "the ") {
			c = strings.TrimSpace(c[4:])
		}
		if c != "" && !notCity(c) && !ccYearRe.MatchString(c) {
			return c, year
		}
	}
	return "", year
}

// listedBefore returns the inventories of the latest result of a tool
// that lists or searches them.
func listedBefore(msgs []llm.Message, tools []llm.Tool) []listed {
	names := map[string]string{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Name
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != llm.RoleTool {
			continue
		}
		if n := names[m.ToolCallID]; policy.Serves(tools, n, ccBrowse) || policy.Serves(tools, n, ccCity) {
			var env struct {
				Data json.RawMessage `json:"data"`
			}
			if json.Unmarshal([]byte(m.Content), &env) == nil {
				return inventoriesIn(env.Data)
			}
		}
	}
	return nil
}

// openedBefore returns the id the last call of the tool that opens one
// inventory was given (its first string argument), or "".
func openedBefore(msgs []llm.Message, tools []llm.Tool) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, tc := range msgs[i].ToolCalls {
			if !policy.Serves(tools, tc.Name, ccOpen) {
				continue
			}
			var a map[string]any
			json.Unmarshal(tc.Arguments, &a)
			for _, k := range slices.Sorted(maps.Keys(a)) {
				if id, ok := a[k].(string); ok && id != "" {
					return id
				}
			}
		}
	}
	return ""
}

// inventoriesIn reads {"data": [inventory…]} in any of the shapes the tool returns.
func inventoriesIn(raw json.RawMessage) []listed {
	var d struct {
		Data []map[string]any `json:"data"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return nil
	}
	var out []listed
	for _, m := range d.Data {
		out = append(out, inventoryOf(m))
	}
	return out
}

func inventoryOf(m map[string]any) listed {
	inv := listed{ID: str(m["inventoryId"]), Name: str(m["inventoryName"]), Type: str(m["inventoryType"])}
	if y, ok := m["year"].(float64); ok {
		inv.Year = int(y)
	}
	if t, ok := m["totalEmissions"].(float64); ok {
		inv.Total = t
	}
	if c, ok := m["city"].(map[string]any); ok {
		inv.City = str(c["name"])
	}
	return inv
}

func sourceName(s map[string]any) string {
	if src, ok := s["source"].(map[string]any); ok {
		s = src
	}
	if n := str(s["datasourceName"]); n != "" {
		return n
	}
	if ds, ok := s["datasetName"].(map[string]any); ok {
		return str(ds["en"])
	}
	return str(s["datasetName"])
}

// calledIn reports whether a message of msgs calls the tool named name.
func calledIn(msgs []llm.Message, name string) bool {
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.Name == name {
				return true
			}
		}
	}
	return false
}

func firstExcerpt(s string) (source, text string) {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "1. Source: ") {
			source = strings.SplitN(strings.TrimPrefix(line, "1. Source: "), " (", 2)[0]
		}
		if strings.HasPrefix(line, "Full Content: ") && text == "" {
			text = policy.FirstSentence(strings.TrimPrefix(line, "Full Content: "))
		}
	}
	return source, text
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func typeName(t string) string {
	switch t {
	case "gpc_basic":
		return "GPC BASIC"
	case "gpc_basic_plus":
		return "GPC BASIC+"
	}
	return t
}

// tonnes formats tCO2e in words a reader takes in at once, in p's
// language.
func tonnes(p lexicon.Prose, t float64) string {
	switch {
	case t == 0:
		return p.Say("no total emissions recorded")
	case t >= 1e6:
		return p.Say("%.1f million tCO2e", t/1e6)
	}
	return fmt.Sprintf("%.0f tCO2e", t)
}
