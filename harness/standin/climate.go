package standin

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// The Climate Advisor policy follows the prompt's inventory flow with these
// heuristics, looking only at the conversation:
//
// With no tool called yet in the current user turn:
//   - a CityCatalyst product question (how do I / where can I / upload /
//     invite / dashboard …) without a climate-science word is answered
//     directly, with no tool;
//   - a choice among inventories listed earlier in the conversation (a year,
//     an ordinal such as "the second" or "the latest", an inventory id, or a
//     listed city) → get_inventory;
//   - a climate-science word (GPC, scope 2, GWP, AR6, emission factor,
//     landfill, notation key …) without a city → climate_vector_search;
//   - a city named after for/in/of/from/about, or before "'s" →
//     city_inventory_search (with the year, if a four-digit year is written);
//   - inventory words without a city → get_user_inventories;
//   - anything else is answered directly.
//
// After tool results in the turn: one inventory found → get_inventory;
// several → list them and ask; none → say so; after get_inventory, when the
// user asked about data sources → get_all_datasources, else summarize; after
// get_all_datasources → say how many sources the result holds and name the
// first three; after climate_vector_search → quote the first excerpt; a tool
// error → report it without inventing data.

var (
	ccProductCue   = regexp.MustCompile(`(?i)\bhow (do|can) (i|we)\b|\bwhere (do|can) (i|we)\b|\bupload\b|\binvite\b|\bdashboard\b|\bpassword\b|\blog ?in\b|\bexport\b|\bbutton\b`)
	ccScienceCue   = regexp.MustCompile(`(?i)\bgpc\b|basic\+|\bscope ?[123]\b|\bscopes\b|warming potential|\bgwp\b|\bar[56]\b|emission factor|\bgrid\b|landfill|first order decay|notation key|methodolog|uncertaint|data quality|\bvkt\b|fuel sales|\bmethane\b|\bn2o\b`)
	ccInventoryCue = regexp.MustCompile(`(?i)inventor(y|ies)|\bemissions\b`)
	ccSourcesCue   = regexp.MustCompile(`(?i)data ?sources?|\bsources\b|\bdatasets?\b`)
	ccDetailCue    = regexp.MustCompile(`(?i)\bdetails?\b|\btotal\b|\bemissions\b|\bsummar|\btell me about\b`)
	ccYearRe       = regexp.MustCompile(`\b(19|20)\d{2}\b`)
	ccUUIDRe       = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	ccCityAfter    = regexp.MustCompile(`(?i)\b(?:for|in|of|from|about)\s+(.+?)(?:\s+(?:in|for|from)\s+(?:19|20)\d{2}|\s+(?:19|20)\d{2}|[?!,;]|\.(?:\s|$)|\s+(?:inventory|inventories|emissions|data|please|city)\b|$)`)
	ccCityBefore   = regexp.MustCompile(`(\p{Lu}[\p{L}.()'-]*(?:\s+(?:de|do|da|del|la|\p{Lu}[\p{L}.()'-]*))*)'s\b`)
	ccOrdinals     = []string{"first", "second", "third", "fourth"} // index = position
)

// notCity are words that start a phrase after "for/in/of" but name no city.
func notCity(s string) bool {
	first := strings.ToLower(strings.Fields(s + " x")[0])
	switch first {
	case "my", "our", "all", "this", "that", "these", "those", "each", "every", "a", "an", "your",
		"which", "what", "me", "us", "it", "them", "scope", "gpc", "climate", "cities", "any", "some":
		return true
	}
	return strings.Contains(strings.ToLower(s), "inventor")
}

type climatePolicy struct{}

func (climatePolicy) Name() string { return "climate/advisor" }

func (climatePolicy) Accepts(r Request) bool {
	return strings.Contains(r.System(), "You are Climate Advisor")
}

// listed is an inventory seen in a tool result.
type listed struct {
	ID, Name, City, Type string
	Year                 int
	Total                float64
}

func (climatePolicy) Answer(r Request) (llm.Message, error) {
	last := -1
	for i, m := range r.Messages {
		if m.Role == llm.RoleUser {
			last = i
		}
	}
	if last < 0 {
		return llm.Message{}, fmt.Errorf("no user message")
	}
	user := r.Messages[last].Content
	turn := r.Messages[last+1:]
	calls := 0
	for _, m := range r.Messages {
		calls += len(m.ToolCalls)
	}
	call := func(name string, args map[string]any) (llm.Message, error) {
		b, _ := json.Marshal(args)
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_" + strconv.Itoa(calls+1), Name: name, Arguments: b}}}, nil
	}
	say := func(format string, a ...any) (llm.Message, error) {
		return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf(format, a...)}, nil
	}

	if len(turn) == 0 {
		science := ccScienceCue.MatchString(user)
		city, year := cityOf(user)
		aboutInventory := ccInventoryCue.MatchString(user) || ccSourcesCue.MatchString(user) || ccDetailCue.MatchString(user)
		if city != "" && !aboutInventory {
			city = "" // "for methane" names no city when nothing asks about an inventory
		}
		switch {
		case ccProductCue.MatchString(user) && !science:
			return say("In CityCatalyst you do this from the inventory's page: open the inventory, then use the menu for the step you need. This is a product question, so I have not searched the climate knowledge base.")
		case len(listedBefore(r.Messages[:last])) > 0 && choice(user, listedBefore(r.Messages[:last])) != nil:
			return call("get_inventory", map[string]any{"inventory_id": choice(user, listedBefore(r.Messages[:last])).ID})
		case science && city == "":
			return call("climate_vector_search", map[string]any{"question": user})
		case ccSourcesCue.MatchString(user) && city == "" && openedBefore(r.Messages[:last]) != "":
			return call("get_all_datasources", map[string]any{"inventory_id": openedBefore(r.Messages[:last])})
		case city != "":
			args := map[string]any{"city_name": city}
			if year > 0 {
				args["year"] = year
			}
			return call("city_inventory_search", args)
		case ccInventoryCue.MatchString(user):
			return call("get_user_inventories", map[string]any{})
		}
		return say("I can help you find and understand your CityCatalyst inventories, their data sources, and climate questions such as GPC scopes or emission factors.")
	}

	// After tools: react to the last result of this turn.
	var lastCall llm.ToolCall
	for _, m := range turn {
		if len(m.ToolCalls) > 0 {
			lastCall = m.ToolCalls[len(m.ToolCalls)-1]
		}
	}
	result := turn[len(turn)-1].Content
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   string          `json:"error"`
	}
	if lastCall.Name != "climate_vector_search" {
		if err := json.Unmarshal([]byte(result), &env); err != nil {
			return say("The %s tool returned something I could not read, so I cannot answer from it.", lastCall.Name)
		}
		if !env.Success {
			return say("I could not get that from CityCatalyst: %s. I will not guess the data; please try again later.", env.Error)
		}
	}
	switch lastCall.Name {
	case "get_user_inventories", "city_inventory_search":
		invs := inventoriesIn(env.Data)
		var args struct {
			City string `json:"city_name"`
			Year int    `json:"year"`
		}
		json.Unmarshal(lastCall.Arguments, &args)
		switch {
		case len(invs) == 0 && args.City != "":
			return say("I found no inventories for %q%s in your account.", args.City, inYear(args.Year))
		case len(invs) == 0:
			return say("You have no inventories yet.")
		case len(invs) == 1:
			return call("get_inventory", map[string]any{"inventory_id": invs[0].ID})
		}
		var b strings.Builder
		fmt.Fprintf(&b, "I found %d inventories:\n", len(invs))
		for _, inv := range invs {
			fmt.Fprintf(&b, "- %s %d: %s, %s (ID %s)\n", inv.City, inv.Year, typeName(inv.Type), tonnes(inv.Total), inv.ID)
		}
		b.WriteString("Which one should I open?")
		return say("%s", b.String())
	case "get_inventory":
		var d struct {
			Data map[string]any `json:"data"`
		}
		json.Unmarshal(env.Data, &d)
		inv := inventoryOf(d.Data)
		if ccSourcesCue.MatchString(user) && !calledIn(turn, "get_all_datasources") {
			return call("get_all_datasources", map[string]any{"inventory_id": inv.ID})
		}
		return say("%s (%s, %d) is a %s inventory; its emissions total %s, using %s GWP values.",
			inv.Name, inv.City, inv.Year, typeName(inv.Type), tonnes(inv.Total), strings.ToUpper(str(d.Data["globalWarmingPotentialType"])))
	case "get_all_datasources":
		var d struct {
			Data []map[string]any `json:"data"`
		}
		json.Unmarshal(env.Data, &d)
		if len(d.Data) == 0 {
			return say("There are no data sources available for this inventory.")
		}
		var names []string
		for _, s := range d.Data[:min(3, len(d.Data))] {
			names = append(names, sourceName(s))
		}
		return say("There are %d data sources available for this inventory, including %s.", len(d.Data), strings.Join(names, "; "))
	case "climate_vector_search":
		if strings.HasPrefix(result, "Climate search was not used") {
			return say("I could not find this in the internal climate knowledge base, so I will not answer from memory.")
		}
		src, text := firstExcerpt(result)
		return say("According to the internal climate knowledge base (%s): %s", src, text)
	}
	return say("Done.")
}

// cityOf finds a city name and year in a request.
func cityOf(q string) (string, int) {
	year := 0
	if m := ccYearRe.FindString(q); m != "" {
		year, _ = strconv.Atoi(m)
	}
	if m := ccCityBefore.FindStringSubmatch(q); m != nil && !notCity(m[1]) {
		return strings.TrimSpace(m[1]), year
	}
	for _, m := range ccCityAfter.FindAllStringSubmatch(q, -1) {
		c := strings.TrimSpace(m[1])
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

// listedBefore returns the inventories of the latest listing tool result.
func listedBefore(msgs []llm.Message) []listed {
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
		if n := names[m.ToolCallID]; n == "get_user_inventories" || n == "city_inventory_search" {
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

// openedBefore returns the id of the last inventory opened with
// get_inventory, or "".
func openedBefore(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, tc := range msgs[i].ToolCalls {
			if tc.Name == "get_inventory" {
				var a struct {
					ID string `json:"inventory_id"`
				}
				if json.Unmarshal(tc.Arguments, &a) == nil && a.ID != "" {
					return a.ID
				}
			}
		}
	}
	return ""
}

// choice picks the inventory the user refers to, or nil.
func choice(q string, invs []listed) *listed {
	lower := strings.ToLower(q)
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
	for n, word := range ccOrdinals {
		if strings.Contains(lower, word) && n < len(cands) {
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
	if strings.Contains(lower, "latest") || strings.Contains(lower, "newest") || strings.Contains(lower, "most recent") {
		return byYear(true)
	}
	if strings.Contains(lower, "oldest") {
		return byYear(false)
	}
	if len(cands) == 1 && len(cands) < len(invs) {
		return &invs[cands[0]]
	}
	return nil
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
			text = firstSentence(strings.TrimPrefix(line, "Full Content: "))
		}
	}
	return source, text
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func inYear(y int) string {
	if y == 0 {
		return ""
	}
	return fmt.Sprintf(" in %d", y)
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

// tonnes formats tCO2e in words a reader takes in at once.
func tonnes(t float64) string {
	switch {
	case t == 0:
		return "no total emissions recorded"
	case t >= 1e6:
		return fmt.Sprintf("%.1f million tCO2e", t/1e6)
	}
	return fmt.Sprintf("%.0f tCO2e", t)
}
