package standin

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// The family assistant policies read what the framework put in context:
//
// Default assistant, with no tool called yet in the turn:
//   - a chart request with attachments shown in the message → delegate_to_service;
//   - a row-count question about an attached CSV → answered from what is
//     visible (the CSV summary's row count, or the inline rows);
//   - a jq program quoted in the request ('…') → jq_query on the attachment;
//   - "attachment att-N … length" → jq_query(att-N, "length");
//   - a sensor (pool, living room/thermostat, outdoor, garage, all sensors)
//     with a period (last N days, last 24 hours, a week, from A to B, relative
//     to the "current time" in the system prompt) → download_state_history;
//   - a summary request about an attached text → answered from the summary.
// After download_state_history: a chart request → delegate_to_service; "how
// many … unavailable/unknown", "how many readings", "raw", "what period"
// → jq_query with a fitting program; no states → say so.
// After jq_query or delegate_to_service → report the result or the error.
//
// Data visualization service: a Home Assistant history (seen as a JSON
// Schema or inline) → one jq_query to check the time range when only the
// schema is visible, then create_vega_chart with a jq program that keeps
// numeric states; an inline list of records or a CSV (inline or summarized)
// → create_vega_chart on its time and first numeric column; content it
// cannot see (the placeholder, a text summary of broken JSON) → it says it
// cannot chart it.

var (
	faChartCue     = regexp.MustCompile(`(?i)\bchart\b|\bplot\b|\bgraph\b|visuali[sz]e`)
	faAttachID     = regexp.MustCompile(`\[Attachment ID: (att-\d+)\]|\[System: Attachment (att-\d+)\b`)
	faMentionedID  = regexp.MustCompile(`\b(att-\d+)\b`)
	faQuotedJQ     = regexp.MustCompile(`jq(?: program)? '([^']+)'`)
	faLastDays     = regexp.MustCompile(`(?i)last (\d+) days`)
	faFromTo       = regexp.MustCompile(`(\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})`)
	faNow          = regexp.MustCompile(`The current time is (\S+?)\.`)
	faSavedAs      = regexp.MustCompile(`saved as attachment (att-\d+)`)
	faRowCount     = regexp.MustCompile(`(?i)\bRows: (\d+)`)
	faLineCount    = regexp.MustCompile(`(?i)\bLines: (\d+)`)
	faCSVHeaderRe  = regexp.MustCompile(`(?m)^([A-Za-z_][\w ]*(?:,[A-Za-z_][\w ]*)+)\s*$`)
	faInlineMarker = "[Content ("
)

// faSensors maps words to Home Assistant entity ids.
func faSensors(q string) []string {
	l := strings.ToLower(q)
	switch {
	case strings.Contains(l, "all sensors") || strings.Contains(l, "every sensor"):
		return []string{"sensor.pool_temperature", "sensor.living_room_temperature", "sensor.outdoor_temperature", "sensor.pool_ph"}
	case strings.Contains(l, "pool"):
		return []string{"sensor.pool_temperature"}
	case strings.Contains(l, "living room") || strings.Contains(l, "thermostat"):
		return []string{"sensor.living_room_temperature"}
	case strings.Contains(l, "garage"):
		return []string{"sensor.garage_temperature"}
	case strings.Contains(l, "outdoor") || strings.Contains(l, "outside"):
		return []string{"sensor.outdoor_temperature"}
	}
	return nil
}

// faPeriod resolves the period of a request against now.
func faPeriod(q string, now time.Time) (start, end time.Time, ok bool) {
	l := strings.ToLower(q)
	if m := faFromTo.FindStringSubmatch(q); m != nil {
		s, err1 := time.Parse(time.DateOnly, m[1])
		e, err2 := time.Parse(time.DateOnly, m[2])
		return s, e, err1 == nil && err2 == nil
	}
	if m := faLastDays.FindStringSubmatch(q); m != nil {
		n, _ := strconv.Atoi(m[1])
		return now.AddDate(0, 0, -n), now, true
	}
	switch {
	case strings.Contains(l, "week"):
		return now.AddDate(0, 0, -7), now, true
	case strings.Contains(l, "24 hours") || strings.Contains(l, "today") || strings.Contains(l, "last day"):
		return now.Add(-24 * time.Hour), now, true
	}
	return time.Time{}, time.Time{}, false
}

// faRequest splits the messages at the user's own last request: injected
// attachment messages ("[System: …") are not requests.
func faRequest(r Request) (req string, at int) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == llm.RoleUser && !strings.HasPrefix(m.Content, "[System:") {
			return m.Content, i
		}
	}
	return "", -1
}

type familyPolicy struct{}

func (familyPolicy) Name() string { return "family/default" }

func (familyPolicy) Accepts(r Request) bool {
	return strings.Contains(r.System(), "You are the family assistant")
}

func (familyPolicy) Answer(r Request) (llm.Message, error) {
	req, at := faRequest(r)
	if at < 0 {
		return llm.Message{}, fmt.Errorf("no user request")
	}
	ask := strings.SplitN(req, "\n\n", 2)[0] // the words before any injected attachment
	turn := r.Messages[at+1:]
	tc := toolCaller(r)
	say := func(format string, a ...any) (llm.Message, error) {
		return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf(format, a...)}, nil
	}
	if last := lastCall(turn); last != nil {
		result := resultOf(turn, last.ID)
		switch last.Name {
		case "download_state_history":
			if strings.HasPrefix(result, "Error:") {
				return say("I could not download the history: %s", strings.TrimPrefix(result, "Error: "))
			}
			if strings.HasPrefix(result, "No states") {
				return say("There is no recorded history for that sensor in that period: %s", result)
			}
			id := ""
			if m := faSavedAs.FindStringSubmatch(result); m != nil {
				id = m[1]
			}
			l := strings.ToLower(ask)
			switch {
			case faChartCue.MatchString(ask):
				return tc("delegate_to_service", map[string]any{"service": "data_visualization", "request": ask, "attachment_ids": []string{id}})
			case strings.Contains(l, "unavailable") || strings.Contains(l, "unknown"):
				return tc("jq_query", map[string]any{"attachment_id": id, "jq_program": `[.entities[0].states[] | select(.state == "unavailable" or .state == "unknown")] | length`})
			case strings.Contains(l, "raw"):
				return tc("jq_query", map[string]any{"attachment_id": id, "jq_program": "."})
			case strings.Contains(l, "period") || strings.Contains(l, "cover"):
				return tc("jq_query", map[string]any{"attachment_id": id, "jq_program": "[.entities[0].states[0].last_changed, .entities[0].states[-1].last_changed]"})
			default:
				return tc("jq_query", map[string]any{"attachment_id": id, "jq_program": ".entities[0].states | length"})
			}
		case "jq_query":
			switch {
			case strings.HasPrefix(result, "Error:"):
				return say("I could not query the attachment: %s", strings.TrimPrefix(result, "Error: "))
			case faSavedAs.MatchString(result):
				return say("The result is too large to show here, so I saved it as attachment %s.", faSavedAs.FindStringSubmatch(result)[1])
			}
			return say("The answer is %s.", clipText(result, 300))
		case "delegate_to_service":
			if strings.HasPrefix(result, "[data_visualization failed") || strings.HasPrefix(result, "Error:") {
				return say("I could not make the chart. %s", result)
			}
			return say("%s", strings.TrimPrefix(result, "[data_visualization] "))
		}
		return say("Done.")
	}

	ids := faAttachID.FindAllStringSubmatch(req, -1)
	l := strings.ToLower(ask)
	switch {
	case len(ids) > 0 && faChartCue.MatchString(ask):
		var list []string
		for _, m := range ids {
			list = append(list, attachID(m))
		}
		return tc("delegate_to_service", map[string]any{"service": "data_visualization", "request": ask, "attachment_ids": list})
	case len(ids) > 0 && faQuotedJQ.MatchString(ask):
		return tc("jq_query", map[string]any{"attachment_id": attachID(ids[0]), "jq_program": faQuotedJQ.FindStringSubmatch(ask)[1]})
	case len(ids) > 0 && strings.Contains(l, "rows"):
		return say("%s", rowAnswer(req))
	case len(ids) > 0 && (strings.Contains(l, "summar") || strings.Contains(l, "log")):
		if strings.Contains(req, "Binary content not accessible") {
			return say("I cannot read the attachment's content, so I cannot summarize it.")
		}
		if m := faLineCount.FindStringSubmatch(req); m != nil {
			return say("The attached file has %s lines; it is too large to show whole, and it begins with the lines shown above.", m[1])
		}
		return say("The attached file is shown above in full.")
	case faMentionedID.MatchString(ask) && strings.Contains(l, "length"):
		return tc("jq_query", map[string]any{"attachment_id": faMentionedID.FindStringSubmatch(ask)[1], "jq_program": "length"})
	}
	if sensors := faSensors(ask); sensors != nil {
		now := time.Now().UTC()
		if m := faNow.FindStringSubmatch(r.System()); m != nil {
			if t, err := time.Parse(time.RFC3339, m[1]); err == nil {
				now = t
			}
		}
		if start, end, ok := faPeriod(ask, now); ok {
			return tc("download_state_history", map[string]any{"entity_ids": sensors,
				"start": start.UTC().Format(time.RFC3339), "end": end.UTC().Format(time.RFC3339)})
		}
	}
	return say("I can chart and query your Home Assistant sensors and your attachments. Which sensor and period do you mean?")
}

// attachID returns the id of a faAttachID match, whichever form matched.
func attachID(m []string) string {
	if m[1] != "" {
		return m[1]
	}
	return m[2]
}

// rowAnswer counts CSV rows from what the framework showed.
func rowAnswer(req string) string {
	switch {
	case strings.Contains(req, "Binary content not accessible"):
		return "I cannot read the attachment's content, so I cannot count its rows."
	case faRowCount.MatchString(req):
		return fmt.Sprintf("The attached file has %s rows.", faRowCount.FindStringSubmatch(req)[1])
	case strings.Contains(req, faInlineMarker):
		body := req[strings.Index(req, faInlineMarker):]
		body = body[strings.Index(body, "\n")+1:]
		lines := strings.Split(strings.TrimSpace(body), "\n")
		return fmt.Sprintf("The attached file has %d rows.", max(0, len(lines)-1))
	}
	return "I cannot tell how many rows the attachment has."
}

// toolCaller returns a function that emits one tool call with a
// deterministic id.
func toolCaller(r Request) func(string, map[string]any) (llm.Message, error) {
	n := 0
	for _, m := range r.Messages {
		n += len(m.ToolCalls)
	}
	return func(name string, args map[string]any) (llm.Message, error) {
		b, _ := json.Marshal(args)
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_" + strconv.Itoa(n+1), Name: name, Arguments: b}}}, nil
	}
}

func lastCall(msgs []llm.Message) *llm.ToolCall {
	var out *llm.ToolCall
	for i := range msgs {
		for j := range msgs[i].ToolCalls {
			out = &msgs[i].ToolCalls[j]
		}
	}
	return out
}

func resultOf(msgs []llm.Message, id string) string {
	for _, m := range msgs {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

type vizPolicy struct{}

func (vizPolicy) Name() string { return "family/data_visualization" }

func (vizPolicy) Accepts(r Request) bool {
	return strings.Contains(r.System(), "You are the data visualization service")
}

const haProgram = `.entities[0].states | map({time: .last_changed, temperature: (.state | tonumber?)}) | map(select(.temperature != null))`

const haAllProgram = `[.entities[] | .entity_id as $e | .states[] | {time: .last_changed, value: (.state | tonumber?), entity: $e}] | map(select(.value != null))`

func (vizPolicy) Answer(r Request) (llm.Message, error) {
	_, at := faRequest(r)
	if at < 0 {
		return llm.Message{}, fmt.Errorf("no request")
	}
	turn := r.Messages[at+1:]
	tc := toolCaller(r)
	say := func(format string, a ...any) (llm.Message, error) {
		return llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf(format, a...)}, nil
	}
	// Only the first request of the run holds the attachments.
	first := ""
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			first = m.Content
			break
		}
	}
	if last := lastCall(r.Messages); last != nil && last.Name == "create_vega_chart" {
		result := resultOf(r.Messages, last.ID)
		if strings.HasPrefix(result, "Error:") {
			return say("The chart failed: %s", strings.TrimPrefix(result, "Error: "))
		}
		return say("%s", result)
	}
	ids := faAttachID.FindAllStringSubmatch(first, -1)
	if len(ids) == 0 {
		return say("No attachment was given, so there is nothing to chart.")
	}
	id := attachID(ids[0])
	spec := func(mark, x, xType, y string, color string) string {
		enc := map[string]any{"x": map[string]any{"field": x, "type": xType}, "y": map[string]any{"field": y, "type": "quantitative"}}
		if color != "" {
			enc["color"] = map[string]any{"field": color, "type": "nominal"}
		}
		b, _ := json.Marshal(map[string]any{"mark": map[string]any{"type": mark}, "encoding": enc})
		return string(b)
	}
	switch {
	case strings.Contains(first, "Binary content not accessible"):
		return say("I cannot access the attachment's content, so I cannot build a chart from it.")
	case strings.Contains(first, "[System: Large text file"):
		return say("The attachment is not data I can read as records, so I cannot chart it.")
	case strings.Contains(first, `"entities"`) && strings.Contains(first, `"states"`):
		multi := strings.Contains(first, "Data structure (JSON Schema)") && len(faSensors(first)) > 1 ||
			strings.Count(first, `"entity_id": "sensor.`) > 1 || strings.Contains(strings.ToLower(first), "all sensors")
		if strings.Contains(first, "Data structure (JSON Schema)") && lastCall(turn) == nil {
			return tc("jq_query", map[string]any{"attachment_id": id, "jq_program": "[.entities[0].states[0].last_changed, .entities[0].states[-1].last_changed]"})
		}
		if multi {
			return tc("create_vega_chart", map[string]any{"spec": spec("line", "time", "temporal", "value", "entity"),
				"data_attachments": []any{map[string]any{"id": id, "jq": haAllProgram}}, "title": "Sensor history"})
		}
		return tc("create_vega_chart", map[string]any{"spec": spec("line", "time", "temporal", "temperature", ""),
			"data_attachments": []any{map[string]any{"id": id, "jq": haProgram}}, "title": "Temperature history"})
	}
	if header := faCSVHeaderRe.FindStringSubmatch(first); header != nil {
		cols := strings.Split(header[1], ",")
		x, y := cols[0], cols[1]
		return tc("create_vega_chart", map[string]any{"spec": spec("bar", x, "temporal", y, ""),
			"data_attachments": []any{id}, "title": fmt.Sprintf("%s by %s", y, x)})
	}
	if i := strings.Index(first, faInlineMarker); i >= 0 {
		body := first[i:]
		body = body[strings.Index(body, "\n")+1:]
		var recs []map[string]any
		if json.Unmarshal([]byte(strings.TrimSpace(body)), &recs) == nil && len(recs) > 0 {
			// x: the first time-valued key; y: the numeric key the request
			// names, else the first numeric key.
			x, y := "", ""
			ask := strings.ToLower(strings.SplitN(first, "\n\n", 2)[0])
			for _, k := range slices.Sorted(maps.Keys(recs[0])) {
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
			if x != "" && y != "" {
				return tc("create_vega_chart", map[string]any{"spec": spec("line", x, "temporal", y, ""),
					"data_attachments": []any{id}, "title": y + " over time"})
			}
		}
	}
	return say("I could not find records with a time and a number in the attachment, so I cannot chart it.")
}
