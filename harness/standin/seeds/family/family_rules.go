package family

import (
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// familyRules is the family assistant's table, tried in order: the first
// step of a turn, then one rule per kind of tool result.
func familyRules() []policy.Rule[*faTurn] {
	first := func(f func(*faTurn) bool) func(*faTurn) bool {
		return func(t *faTurn) bool { return t.last == nil && f(t) }
	}
	attached := func(concept string) func(*faTurn) bool {
		return first(func(t *faTurn) bool { return len(t.ids) > 0 && t.text.Has(concept) })
	}
	after := func(p policy.Purpose, f func(*faTurn) bool) func(*faTurn) bool {
		return func(t *faTurn) bool {
			return t.last != nil && policy.Serves(t.r.Tools, t.last.Name, p) && (f == nil || f(t))
		}
	}
	// told holds when the jq tool is routed to, and f.
	told := func(f func(*faTurn) bool) func(*faTurn) bool {
		return func(t *faTurn) bool { return t.jqTold && (f == nil || f(t)) }
	}
	failed := func(t *faTurn) bool { return strings.HasPrefix(t.result, "Error:") }
	jq := func(program string) func(*faTurn) (llm.Message, error) {
		return func(t *faTurn) (llm.Message, error) {
			return t.callFor(faJQ, policy.Slot{Word: "attachment id", Value: t.savedID()}, policy.Slot{Word: "jq program", Value: program})
		}
	}
	return []policy.Rule[*faTurn]{
		{Name: "chart-attachments", Doc: "attachments and a chart word: delegate them to the visualization service",
			Match: attached("plot"), Act: func(t *faTurn) (llm.Message, error) { return t.delegate(t.ids) }},
		{Name: "quoted-jq", Doc: "attachments and a jq program quoted after the tool's name: the jq tool on the first attachment",
			Match: first(func(t *faTurn) bool { return len(t.ids) > 0 && faQuotedJQ.MatchString(t.ask) }),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.callFor(faJQ, policy.Slot{Word: "attachment id", Value: t.ids[0]}, policy.Slot{Word: "jq program", Value: faQuotedJQ.FindStringSubmatch(t.ask)[1]})
			}},
		{Name: "count-rows", Doc: "attachments and a rows word: count them from what is visible (the CSV summary or the inline rows)",
			Match: attached("rows"), Act: func(t *faTurn) (llm.Message, error) { return t.say("%s", rowAnswer(t.prose, t.req)) }},
		{Name: "summarize-attachment", Doc: "attachments and a summary word: answer from the summary or the content shown",
			Match: attached("summary"),
			Act: func(t *faTurn) (llm.Message, error) {
				if strings.Contains(t.req, "Binary content not accessible") {
					return t.say("I cannot read the attachment's content, so I cannot summarize it.")
				}
				if m := faLineCount.FindStringSubmatch(t.req); m != nil {
					return t.say("The attached file has %s lines; it is too large to show whole, and it begins with the lines shown above.", m[1])
				}
				return t.say("The attached file is shown above in full.")
			}},
		{Name: "attachment-length", Doc: "an attachment id written in the request, a count word, and the jq tool routed to: the jq tool's length on it",
			Match: first(told(func(t *faTurn) bool { return faMentionedID.MatchString(t.ask) && t.text.Has("count") })),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.callFor(faJQ, policy.Slot{Word: "attachment id", Value: faMentionedID.FindStringSubmatch(t.ask)[1]}, policy.Slot{Word: "jq program", Value: "length"})
			}},
		{Name: "all-sensors", Doc: "all the sensors: the request lists no entity ids, so ask which sensors",
			Match: first(func(t *faTurn) bool { return t.text.Has("all") && t.text.Has("sensors") }),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("I do not know the entity ids of all your sensors. Which sensors do you mean (for example sensor.pool_temperature)?")
			}},
		{Name: "sensor-history", Doc: "a home area (entity ids formed after the schema's example) and a period: the tool described as downloading history",
			Match: first(func(t *faTurn) bool {
				_, _, ok := faPeriod(t.ask, t.text, t.now())
				return ok && len(faEntities(t.text, t.r.Tools)) > 0
			}),
			Act: func(t *faTurn) (llm.Message, error) {
				start, end, _ := faPeriod(t.ask, t.text, t.now())
				return t.callFor(faHistory, policy.Slot{Word: "entity", Value: faEntities(t.text, t.r.Tools)},
					policy.Slot{Word: "start", Value: start.UTC().Format(time.RFC3339)}, policy.Slot{Word: "end", Value: end.UTC().Format(time.RFC3339)})
			}},
		{Name: "capabilities", Doc: "anything else in a first step: say what it can do and ask for a sensor and a period",
			Match: first(func(*faTurn) bool { return true }),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("I can chart and query your Home Assistant sensors and your attachments. Which sensor and period do you mean?")
			}},
		{Name: "history-failed", Doc: "the download failed: say so with its error",
			Match: after(faHistory, failed),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("I could not download the history: %s", strings.TrimPrefix(t.result, "Error: "))
			}},
		{Name: "history-empty", Doc: "the download found no states: say so",
			Match: after(faHistory, func(t *faTurn) bool { return strings.HasPrefix(t.result, "No states") }),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("There is no recorded history for that sensor in that period: %s", t.result)
			}},
		{Name: "history-chart", Doc: "history saved and a chart word: delegate the saved attachment to the visualization service",
			Match: after(faHistory, func(t *faTurn) bool { return t.text.Has("plot") }),
			Act:   func(t *faTurn) (llm.Message, error) { return t.delegate([]string{t.savedID()}) }},
		{Name: "history-unavailable", Doc: "history saved, the jq tool routed to, and an unavailable word: count the states marked unavailable, or unknown",
			Match: after(faHistory, told(func(t *faTurn) bool { return t.text.Has("unavailable") })),
			Act:   jq(`[.entities[0].states[] | select(.state == "unavailable" or .state == "unknown")] | length`)},
		{Name: "history-raw", Doc: "history saved, the jq tool routed to, and a raw word: the whole history",
			Match: after(faHistory, told(func(t *faTurn) bool { return t.text.Has("raw") })), Act: jq(".")},
		{Name: "history-period", Doc: "history saved, the jq tool routed to, and a period word: the first and last state's times",
			Match: after(faHistory, told(func(t *faTurn) bool { return t.text.Has("period") })),
			Act:   jq("[.entities[0].states[0].last_changed, .entities[0].states[-1].last_changed]")},
		{Name: "history-count", Doc: "history saved, the jq tool routed to, otherwise: count the states",
			Match: after(faHistory, told(nil)), Act: jq(".entities[0].states | length")},
		{Name: "history-untold", Doc: "history saved and no instruction or hint routes questions to the jq tool (the default): pass on what the tool said",
			Match: after(faHistory, nil),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("The history tool answered: %s", policy.ClipText(t.result, 300))
			}},
		{Name: "jq-failed", Doc: "the jq tool failed: say so with its error",
			Match: after(faJQ, failed),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("I could not query the attachment: %s", strings.TrimPrefix(t.result, "Error: "))
			}},
		{Name: "jq-saved", Doc: "the jq tool's result was saved as an attachment: say which",
			Match: after(faJQ, func(t *faTurn) bool { return faSavedAs.MatchString(t.result) }),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("The result is too large to show here, so I saved it as attachment %s.", t.savedID())
			}},
		{Name: "jq-answer", Doc: "the jq tool answered: quote its result",
			Match: after(faJQ, nil),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("The answer is %s.", policy.ClipText(t.result, 300))
			}},
		{Name: "chart-failed", Doc: "the visualization service failed: say so with its answer",
			Match: after(faDelegate, func(t *faTurn) bool {
				return strings.HasPrefix(t.result, "[data_visualization failed") || failed(t)
			}),
			Act: func(t *faTurn) (llm.Message, error) { return t.say("I could not make the chart. %s", t.result) }},
		{Name: "chart-made", Doc: "the visualization service answered: pass its answer on",
			Match: after(faDelegate, nil),
			Act: func(t *faTurn) (llm.Message, error) {
				return t.say("%s", strings.TrimPrefix(t.result, "[data_visualization] "))
			}},
		{Name: "done", Doc: "any other result: say it is done",
			Match: func(*faTurn) bool { return true },
			Act:   func(t *faTurn) (llm.Message, error) { return t.say("Done.") }},
	}
}
