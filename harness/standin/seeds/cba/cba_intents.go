package cba

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// cbaIntentRule chooses the kind of tool a question needs: when match
// holds, the offered tool whose description says need (chooseTool), with
// the values slots gives, filled into its schema (argsFor).
type cbaIntentRule struct {
	name  string
	doc   string
	match func(*cbaTurn) bool
	need  policy.Purpose
	slots func(*cbaTurn, llm.Tool) []policy.Slot
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
	query := func(t *cbaTurn, _ llm.Tool) []policy.Slot {
		return []policy.Slot{{Word: "query question", Value: t.user}}
	}
	none := func(*cbaTurn, llm.Tool) []policy.Slot { return nil }
	place := func(t *cbaTurn, _ llm.Tool) []policy.Slot {
		return []policy.Slot{{Word: "city", Value: cbaPlace(t.user)}}
	}
	ids := func(t *cbaTurn) []string { return cbaIDsRe.FindAllString(t.user, -1) }
	need := func(name, words string) policy.Purpose { return policy.Purpose{Name: name, Words: words} }
	return []cbaIntentRule{
		{name: "principle", doc: "a principle word: the tool that lists indicators by principle, with its number or the capitalised name beside it",
			match: func(t *cbaTurn) bool { return t.text.Has("principle") }, need: need("principle", "indicators principle"),
			slots: func(t *cbaTurn, _ llm.Tool) []policy.Slot {
				return []policy.Slot{{Word: "principle", Value: cbaPrinciple(t)}}
			}},
		{name: "classes", doc: "a category word with an indicator word: the tool that lists classes (of indicators)",
			match: func(t *cbaTurn) bool { return t.text.Has("category") && t.text.Has("indicator") },
			need:  need("classes", "classes knowledge base"), slots: none},
		{name: "knowledge-base", doc: "a knowledge-base word: the tool giving a summary of its contents",
			match: func(t *cbaTurn) bool { return t.text.Has("knowledge_base") }, need: need("knowledge-base", "summarize knowledge base"), slots: none},
		{name: "compare", doc: "a compare word and two or more numbers: the tool that compares indicators, with those",
			match: func(t *cbaTurn) bool { return t.text.Has("compare") && len(ids(t)) >= 2 }, need: need("compare", "compare indicators"),
			slots: func(t *cbaTurn, _ llm.Tool) []policy.Slot { return []policy.Slot{{Word: "indicator", Value: ids(t)}} }},
		{name: "export", doc: "an export or report word and a number: the tool that exports indicators as a report, with their methods",
			match: func(t *cbaTurn) bool { return t.text.Has("export") && len(ids(t)) >= 1 }, need: need("export", "export report indicators"),
			slots: func(t *cbaTurn, _ llm.Tool) []policy.Slot {
				return []policy.Slot{{Word: "indicator", Value: ids(t)}, {Word: "include methods", Value: true}}
			}},
		{name: "feasible-methods", doc: "a method word, a number and a cost, accuracy or ease word: the tool that finds methods within limits, as its schema's enums name them",
			match: func(t *cbaTurn) bool {
				return t.text.Has("method") && len(ids(t)) >= 1 && (t.text.Has("cheap") || t.text.Has("accuracy") || t.text.Has("ease"))
			},
			need: need("feasible-methods", "methods cost ease accuracy limits"), slots: cbaLimits},
		{name: "indicator-details", doc: "an indicator word and one number: the tool that details one indicator",
			match: func(t *cbaTurn) bool { return t.text.Has("indicator") && len(ids(t)) == 1 }, need: need("indicator-details", "details one indicator"),
			slots: func(t *cbaTurn, _ llm.Tool) []policy.Slot {
				return []policy.Slot{{Word: "indicator", Value: ids(t)[0]}}
			}},
		{name: "method-search", doc: "a method word without an indicator word: the tool that searches methods, with the question",
			match: func(t *cbaTurn) bool { return t.text.Has("method") && !t.text.Has("indicator") },
			need:  need("method-search", "search methods"), slots: query},
		{name: "forecast", doc: "a forecast word: the forecast tool for the place, for the days written before a day word (else 7)",
			match: func(t *cbaTurn) bool { return t.text.Has("forecast") }, need: need("forecast", "weather forecast days"),
			slots: func(t *cbaTurn, _ llm.Tool) []policy.Slot {
				return []policy.Slot{{Word: "city", Value: cbaPlace(t.user)}, {Word: "days", Value: cbaDays(t.user)}}
			}},
		{name: "climate", doc: "a climate word: the tool that gives the place's climate normals",
			match: func(t *cbaTurn) bool { return t.text.Has("climate") }, need: need("climate", "climate normals"), slots: place},
		{name: "soil-carbon", doc: "a soil word and a carbon word: the tool that gives the place's soil carbon",
			match: func(t *cbaTurn) bool { return t.text.Has("soil") && t.text.Has("carbon") }, need: need("soil-carbon", "soil carbon"), slots: place},
		{name: "soil-properties", doc: "a soil word: the tool that gives the place's soil properties, those of its schema's list the question names",
			match: func(t *cbaTurn) bool { return t.text.Has("soil") }, need: need("soil-properties", "soil properties"), slots: cbaSoilProperties},
		{name: "weather-now", doc: "a weather or temperature word: the tool that gives the place's current weather",
			match: func(t *cbaTurn) bool { return t.text.Has("weather") || t.text.Has("temperature") || t.text.Has("rain") },
			need:  cbaWeatherNow, slots: place},
		{name: "indicator-search", doc: "an indicator word: the tool that searches indicators, with the question",
			match: func(t *cbaTurn) bool { return t.text.Has("indicator") }, need: cbaIndicatorSearch, slots: query},
	}
}

// The kinds of tool the CBA policy reaches for besides its intents: the
// fallbacks of a weak model, and the help tools that list and describe the
// others.
var (
	cbaWeatherNow      = policy.Purpose{Name: "weather-now", Words: "current weather"}
	cbaIndicatorSearch = policy.Purpose{Name: "indicator-search", Words: "search indicators topic"}
	cbaListHelp        = policy.Purpose{Name: "list-tools", Words: "list all tools summaries", Every: true}
	cbaDescribeHelp    = policy.Purpose{Name: "describe-tool", Words: "detail documentation tool", Every: true}
)

// cbaIntent returns the tool t's question needs among the request's tools
// other than the help tools, its arguments and the intent rule that chose
// it; "" when no rule matches or no tool fits.
func cbaIntent(t *cbaTurn) (string, map[string]any, string) {
	var tools []llm.Tool
	for _, tool := range t.r.Tools {
		if !t.isHelp(tool.Name) {
			tools = append(tools, tool)
		}
	}
	for _, in := range cbaIntents() {
		if in.match(t) {
			tool, ok := policy.ChooseTool(tools, in.need)
			if !ok {
				return "", nil, in.name
			}
			return tool.Name, policy.ArgsFor(tool, in.slots(t, tool)), in.name
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
		if lexicon.Read(m[2]).Has("days") || strings.HasPrefix(m[2], "天") || strings.HasPrefix(m[2], "日") {
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
	for _, i := range t.text.At("principle") {
		for _, j := range []int{i - 1, i + 1} {
			if i >= 0 && j >= 0 && j < len(t.text.Words) {
				for _, c := range cbaCapRe.FindAllString(t.user, -1) {
					if strings.EqualFold(c, t.text.Words[j]) {
						return c
					}
				}
			}
		}
	}
	return t.user
}

// cbaLimits gives the methods tool's limits from the words the question
// uses, as values of the enums of its cost, accuracy and ease parameters: a cheap word is the
// lowest cost; an accuracy or ease word takes the level word within two
// words of it (an ease word alone is the highest ease).
func cbaLimits(t *cbaTurn, tool llm.Tool) []policy.Slot {
	ids := cbaIDsRe.FindAllString(t.user, -1)
	slots := []policy.Slot{{Word: "indicator", Value: ids[0]}}
	enum := func(w string) []string {
		return policy.SchemaEnum(tool.Parameters, policy.ParamFor([]llm.Tool{tool}, tool.Name, w))
	}
	if t.text.Has("cheap") {
		slots = append(slots, policy.Slot{Word: "cost", Value: enumLevel(enum("cost"), "low")})
	}
	if t.text.Has("accuracy") {
		if l := nearLevel(t.text, "accuracy"); l != "" {
			slots = append(slots, policy.Slot{Word: "accuracy", Value: enumLevel(enum("accuracy"), l)})
		}
	}
	if t.text.Has("ease") {
		l := nearLevel(t.text, "ease")
		if l == "" {
			l = "high"
		}
		slots = append(slots, policy.Slot{Word: "ease", Value: enumLevel(enum("ease"), l)})
	}
	return slots
}

// nearLevel is the level ("high", "medium", "low") written within two
// words of concept c, or "".
func nearLevel(t lexicon.Text, c string) string {
	for _, l := range []string{"high", "medium", "low"} {
		if t.Near(c, "level_"+l, 2) {
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

// cbaSoilProperties names the soil properties of the schema's list (the
// words of the "properties" description) that the question names through a
// lexicon concept the property's name starts with ("ph" for "phh2o").
func cbaSoilProperties(t *cbaTurn, tool llm.Tool) []policy.Slot {
	slots := []policy.Slot{{Word: "city", Value: cbaPlace(t.user)}}
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	json.Unmarshal(tool.Parameters, &s)
	type named struct {
		prop string
		at   int
	}
	var found []named
	for _, p := range cbaListRe.FindAllString(s.Properties[policy.ParamFor([]llm.Tool{tool}, tool.Name, "properties")].Description, -1) {
		for _, c := range []string{"clay", "sand", "ph", "nitrogen"} {
			if at := t.text.At(c); strings.HasPrefix(p, c) && len(at) > 0 {
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
		slots = append(slots, policy.Slot{Word: "properties", Value: strings.Join(props, ",")})
	}
	return slots
}
