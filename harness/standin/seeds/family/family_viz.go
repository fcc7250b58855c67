package family

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Visualization is the data visualization service's policy: a Home Assistant history (seen
// as a JSON Schema or inline) → one call of the jq tool to check the time
// range when only the schema is visible, then the chart tool with a jq program that
// keeps numeric states (one line per entity when several are visible or the
// request asks for all); an inline list of records or a CSV (inline or
// summarized) → the chart tool on its time and first numeric column;
// content it cannot see (the placeholder, a text summary) → it says it
// cannot chart it.
type Visualization struct{}

// Name is "family/data_visualization".
func (Visualization) Name() string { return "family/data_visualization" }

// Accepts reports whether r follows its protocol.
func (Visualization) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "You are the data visualization service")
}

const haProgram = `.entities[0].states | map({time: .last_changed, temperature: (.state | tonumber?)}) | map(select(.temperature != null))`

const haAllProgram = `[.entities[] | .entity_id as $e | .states[] | {time: .last_changed, value: (.state | tonumber?), entity: $e}] | map(select(.value != null))`

// vizTurn is what the visualization rules read from a request.
type vizTurn struct {
	r     policy.Request
	first string // the run's first request, which holds the attachments
	turn  []llm.Message
	last  *llm.ToolCall // the run's last tool call
	id    string        // the first attachment, or ""
	// jqTold: the prompt or a hint routes exploring the data to the jq
	// tool (without it, the default, the chart is made from what is shown).
	jqTold bool
	prose  lexicon.Prose // how it writes: the prompt's language and length
}

// Decide answers by vizRules and names the rule.
func (Visualization) Decide(r policy.Request) (llm.Message, string, error) {
	_, at := faRequest(r)
	if at < 0 {
		return llm.Message{}, "", fmt.Errorf("no request")
	}
	t := &vizTurn{r: r, turn: r.Messages[at+1:], last: policy.LastCall(r.Messages)}
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			t.first = m.Content
			break
		}
	}
	if ids := faAttachID.FindAllStringSubmatch(t.first, -1); len(ids) > 0 {
		t.id = attachID(ids[0])
	}
	ins := policy.InstructionsOf(r)
	t.jqTold = jqTold(r, ins)
	t.prose = lexicon.ProseOf(ins, strings.SplitN(t.first, "\n\n", 2)[0])
	return policy.Decide(vizRules(), t)
}

// RuleNames lists the names of its rules, in table order.
func (Visualization) RuleNames() []string { return policy.Names(vizRules()) }

// say answers in the prompt's language and length (prose).
func (t *vizTurn) say(format string, a ...any) (llm.Message, error) {
	return llm.Message{Role: llm.RoleAssistant, Content: t.prose.Finish(t.prose.Say(format, a...))}, nil
}

func (t *vizTurn) chart(spec string, data any, title string) (llm.Message, error) {
	return policy.CallFor(t.r, faChart, policy.Slot{Word: "spec", Value: spec}, policy.Slot{Word: "attachments", Value: []any{data}}, policy.Slot{Word: "title", Value: title})
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
func vizRules() []policy.Rule[*vizTurn] {
	return []policy.Rule[*vizTurn]{
		{Name: "chart-result", Doc: "the chart tool answered: pass its answer or error on",
			Match: func(t *vizTurn) bool { return t.last != nil && policy.Serves(t.r.Tools, t.last.Name, faChart) },
			Act: func(t *vizTurn) (llm.Message, error) {
				result := policy.ResultOf(t.r.Messages, t.last.ID)
				if strings.HasPrefix(result, "Error:") {
					return t.say("The chart failed: %s", strings.TrimPrefix(result, "Error: "))
				}
				return t.say("%s", result)
			}},
		{Name: "no-attachment", Doc: "no attachment: nothing to chart",
			Match: func(t *vizTurn) bool { return t.id == "" },
			Act: func(t *vizTurn) (llm.Message, error) {
				return t.say("No attachment was given, so there is nothing to chart.")
			}},
		{Name: "unreadable", Doc: "the attachment's content is not accessible: say it cannot chart it",
			Match: func(t *vizTurn) bool { return strings.Contains(t.first, "Binary content not accessible") },
			Act: func(t *vizTurn) (llm.Message, error) {
				return t.say("I cannot access the attachment's content, so I cannot build a chart from it.")
			}},
		{Name: "text-file", Doc: "a large text file's summary: not records, so no chart",
			Match: func(t *vizTurn) bool { return strings.Contains(t.first, "[System: Large text file") },
			Act: func(t *vizTurn) (llm.Message, error) {
				return t.say("The attachment is not data I can read as records, so I cannot chart it.")
			}},
		{Name: "history-range", Doc: "a history seen as a schema, no call yet, and the prompt or a hint routes exploring data to the jq tool: the jq tool on its first and last times",
			Match: func(t *vizTurn) bool {
				return t.jqTold && t.haHistory() && t.schemaOnly() && policy.LastCall(t.turn) == nil
			},
			Act: func(t *vizTurn) (llm.Message, error) {
				return policy.CallFor(t.r, faJQ, policy.Slot{Word: "attachment id", Value: t.id}, policy.Slot{Word: "jq program", Value: "[.entities[0].states[0].last_changed, .entities[0].states[-1].last_changed]"})
			}},
		{Name: "history-many", Doc: "a history of several entities (seen, or asked for with an all word): one line per entity",
			Match: func(t *vizTurn) bool {
				ask := lexicon.Read(strings.SplitN(t.first, "\n\n", 2)[0])
				return t.haHistory() && (strings.Count(t.first, `"entity_id": "sensor.`) > 1 || ask.Has("all") || len(faEntities(ask, nil)) > 1)
			},
			Act: func(t *vizTurn) (llm.Message, error) {
				return t.chart(vegaSpec("line", "time", "temporal", "value", "entity"), map[string]any{"id": t.id, "jq": haAllProgram}, "Sensor history")
			}},
		{Name: "history-one", Doc: "a history of one entity: its numeric states over time",
			Match: func(t *vizTurn) bool { return t.haHistory() },
			Act: func(t *vizTurn) (llm.Message, error) {
				return t.chart(vegaSpec("line", "time", "temporal", "temperature", ""), map[string]any{"id": t.id, "jq": haProgram}, "Temperature history")
			}},
		{Name: "csv", Doc: "a CSV header: a bar chart of its second column over its first",
			Match: func(t *vizTurn) bool { return faCSVHeaderRe.MatchString(t.first) },
			Act: func(t *vizTurn) (llm.Message, error) {
				cols := strings.Split(faCSVHeaderRe.FindStringSubmatch(t.first)[1], ",")
				return t.chart(vegaSpec("bar", cols[0], "temporal", cols[1], ""), t.id, fmt.Sprintf("%s by %s", cols[1], cols[0]))
			}},
		{Name: "inline-records", Doc: "inline JSON records with a time and a number: a line chart of the number the request names, else the first",
			Match: func(t *vizTurn) bool { x, y := inlineAxes(t.first); return x != "" && y != "" },
			Act: func(t *vizTurn) (llm.Message, error) {
				x, y := inlineAxes(t.first)
				return t.chart(vegaSpec("line", x, "temporal", y, ""), t.id, y+" over time")
			}},
		{Name: "cannot-chart", Doc: "anything else: no records with a time and a number",
			Match: func(*vizTurn) bool { return true },
			Act: func(t *vizTurn) (llm.Message, error) {
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
