package standin

import (
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// familyRules is the family assistant's table, tried in order: the first
// step of a turn, then one rule per kind of tool result.
func familyRules() []rule[*faTurn] {
	first := func(f func(*faTurn) bool) func(*faTurn) bool {
		return func(t *faTurn) bool { return t.last == nil && f(t) }
	}
	attached := func(concept string) func(*faTurn) bool {
		return first(func(t *faTurn) bool { return len(t.ids) > 0 && t.text.has(concept) })
	}
	after := func(p purpose, f func(*faTurn) bool) func(*faTurn) bool {
		return func(t *faTurn) bool { return t.last != nil && serves(t.r.Tools, t.last.Name, p) && (f == nil || f(t)) }
	}
	// told holds when the jq tool is routed to, and f.
	told := func(f func(*faTurn) bool) func(*faTurn) bool {
		return func(t *faTurn) bool { return t.jqTold && (f == nil || f(t)) }
	}
	failed := func(t *faTurn) bool { return strings.HasPrefix(t.result, "Error:") }
	jq := func(program string) func(*faTurn) (llm.Message, error) {
		return func(t *faTurn) (llm.Message, error) {
			return t.callFor(faJQ, slot{"attachment id", t.savedID()}, slot{"jq program", program})
		}
	}
	return []rule[*faTurn]{
		{name: "chart-attachments", doc: "attachments and a chart word: delegate them to the visualization service",
			match: attached("plot"), act: func(t *faTurn) (llm.Message, error) { return t.delegate(t.ids) }},
		{name: "quoted-jq", doc: "attachments and a jq program quoted after the tool's name: the jq tool on the first attachment",
			match: first(func(t *faTurn) bool { return len(t.ids) > 0 && faQuotedJQ.MatchString(t.ask) }),
			act: func(t *faTurn) (llm.Message, error) {
				return t.callFor(faJQ, slot{"attachment id", t.ids[0]}, slot{"jq program", faQuotedJQ.FindStringSubmatch(t.ask)[1]})
			}},
		{name: "count-rows", doc: "attachments and a rows word: count them from what is visible (the CSV summary or the inline rows)",
			match: attached("rows"), act: func(t *faTurn) (llm.Message, error) { return t.say("%s", rowAnswer(t.prose, t.req)) }},
		{name: "summarize-attachment", doc: "attachments and a summary word: answer from the summary or the content shown",
			match: attached("summary"),
			act: func(t *faTurn) (llm.Message, error) {
				if strings.Contains(t.req, "Binary content not accessible") {
					return t.say("I cannot read the attachment's content, so I cannot summarize it.")
				}
				if m := faLineCount.FindStringSubmatch(t.req); m != nil {
					return t.say("The attached file has %s lines; it is too large to show whole, and it begins with the lines shown above.", m[1])
				}
				return t.say("The attached file is shown above in full.")
			}},
		{name: "attachment-length", doc: "an attachment id written in the request, a count word, and the jq tool routed to: the jq tool's length on it",
			match: first(told(func(t *faTurn) bool { return faMentionedID.MatchString(t.ask) && t.text.has("count") })),
			act: func(t *faTurn) (llm.Message, error) {
				return t.callFor(faJQ, slot{"attachment id", faMentionedID.FindStringSubmatch(t.ask)[1]}, slot{"jq program", "length"})
			}},
		{name: "all-sensors", doc: "all the sensors: the request lists no entity ids, so ask which sensors",
			match: first(func(t *faTurn) bool { return t.text.has("all") && t.text.has("sensors") }),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("I do not know the entity ids of all your sensors. Which sensors do you mean (for example sensor.pool_temperature)?")
			}},
		{name: "sensor-history", doc: "a home area (entity ids formed after the schema's example) and a period: the tool described as downloading history",
			match: first(func(t *faTurn) bool {
				_, _, ok := faPeriod(t.ask, t.text, t.now())
				return ok && len(faEntities(t.text, t.r.Tools)) > 0
			}),
			act: func(t *faTurn) (llm.Message, error) {
				start, end, _ := faPeriod(t.ask, t.text, t.now())
				return t.callFor(faHistory, slot{"entity", faEntities(t.text, t.r.Tools)},
					slot{"start", start.UTC().Format(time.RFC3339)}, slot{"end", end.UTC().Format(time.RFC3339)})
			}},
		{name: "capabilities", doc: "anything else in a first step: say what it can do and ask for a sensor and a period",
			match: first(func(*faTurn) bool { return true }),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("I can chart and query your Home Assistant sensors and your attachments. Which sensor and period do you mean?")
			}},
		{name: "history-failed", doc: "the download failed: say so with its error",
			match: after(faHistory, failed),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("I could not download the history: %s", strings.TrimPrefix(t.result, "Error: "))
			}},
		{name: "history-empty", doc: "the download found no states: say so",
			match: after(faHistory, func(t *faTurn) bool { return strings.HasPrefix(t.result, "No states") }),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("There is no recorded history for that sensor in that period: %s", t.result)
			}},
		{name: "history-chart", doc: "history saved and a chart word: delegate the saved attachment to the visualization service",
			match: after(faHistory, func(t *faTurn) bool { return t.text.has("plot") }),
			act:   func(t *faTurn) (llm.Message, error) { return t.delegate([]string{t.savedID()}) }},
		{name: "history-unavailable", doc: "history saved, the jq tool routed to, and an unavailable word: count the states marked unavailable, or unknown",
			match: after(faHistory, told(func(t *faTurn) bool { return t.text.has("unavailable") })),
			act:   jq(`[.entities[0].states[] | select(.state == "unavailable" or .state == "unknown")] | length`)},
		{name: "history-raw", doc: "history saved, the jq tool routed to, and a raw word: the whole history",
			match: after(faHistory, told(func(t *faTurn) bool { return t.text.has("raw") })), act: jq(".")},
		{name: "history-period", doc: "history saved, the jq tool routed to, and a period word: the first and last state's times",
			match: after(faHistory, told(func(t *faTurn) bool { return t.text.has("period") })),
			act:   jq("[.entities[0].states[0].last_changed, .entities[0].states[-1].last_changed]")},
		{name: "history-count", doc: "history saved, the jq tool routed to, otherwise: count the states",
			match: after(faHistory, told(nil)), act: jq(".entities[0].states | length")},
		{name: "history-untold", doc: "history saved and no instruction or hint routes questions to the jq tool (the default): pass on what the tool said",
			match: after(faHistory, nil),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("The history tool answered: %s", clipText(t.result, 300))
			}},
		{name: "jq-failed", doc: "the jq tool failed: say so with its error",
			match: after(faJQ, failed),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("I could not query the attachment: %s", strings.TrimPrefix(t.result, "Error: "))
			}},
		{name: "jq-saved", doc: "the jq tool's result was saved as an attachment: say which",
			match: after(faJQ, func(t *faTurn) bool { return faSavedAs.MatchString(t.result) }),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("The result is too large to show here, so I saved it as attachment %s.", t.savedID())
			}},
		{name: "jq-answer", doc: "the jq tool answered: quote its result",
			match: after(faJQ, nil),
			act:   func(t *faTurn) (llm.Message, error) { return t.say("The answer is %s.", clipText(t.result, 300)) }},
		{name: "chart-failed", doc: "the visualization service failed: say so with its answer",
			match: after(faDelegate, func(t *faTurn) bool {
				return strings.HasPrefix(t.result, "[data_visualization failed") || failed(t)
			}),
			act: func(t *faTurn) (llm.Message, error) { return t.say("I could not make the chart. %s", t.result) }},
		{name: "chart-made", doc: "the visualization service answered: pass its answer on",
			match: after(faDelegate, nil),
			act: func(t *faTurn) (llm.Message, error) {
				return t.say("%s", strings.TrimPrefix(t.result, "[data_visualization] "))
			}},
		{name: "done", doc: "any other result: say it is done",
			match: func(*faTurn) bool { return true },
			act:   func(t *faTurn) (llm.Message, error) { return t.say("Done.") }},
	}
}
