package standin

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// The data visualization service's policy: a Home Assistant history (seen
// as a JSON Schema or inline) → one call of the jq tool to check the time
// range when only the schema is visible, then the chart tool with a jq program that
// keeps numeric states (one line per entity when several are visible or the
// request asks for all); an inline list of records or a CSV (inline or
// summarized) → the chart tool on its time and first numeric column;
// content it cannot see (the placeholder, a text summary) → it says it
// cannot chart it.
type vizPolicy struct{}

func (vizPolicy) Name() string { return "family/data_visualization" }

func (vizPolicy) Accepts(r Request) bool {
	return strings.Contains(r.System(), "You are the data visualization service")
}

const haProgram = `.entities[0].states | map({time: .last_changed, temperature: (.state | tonumber?)}) | map(select(.temperature != null))`

const haAllProgram = `[.entities[] | .entity_id as $e | .states[] | {time: .last_changed, value: (.state | tonumber?), entity: $e}] | map(select(.value != null))`

// vizTurn is what the visualization rules read from a request.
type vizTurn struct {
	r     Request
	first string // the run's first request, which holds the attachments
	turn  []llm.Message
	last  *llm.ToolCall // the run's last tool call
	id    string        // the first attachment, or ""
	// jqTold: the prompt or a hint routes exploring the data to the jq
	// tool (without it, the default, the chart is made from what is shown).
	jqTold bool
	prose  prose // how it writes: the prompt's language and length
}

func (p vizPolicy) Answer(r Request) (llm.Message, error) {
	m, _, err := p.Decide(r)
	return m, err
}

// Decide answers by vizRules and names the rule.
func (vizPolicy) Decide(r Request) (llm.Message, string, error) {
	_, at := faRequest(r)
	if at < 0 {
		return llm.Message{}, "", fmt.Errorf("no request")
	}
	t := &vizTurn{r: r, turn: r.Messages[at+1:], last: lastCall(r.Messages)}
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			t.first = m.Content
			break
		}
	}
	if ids := faAttachID.FindAllStringSubmatch(t.first, -1); len(ids) > 0 {
		t.id = attachID(ids[0])
	}
	ins := instructionsOf(r)
	t.jqTold = jqTold(r, ins)
	t.prose = proseOf(ins, strings.SplitN(t.first, "\n\n", 2)[0])
	return decide(vizRules(), t)
}

// say answers in the prompt's language and length (prose).
func (t *vizTurn) say(format string, a ...any) (llm.Message, error) {
	return llm.Message{Role: llm.RoleAssistant, Content: t.prose.finish(t.prose.say(format, a...))}, nil
}

func (t *vizTurn) chart(spec string, data any, title string) (llm.Message, error) {
	return callFor(t.r, faChart, slot{"spec", spec}, slot{"attachments", []any{data}}, slot{"title", title})
}

// vegaSpec is a Vega-Lite spec of mark over x and a quantitative y,
// coloured by a nominal field when color is set.
func vegaSpec(mark, x, xType, y, color string) string {
	enc := map[string]any{"x": map[string]any{"field": x, "type": xType}, "y": map[string]any{"field": y, "type": "quantitative"}}
	if color != "" {
		enc["color"] = map[string]any{"field": color, "type": "nominal"}
	}
	b, _ := json.Marshal(map[string]any{"mark": map[string]any{"type": mark}, "encoding": enc})
	return string(b)
}

// haHistory reports a Home Assistant history in the request.
func (t *vizTurn) haHistory() bool {
	return strings.Contains(t.first, `"entities"`) && strings.Contains(t.first, `"states"`)
}

// schemaOnly reports that the history is seen as a JSON Schema only.
func (t *vizTurn) schemaOnly() bool { return strings.Contains(t.first, "Data structure (JSON Schema)") }

// vizRules is the visualization service's table, tried in order.
func vizRules() []rule[*vizTurn] {
	return []rule[*vizTurn]{
		{name: "chart-result", doc: "the chart tool answered: pass its answer or error on",
			match: func(t *vizTurn) bool { return t.last != nil && serves(t.r.Tools, t.last.Name, faChart) },
			act: func(t *vizTurn) (llm.Message, error) {
				result := resultOf(t.r.Messages, t.last.ID)
				if strings.HasPrefix(result, "Error:") {
					return t.say("The chart failed: %s", strings.TrimPrefix(result, "Error: "))
				}
				return t.say("%s", result)
			}},
		{name: "no-attachment", doc: "no attachment: nothing to chart",
			match: func(t *vizTurn) bool { return t.id == "" },
			act: func(t *vizTurn) (llm.Message, error) {
				return t.say("No attachment was given, so there is nothing to chart.")
			}},
		{name: "unreadable", doc: "the attachment's content is not accessible: say it cannot chart it",
			match: func(t *vizTurn) bool { return strings.Contains(t.first, "Binary content not accessible") },
			act: func(t *vizTurn) (llm.Message, error) {
				return t.say("I cannot access the attachment's content, so I cannot build a chart from it.")
			}},
		{name: "text-file", doc: "a large text file's summary: not records, so no chart",
			match: func(t *vizTurn) bool { return strings.Contains(t.first, "[System: Large text file") },
			act: func(t *vizTurn) (llm.Message, error) {
				return t.say("The attachment is not data I can read as records, so I cannot chart it.")
			}},
		{name: "history-range", doc: "a history seen as a schema, no call yet, and the prompt or a hint routes exploring data to the jq tool: the jq tool on its first and last times",
			match: func(t *vizTurn) bool { return t.jqTold && t.haHistory() && t.schemaOnly() && lastCall(t.turn) == nil },
			act: func(t *vizTurn) (llm.Message, error) {
				return callFor(t.r, faJQ, slot{"attachment id", t.id}, slot{"jq program", "[.entities[0].states[0].last_changed, .entities[0].states[-1].last_changed]"})
			}},
		{name: "history-many", doc: "a history of several entities (seen, or asked for with an all word): one line per entity",
			match: func(t *vizTurn) bool {
				ask := readText(strings.SplitN(t.first, "\n\n", 2)[0])
				return t.haHistory() && (strings.Count(t.first, `"entity_id": "sensor.`) > 1 || ask.has("all") || len(faEntities(ask, nil)) > 1)
			},
			act: func(t *vizTurn) (llm.Message, error) {
				return t.chart(vegaSpec("line", "time", "temporal", "value", "entity"), map[string]any{"id": t.id, "jq": haAllProgram}, "Sensor history")
			}},
		{name: "history-one", doc: "a history of one entity: its numeric states over time",
			match: func(t *vizTurn) bool { return t.haHistory() },
			act: func(t *vizTurn) (llm.Message, error) {
				return t.chart(vegaSpec("line", "time", "temporal", "temperature", ""), map[string]any{"id": t.id, "jq": haProgram}, "Temperature history")
			}},
		{name: "csv", doc: "a CSV header: a bar chart of its second column over its first",
			match: func(t *vizTurn) bool { return faCSVHeaderRe.MatchString(t.first) },
			act: func(t *vizTurn) (llm.Message, error) {
				cols := strings.Split(faCSVHeaderRe.FindStringSubmatch(t.first)[1], ",")
				return t.chart(vegaSpec("bar", cols[0], "temporal", cols[1], ""), t.id, fmt.Sprintf("%s by %s", cols[1], cols[0]))
			}},
		{name: "inline-records", doc: "inline JSON records with a time and a number: a line chart of the number the request names, else the first",
			match: func(t *vizTurn) bool { x, y := inlineAxes(t.first); return x != "" && y != "" },
			act: func(t *vizTurn) (llm.Message, error) {
				x, y := inlineAxes(t.first)
				return t.chart(vegaSpec("line", x, "temporal", y, ""), t.id, y+" over time")
			}},
		{name: "cannot-chart", doc: "anything else: no records with a time and a number",
			match: func(*vizTurn) bool { return true },
			act: func(t *vizTurn) (llm.Message, error) {
				return t.say("I could not find records with a time and a number in the attachment, so I cannot chart it.")
			}},
	}
}

// inlineAxes reads inline JSON records: x the first time-valued key, y the
// numeric key the request names, else the first numeric key.
func inlineAxes(first string) (x, y string) {
	i := strings.Index(first, faInlineMarker)
	if i < 0 {
		return "", ""
	}
	body := first[i:]
	body = body[strings.Index(body, "\n")+1:]
	var recs []map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(body)), &recs) != nil || len(recs) == 0 {
		return "", ""
	}
	ask := strings.ToLower(strings.SplitN(first, "\n\n", 2)[0])
	for _, k := range sortedMapKeys(recs[0]) {
		switch v := recs[0][k].(type) {
		case string:
			if _, err := time.Parse(time.RFC3339, v); err == nil && x == "" {
				x = k
			}
		case float64:
			if y == "" || strings.Contains(ask, strings.ToLower(k)) {
				y = k
			}
		}
	}
	return x, y
}

func sortedMapKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
