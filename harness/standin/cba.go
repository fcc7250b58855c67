package standin

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// The CBA assistant policy maps a question to the tool it needs (weather
// now, forecast, climate normals, soil carbon, soil properties, indicators
// by principle, indicator classes, knowledge-base contents, methods within
// limits, comparison, export, indicator details, method search, indicator
// search). It trusts only the tools its system prompt names: a needed tool
// the prompt does not name is found with list_tools (then describe_tool)
// when the request offers them, and otherwise replaced by the closest tool
// the prompt names, as a weak model would. Questions about its own tools get
// the user-facing categories and count, never the internal tools, which it
// learns from the prompt's "Internal tools" section.

var (
	cbaPlaceRe   = regexp.MustCompile(`\b(?:in|for|at|near|around|of)\s+((?:\p{Lu}[\p{L}'’-]*)(?:\s+\p{Lu}[\p{L}'’-]*)*)`)
	cbaIDsRe     = regexp.MustCompile(`\b\d{1,3}\b`)
	cbaDaysRe    = regexp.MustCompile(`(?i)next (\d) days`)
	cbaToolAsk   = regexp.MustCompile(`(?i)what tools|which tools|list (your|the) tools|tools do you have|how many tools|what can you do`)
	cbaHowAsk    = regexp.MustCompile(`(?i)how did you|what did you (use|consult)|internal`)
	cbaPrinciple = regexp.MustCompile(`(?i)principle\s*(\d)|\b(natural environment|social wellbeing|economic prosperity|diversity|connectivity|adaptive capacity|harmony)\b principle`)
)

type cbaPolicy struct{}

func (cbaPolicy) Name() string { return "cba/assistant" }

func (cbaPolicy) Accepts(r Request) bool {
	return strings.Contains(r.System(), "data assistant for sustainable agriculture")
}

// cbaIntent is the tool a question needs and its arguments.
func cbaIntent(q string) (string, map[string]any) {
	l := strings.ToLower(q)
	place := ""
	if m := cbaPlaceRe.FindStringSubmatch(q); m != nil {
		place = m[1]
	}
	ids := cbaIDsRe.FindAllString(q, -1)
	switch {
	case cbaPrinciple.MatchString(q):
		m := cbaPrinciple.FindStringSubmatch(q)
		p := m[1]
		if p == "" {
			p = m[2]
		}
		return "find_indicators_by_principle", map[string]any{"principle": p}
	case strings.Contains(l, "classes") || strings.Contains(l, "kinds of indicators") || strings.Contains(l, "categories of indicators"):
		return "list_available_classes", map[string]any{}
	case strings.Contains(l, "knowledge base") && (strings.Contains(l, "what") || strings.Contains(l, "how many")):
		return "list_knowledge_base_stats", map[string]any{}
	case strings.Contains(l, "compare") && len(ids) >= 2:
		return "compare_indicators", map[string]any{"indicator_ids": ids}
	case (strings.Contains(l, "export") || strings.Contains(l, "report")) && len(ids) >= 1:
		return "export_indicator_selection", map[string]any{"indicator_ids": ids, "include_methods": true}
	case strings.Contains(l, "method") && len(ids) >= 1 && (strings.Contains(l, "cost") || strings.Contains(l, "cheap") || strings.Contains(l, "accura") || strings.Contains(l, "feasible") || strings.Contains(l, "easy")):
		args := map[string]any{"indicator": ids[0]}
		if strings.Contains(l, "low cost") || strings.Contains(l, "cheap") {
			args["max_cost"] = "Low"
		}
		if strings.Contains(l, "at least medium accuracy") || strings.Contains(l, "medium accuracy") {
			args["min_accuracy"] = "Medium"
		}
		if strings.Contains(l, "high accuracy") {
			args["min_accuracy"] = "High"
		}
		if strings.Contains(l, "easy") {
			args["min_ease"] = "High"
		}
		return "find_feasible_methods", args
	case strings.Contains(l, "indicator") && len(ids) == 1:
		return "get_indicator_details", map[string]any{"indicator": ids[0]}
	case strings.Contains(l, "method") && !strings.Contains(l, "indicator"):
		return "search_methods", map[string]any{"query": q}
	case strings.Contains(l, "forecast") || cbaDaysRe.MatchString(q) || strings.Contains(l, "this week"):
		days := 7
		if m := cbaDaysRe.FindStringSubmatch(q); m != nil {
			days, _ = strconv.Atoi(m[1])
		}
		return "get_weather_forecast", map[string]any{"city": place, "days": days}
	case strings.Contains(l, "climate") || strings.Contains(l, "normal") || strings.Contains(l, "rainy") || strings.Contains(l, "typical"):
		return "get_climate_data", map[string]any{"city": place}
	case strings.Contains(l, "soil carbon") || strings.Contains(l, "carbon stock") || strings.Contains(l, "organic carbon"):
		return "get_soil_carbon", map[string]any{"location": place}
	case strings.Contains(l, "soil"):
		props := []string{}
		for _, w := range []string{"ph", "clay", "sand", "nitrogen"} {
			if strings.Contains(l, w) {
				props = append(props, map[string]string{"ph": "phh2o"}[w]+strings.TrimPrefix(w, "ph"))
			}
		}
		args := map[string]any{"location": place}
		if len(props) > 0 {
			args["properties"] = strings.Join(props, ",")
		}
		return "get_soil_properties", args
	case strings.Contains(l, "weather") || strings.Contains(l, "temperature"):
		return "get_current_weather", map[string]any{"city": place}
	case strings.Contains(l, "indicator"):
		return "search_indicators", map[string]any{"query": q}
	}
	return "", nil
}

// fallback is the named tool a weak model reaches for instead.
func fallback(tool string, q string) (string, map[string]any) {
	switch tool {
	case "get_weather_forecast":
		if m := cbaPlaceRe.FindStringSubmatch(q); m != nil {
			return "get_current_weather", map[string]any{"city": m[1]}
		}
	}
	return "search_indicators", map[string]any{"query": q}
}

func (cbaPolicy) Answer(r Request) (llm.Message, error) {
	system := r.System()
	user, at := "", -1
	for i, m := range r.Messages {
		if m.Role == llm.RoleUser {
			user, at = m.Content, i
		}
	}
	if at < 0 {
		return llm.Message{}, fmt.Errorf("no user message")
	}
	turn := r.Messages[at+1:]
	tc := toolCaller(r)
	say := func(format string, a ...any) (llm.Message, error) {
		return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf(format, a...)}, nil
	}
	internal := map[string]bool{}
	if i := strings.Index(system, "Internal tools"); i >= 0 {
		for _, line := range strings.Split(system[i:], "\n")[1:] {
			if !strings.HasPrefix(line, "- ") {
				break
			}
			internal[strings.TrimSpace(strings.SplitN(line[2:], ":", 2)[0])] = true
		}
	}
	offered := map[string]bool{}
	for _, t := range r.Tools {
		offered[t.Name] = true
	}
	named := func(t string) bool {
		return offered[t] && regexp.MustCompile(`\b`+regexp.QuoteMeta(t)+`\b`).MatchString(system)
	}
	help := offered["list_tools"] && offered["describe_tool"]

	if cbaToolAsk.MatchString(user) {
		n := 0
		for t := range offered {
			if !internal[t] && t != "list_tools" && t != "describe_tool" {
				n++
			}
		}
		return say("I have %d tools for weather and climate normals, soil properties and soil carbon, and the CBA indicator knowledge base (indicator search, details, feasible methods, comparisons and reports).", n)
	}
	if cbaHowAsk.MatchString(user) && len(turn) == 0 {
		if help {
			return say("I consulted internal tool docs to choose the right data source, then called it.")
		}
		return say("I chose the data source that fits your question and called it.")
	}

	want, args := cbaIntent(user)
	last := lastCall(turn)
	if last == nil {
		switch {
		case want == "":
			return say("I can help with weather, climate normals, soil and the CBA monitoring indicators. What place or indicator do you have in mind?")
		case named(want):
			return tc(want, args)
		case help:
			return tc("list_tools", map[string]any{})
		case offered[want]:
			// Offered but not named: a weak model does not trust it.
			t, a := fallback(want, user)
			return tc(t, a)
		}
		t, a := fallback(want, user)
		return tc(t, a)
	}
	result := resultOf(turn, last.ID)
	switch last.Name {
	case "list_tools":
		if strings.Contains(result, want+":") {
			return tc("describe_tool", map[string]any{"name": want})
		}
		t, a := fallback(want, user)
		return tc(t, a)
	case "describe_tool":
		return tc(want, args)
	}
	if strings.HasPrefix(result, "Error:") {
		return say("I could not get that: %s", strings.TrimPrefix(result, "Error: "))
	}
	lines := strings.Split(result, "\n")
	return say("Here is what I found:\n%s", strings.Join(lines[:min(14, len(lines))], "\n"))
}
