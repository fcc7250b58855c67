package cba

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// tool is one tool with docstring-style documentation: a summary line, then
// Args and Returns. The model's tool schema carries the summary; the help
// tools serve the rest.
type tool struct {
	name    string
	doc     string
	params  string // JSON Schema
	reduced bool   // part of the reduced set
	run     func(ctx context.Context, args map[string]any) (out string, raw []byte, err error)
}

func (t *tool) summary() string { return strings.SplitN(t.doc, "\n", 2)[0] }

func (t *tool) def() llm.Tool {
	return llm.Tool{Name: t.name, Description: t.summary(), Parameters: json.RawMessage(t.params)}
}

func obj(props string, required ...string) string {
	req, _ := json.Marshal(required)
	if len(required) == 0 {
		req = []byte("[]")
	}
	return `{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`
}

const (
	pCity      = `"city":{"type":"string","description":"City or place name."}`
	pLocation  = `"location":{"type":"string","description":"City or place name."}`
	pIndicator = `"indicator":{"type":"string","description":"Indicator id (such as \"20\") or name."}`
	pIDs       = `"indicator_ids":{"type":"array","items":{"type":"string"},"description":"Indicator ids."}`
	pQuery     = `"query":{"type":"string","description":"What to search for."}`
)

// tools returns every tool the agent knows, in a stable order.
func (a *Agent) tools() []*tool {
	return []*tool{
		{name: "get_current_weather", reduced: true, params: obj(pCity, "city"), run: a.currentWeather,
			doc: "Get the current weather for a city.\n\nArgs:\n    city: City or place name, for example \"Nairobi\".\n\nReturns:\n    Conditions, temperature, feels-like temperature, humidity, wind and precipitation now."},
		{name: "get_weather_forecast", reduced: true, params: obj(pCity+`,"days":{"type":"integer","description":"1 to 7."}`, "city"), run: a.forecast,
			doc: "Get a daily weather forecast for a city.\n\nArgs:\n    city: City or place name.\n    days: Number of days, 1 to 7 (default 7).\n\nReturns:\n    One line per day: conditions, minimum and maximum temperature, precipitation, wind."},
		{name: "get_climate_data", reduced: true, params: obj(pCity, "city"), run: a.climateNormals,
			doc: "Get 1991-2020 climate normals for a city.\n\nArgs:\n    city: City or place name.\n\nReturns:\n    A table of monthly mean, maximum and minimum temperature and precipitation."},
		{name: "get_soil_properties", reduced: true, params: obj(pLocation+`,"properties":{"type":"string","description":"Comma list of soc, clay, sand, phh2o, bdod, nitrogen."},"depth":{"type":"string","description":"0-5cm, 5-15cm, 15-30cm or 0-30cm (default)."}`, "location"), run: a.soilProperties,
			doc: "Get soil properties from SoilGrids for a place.\n\nArgs:\n    location: City or place name.\n    properties: Comma list of soc, clay, sand, phh2o, bdod, nitrogen (default soc,clay,sand,phh2o).\n    depth: 0-5cm, 5-15cm, 15-30cm, or 0-30cm for the mean of the first three (default).\n\nReturns:\n    Each property in its conventional unit: SOC g/kg, clay and sand %, pH, bulk density kg/dm3, nitrogen g/kg."},
		{name: "get_soil_carbon", reduced: true, params: obj(pLocation, "location"), run: a.soilCarbon,
			doc: "Get soil organic carbon and its stock for a place.\n\nArgs:\n    location: City or place name.\n\nReturns:\n    SOC in g/kg for 0-30 cm and the carbon stock in t C/ha."},
		{name: "get_country_indicators", reduced: true, params: obj(`"country":{"type":"string","description":"Country name or ISO alpha-2 code."}`, "country"), run: a.countryIndicators,
			doc: "Get a country's profile from REST Countries.\n\nArgs:\n    country: Country name, for example \"Chad\", or its ISO alpha-2 code (\"TD\").\n\nReturns:\n    Capital, region, area, population and density, languages and currencies."},
		{name: "get_world_bank_data", reduced: true, params: obj(`"country":{"type":"string","description":"Country name or ISO alpha-2 code."},"indicator":{"type":"string","enum":["`+strings.Join(wbNames(), `","`)+`"]}`, "country"), run: a.worldBankData,
			doc: "Get a World Bank development series for a country.\n\nArgs:\n    country: Country name or ISO alpha-2 code.\n    indicator: One of " + strings.Join(wbNames(), ", ") + " (default gdp).\n\nReturns:\n    The series by year, 2010 to 2024, latest first."},
		{name: "search_indicators", reduced: true, params: obj(pQuery+`,"n_results":{"type":"integer"}`, "query"), run: a.searchIndicators,
			doc: "Search CBA monitoring indicators by topic.\n\nArgs:\n    query: Topic words, for example \"soil carbon\".\n    n_results: How many to return (default 5).\n\nReturns:\n    Matching indicators with id, name, class and unit."},
		{name: "search_methods", reduced: true, params: obj(pQuery, "query"), run: a.searchMethods,
			doc: "Search measurement methods by words.\n\nArgs:\n    query: Words, for example \"satellite\".\n\nReturns:\n    Matching methods with their indicator, accuracy, ease of use and cost."},
		{name: "get_indicator_details", reduced: true, params: obj(pIndicator, "indicator"), run: a.indicatorDetails,
			doc: "Get everything the knowledge base holds on one indicator.\n\nArgs:\n    indicator: Indicator id or name.\n\nReturns:\n    Component, class, unit, method types, principles and criteria covered, and its methods."},
		{name: "find_feasible_methods", reduced: true, params: obj(pIndicator+`,"max_cost":{"type":"string","enum":["any","Low","Medium","High"]},"min_ease":{"type":"string","enum":["any","Low","Medium","High"]},"min_accuracy":{"type":"string","enum":["any","Low","Medium","Medium-High","High"]}`, "indicator"), run: a.feasibleMethods,
			doc: "Find methods for an indicator within cost, ease and accuracy limits.\n\nArgs:\n    indicator: Indicator id or name.\n    max_cost: Highest acceptable cost: any, Low, Medium or High.\n    min_ease: Lowest acceptable ease of use: any, Low, Medium or High.\n    min_accuracy: Lowest acceptable accuracy: any, Low, Medium, Medium-High or High.\n\nReturns:\n    The methods that fit, or a note that none does."},
		{name: "compare_indicators", reduced: true, params: obj(pIDs, "indicator_ids"), run: a.compareIndicators,
			doc: "Compare indicators side by side.\n\nArgs:\n    indicator_ids: Two or more indicator ids.\n\nReturns:\n    A table of class, unit, number of methods, cheapest method cost and principles covered."},
		{name: "export_indicator_selection", reduced: true, params: obj(pIDs+`,"include_methods":{"type":"boolean"}`, "indicator_ids"), run: a.exportSelection,
			doc: "Export a selection of indicators as a markdown report.\n\nArgs:\n    indicator_ids: Indicator ids to include.\n    include_methods: Also list each indicator's methods (default true).\n\nReturns:\n    A markdown report of the selection."},
		{name: "find_indicators_by_principle", reduced: true, params: obj(`"principle":{"type":"string","description":"Principle number (1-7) or name."}`, "principle"), run: a.byPrinciple,
			doc: "List indicators that cover a CBA principle.\n\nArgs:\n    principle: Principle number 1-7 or its name, for example \"4\" or \"Diversity\".\n\nReturns:\n    The indicators flagged for that principle, with id and class."},
		{name: "find_indicators_by_class", reduced: true, params: obj(`"class":{"type":"string"}`, "class"), run: a.byClass,
			doc: "List indicators of one class.\n\nArgs:\n    class: Class name, for example \"Soil carbon\".\n\nReturns:\n    The indicators of that class with id and unit."},
		{name: "list_available_classes", reduced: true, params: obj(``), run: a.listClasses,
			doc: "List the indicator classes of the knowledge base.\n\nReturns:\n    Each class with its component and number of indicators."},
		{name: "list_knowledge_base_stats", reduced: true, params: obj(``), run: a.kbStats,
			doc: "Summarize what the knowledge base holds.\n\nReturns:\n    Counts of indicators, methods, classes, principles and criteria."},
		{name: "get_knowledge_version", reduced: true, params: obj(``), run: a.knowledgeVersion,
			doc: "Get the version of the knowledge base.\n\nReturns:\n    The version of its tables and how many indicators, methods and use cases they hold."},
		{name: "search_usecases", reduced: true, params: obj(pQuery+`,"n_results":{"type":"integer"}`, "query"), run: a.searchUsecases,
			doc: "Search example projects (use cases) and the indicators selected for their outcomes.\n\nArgs:\n    query: Words about the project, for example \"cotton in Chad\".\n    n_results: How many use cases to return (default 3).\n\nReturns:\n    Each matching use case with its outcomes and the indicators chosen for each."},
	}
}

// str reads a string argument; numbers are formatted.
func str(args map[string]any, key string) string {
	switch v := args[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func strs(args map[string]any, key string) []string {
	var out []string
	switch v := args[key].(type) {
	case []any:
		for _, x := range v {
			switch y := x.(type) {
			case string:
				out = append(out, strings.TrimSpace(y))
			case float64:
				out = append(out, strconv.FormatFloat(y, 'f', -1, 64))
			}
		}
	case string:
		for _, s := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}
