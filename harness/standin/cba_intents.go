package standin

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// cbaIntentRule chooses the tool a question needs: when match holds, tool
// with the arguments args builds.
type cbaIntentRule struct {
	name  string
	doc   string
	match func(*cbaTurn) bool
	tool  string
	args  func(*cbaTurn) map[string]any
}

var (
	// cbaPlaceRe is a capitalised place after a preposition of place in
	// English, Spanish or French.
	cbaPlaceRe = regexp.MustCompile(`(?:^|\s)(?:in|for|at|near|around|of|en|para|cerca de|de|à|pour|près de)\s+((?:\p{Lu}[\p{L}'’-]*)(?:\s+\p{Lu}[\p{L}'’-]*)*)`)
	cbaIDsRe   = regexp.MustCompile(`\b\d{1,3}\b`)
	cbaDaysRe  = regexp.MustCompile(`(\d{1,2})\s*(\p{L}+)`)
	cbaCapRe   = regexp.MustCompile(`\p{Lu}[\p{L}-]+`)
	cbaListRe  = regexp.MustCompile(`\b[a-z][a-z0-9]+\b`)
)

// cbaIntents is the CBA policy's intent table, tried in order.
func cbaIntents() []cbaIntentRule {
	query := func(t *cbaTurn) map[string]any { return map[string]any{"query": t.user} }
	none := func(*cbaTurn) map[string]any { return map[string]any{} }
	city := func(t *cbaTurn) map[string]any { return map[string]any{"city": cbaPlace(t.user)} }
	location := func(t *cbaTurn) map[string]any { return map[string]any{"location": cbaPlace(t.user)} }
	ids := func(t *cbaTurn) []string { return cbaIDsRe.FindAllString(t.user, -1) }
	return []cbaIntentRule{
		{name: "principle", doc: "a principle word: indicators by principle, its number or the capitalised name beside it",
			match: func(t *cbaTurn) bool { return t.text.has("principle") }, tool: "find_indicators_by_principle",
			args: func(t *cbaTurn) map[string]any { return map[string]any{"principle": cbaPrinciple(t)} }},
		{name: "classes", doc: "a category word with an indicator word: the indicator classes",
			match: func(t *cbaTurn) bool { return t.text.has("category") && t.text.has("indicator") }, tool: "list_available_classes", args: none},
		{name: "knowledge-base", doc: "a knowledge-base word: the knowledge-base statistics",
			match: func(t *cbaTurn) bool { return t.text.has("knowledge_base") }, tool: "list_knowledge_base_stats", args: none},
		{name: "compare", doc: "a compare word and two or more numbers: compare those indicators",
			match: func(t *cbaTurn) bool { return t.text.has("compare") && len(ids(t)) >= 2 }, tool: "compare_indicators",
			args: func(t *cbaTurn) map[string]any { return map[string]any{"indicator_ids": ids(t)} }},
		{name: "export", doc: "an export or report word and a number: export those indicators with their methods",
			match: func(t *cbaTurn) bool { return t.text.has("export") && len(ids(t)) >= 1 }, tool: "export_indicator_selection",
			args: func(t *cbaTurn) map[string]any {
				return map[string]any{"indicator_ids": ids(t), "include_methods": true}
			}},
		{name: "feasible-methods", doc: "a method word, a number and a cost, accuracy or ease word: methods within those limits, as the schema's enums name them",
			match: func(t *cbaTurn) bool {
				return t.text.has("method") && len(ids(t)) >= 1 && (t.text.has("cheap") || t.text.has("accuracy") || t.text.has("ease"))
			},
			tool: "find_feasible_methods", args: cbaLimits},
		{name: "indicator-details", doc: "an indicator word and one number: that indicator's details",
			match: func(t *cbaTurn) bool { return t.text.has("indicator") && len(ids(t)) == 1 }, tool: "get_indicator_details",
			args: func(t *cbaTurn) map[string]any { return map[string]any{"indicator": ids(t)[0]} }},
		{name: "method-search", doc: "a method word without an indicator word: search the methods with the question",
			match: func(t *cbaTurn) bool { return t.text.has("method") && !t.text.has("indicator") }, tool: "search_methods", args: query},
		{name: "forecast", doc: "a forecast word: the forecast for the place, for the days written before a day word (else 7)",
			match: func(t *cbaTurn) bool { return t.text.has("forecast") }, tool: "get_weather_forecast",
			args: func(t *cbaTurn) map[string]any {
				return map[string]any{"city": cbaPlace(t.user), "days": cbaDays(t.user)}
			}},
		{name: "climate", doc: "a climate word: the place's climate normals",
			match: func(t *cbaTurn) bool { return t.text.has("climate") }, tool: "get_climate_data", args: city},
		{name: "soil-carbon", doc: "a soil word and a carbon word: the place's soil carbon",
			match: func(t *cbaTurn) bool { return t.text.has("soil") && t.text.has("carbon") }, tool: "get_soil_carbon", args: location},
		{name: "soil-properties", doc: "a soil word: the place's soil properties, those of the schema's list the question names",
			match: func(t *cbaTurn) bool { return t.text.has("soil") }, tool: "get_soil_properties", args: cbaSoilProperties},
		{name: "weather-now", doc: "a weather or temperature word: the place's current weather",
			match: func(t *cbaTurn) bool { return t.text.has("weather") || t.text.has("temperature") || t.text.has("rain") },
			tool:  "get_current_weather", args: city},
		{name: "indicator-search", doc: "an indicator word: search the indicators with the question",
			match: func(t *cbaTurn) bool { return t.text.has("indicator") }, tool: "search_indicators", args: query},
	}
}

// cbaIntent returns the tool t's question needs, its arguments and the
// intent rule that chose it; "" when none matches.
func cbaIntent(t *cbaTurn) (string, map[string]any, string) {
	for _, in := range cbaIntents() {
		if in.match(t) {
			return in.tool, in.args(t), in.name
		}
	}
	return "", nil, ""
}

// cbaPlace is the first capitalised place after a preposition, or "".
func cbaPlace(q string) string {
	if m := cbaPlaceRe.FindStringSubmatch(q); m != nil {
		return m[1]
	}
	return ""
}

// cbaDays is the number written before a word of the lexicon's "days"
// concept, or 7.
func cbaDays(q string) int {
	for _, m := range cbaDaysRe.FindAllStringSubmatch(q, -1) {
		if readText(m[2]).has("days") || strings.HasPrefix(m[2], "天") || strings.HasPrefix(m[2], "日") {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n
			}
		}
	}
	return 7
}

// cbaPrinciple is the number in the question, else the capitalised word
// beside the principle word, else the question.
func cbaPrinciple(t *cbaTurn) string {
	if m := cbaIDsRe.FindString(t.user); m != "" {
		return m
	}
	for _, i := range t.text.at("principle") {
		for _, j := range []int{i - 1, i + 1} {
			if i >= 0 && j >= 0 && j < len(t.text.words) {
				for _, c := range cbaCapRe.FindAllString(t.user, -1) {
					if strings.EqualFold(c, t.text.words[j]) {
						return c
					}
				}
			}
		}
	}
	return t.user
}

// cbaLimits fills find_feasible_methods' limits from the words the
// question uses, as values of the schema's enums: a cheap word is the
// lowest cost; an accuracy or ease word takes the level word within two
// words of it (an ease word alone is the highest ease).
func cbaLimits(t *cbaTurn) map[string]any {
	ids := cbaIDsRe.FindAllString(t.user, -1)
	args := map[string]any{"indicator": ids[0]}
	enum := func(prop string) []string { return schemaEnum(t.offered["find_feasible_methods"].Parameters, prop) }
	if t.text.has("cheap") {
		args["max_cost"] = enumLevel(enum("max_cost"), "low")
	}
	if t.text.has("accuracy") {
		if l := nearLevel(t.text, "accuracy"); l != "" {
			args["min_accuracy"] = enumLevel(enum("min_accuracy"), l)
		}
	}
	if t.text.has("ease") {
		l := nearLevel(t.text, "ease")
		if l == "" {
			l = "high"
		}
		args["min_ease"] = enumLevel(enum("min_ease"), l)
	}
	return args
}

// nearLevel is the level ("high", "medium", "low") written within two
// words of concept c, or "".
func nearLevel(t lexText, c string) string {
	for _, l := range []string{"high", "medium", "low"} {
		if t.near(c, "level_"+l, 2) {
			return l
		}
	}
	return ""
}

// enumLevel is the value of enum that names level, or level capitalised.
func enumLevel(enum []string, level string) string {
	for _, v := range enum {
		if strings.EqualFold(v, level) {
			return v
		}
	}
	return strings.ToUpper(level[:1]) + level[1:]
}

// schemaEnum returns the enum of property prop of a JSON schema.
func schemaEnum(schema json.RawMessage, prop string) []string {
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	return s.Properties[prop].Enum
}

// cbaSoilProperties names the soil properties of the schema's list (the
// words of the "properties" description) that the question names through a
// lexicon concept the property's name starts with ("ph" for "phh2o").
func cbaSoilProperties(t *cbaTurn) map[string]any {
	args := map[string]any{"location": cbaPlace(t.user)}
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	json.Unmarshal(t.offered["get_soil_properties"].Parameters, &s)
	type named struct {
		prop string
		at   int
	}
	var found []named
	for _, p := range cbaListRe.FindAllString(s.Properties["properties"].Description, -1) {
		for _, c := range []string{"clay", "sand", "ph", "nitrogen"} {
			if at := t.text.at(c); strings.HasPrefix(p, c) && len(at) > 0 {
				found = append(found, named{p, slices.Min(at)})
			}
		}
	}
	// In the order the question names them.
	slices.SortStableFunc(found, func(a, b named) int { return a.at - b.at })
	var props []string
	for _, f := range found {
		props = append(props, f.prop)
	}
	if len(props) > 0 {
		args["properties"] = strings.Join(props, ",")
	}
	return args
}
