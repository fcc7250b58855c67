package check_test

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// Event builders for one turn.

func llmCall(input, output int) trace.Event {
	return trace.Event{Kind: trace.KindLLM, LLM: &trace.LLMCall{Role: "answer", Input: trace.Parts{User: input}, Output: output}}
}

func toolCall(name, args string) trace.Event {
	return trace.Event{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: name, Args: json.RawMessage(args)}}
}

func toolPayload(name string, raw, context int) trace.Event {
	return trace.Event{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: name, RawTokens: raw, ContextTokens: context}}
}

func httpCall(d time.Duration) trace.Event {
	return trace.Event{Kind: trace.KindHTTP, HTTP: &trace.Exchange{Method: "GET", URL: "http://upstream/x", Status: 200, Duration: d}}
}

func routeNote(v any) trace.Event {
	return trace.Event{Kind: trace.KindNote, Note: &trace.Note{Key: agents.NoteRoute, Value: v}}
}

func events(es ...trace.Event) []trace.Event { return es }

func intp(n int) *int { return &n }

// only returns the one check named name, failing the spec if there is not
// exactly one check.
func only(checks []report.Check) report.Check {
	GinkgoHelper()
	Expect(checks).To(HaveLen(1), "checks: %+v", checks)
	return checks[0]
}

// expectOutcome asserts a check passed (detail == "") or failed with exactly
// that detail.
func expectOutcome(c report.Check, name, detail string) {
	GinkgoHelper()
	Expect(c.Name).To(Equal(name))
	if detail == "" {
		Expect(c.Pass).To(BeTrue(), "detail: %s", c.Detail)
		Expect(c.Detail).To(BeEmpty())
		return
	}
	Expect(c.Pass).To(BeFalse())
	Expect(c.Detail).To(Equal(detail))
}

// roundTrip returns v as it reads after a trip through JSON.
func roundTrip(v any) any {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	var out any
	Expect(json.Unmarshal(b, &out)).To(Succeed())
	return out
}

var _ = Describe("Turn", func() {
	It("returns no checks when nothing is expected", func() {
		Expect(check.Turn(0, scenario.Expect{}, agents.Reply{Text: "hi"}, events(llmCall(10, 5)), nil)).To(BeEmpty())
	})

	It("returns one check per expectation, in a fixed order, stamped with the turn", func() {
		exp := scenario.Expect{
			Route:     &scenario.Route{Mode: "tool"},
			Tools:     &scenario.ToolSequence{Names: []string{"a"}},
			Args:      map[string]any{"x": 1},
			Answer:    &scenario.AnswerExpect{Contains: []string{"a"}, NotContains: []string{"b"}, Matches: "a", Language: "en"},
			JQ:        []string{"true", "true"},
			LLMCalls:  intp(1),
			ToolCalls: intp(1),
			Budget:    &scenario.Budget{Latency: time.Second, InputTokens: 100, ContextTokens: 100, TokenReduction: 0.5},
		}
		checks := check.Turn(2, exp, agents.Reply{Text: "a"}, nil, nil)
		var names []string
		for _, c := range checks {
			Expect(c.Turn).To(Equal(2))
			names = append(names, c.Name)
		}
		Expect(names).To(Equal([]string{"route", "tools", "args", "answer.contains", "answer.not_contains",
			"answer.matches", "answer.language", "jq[0]", "jq[1]", "llm_calls", "tool_calls", "budget.latency",
			"budget.input_tokens", "budget.context_tokens", "budget.token_reduction"}))
	})

	DescribeTable("route",
		func(evs []trace.Event, exp scenario.Route, detail string) {
			expectOutcome(only(check.Turn(0, scenario.Expect{Route: &exp}, agents.Reply{}, evs, nil)), "route", detail)
		},
		Entry("agents.Route", events(routeNote(agents.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"})),
			scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}, ""),
		Entry("*agents.Route", events(routeNote(&agents.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"})),
			scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}, ""),
		Entry("map after a JSON round trip", events(routeNote(roundTrip(agents.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}))),
			scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}, ""),
		Entry("mode only, any tool", events(routeNote(agents.Route{Mode: "tool", Tool: "ghrsst.point"})),
			scenario.Route{Mode: "tool"}, ""),
		Entry("the last route counts", events(routeNote(agents.Route{Mode: "explain"}), routeNote(agents.Route{Mode: "code"})),
			scenario.Route{Mode: "code"}, ""),
		Entry("wrong mode", events(routeNote(agents.Route{Mode: "code"})),
			scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}, "want tool:ghrsst.bbox_mean, got code"),
		Entry("wrong mode from a map", events(routeNote(map[string]any{"mode": "code"})),
			scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}, "want tool:ghrsst.bbox_mean, got code"),
		Entry("wrong tool from a pointer", events(routeNote(&agents.Route{Mode: "tool", Tool: "ghrsst.point"})),
			scenario.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}, "want tool:ghrsst.bbox_mean, got tool:ghrsst.point"),
		Entry("no route noted", events(llmCall(1, 1)),
			scenario.Route{Mode: "explain"}, "want explain, got no route noted and no tool called"),
		Entry("no route noted: the first tool called", events(llmCall(1, 1), toolCall("geocode", `{}`), toolCall("weather", `{}`)),
			scenario.Route{Mode: "tool", Tool: "weather"}, "want tool:weather, got tool:geocode"),
		Entry("a noted route wins over the tools called", events(toolCall("geocode", `{}`), routeNote(agents.Route{Mode: "explain"})),
			scenario.Route{Mode: "explain"}, ""),
	)

	DescribeTable("ObservedRoute and FormatRoute",
		func(value any, want string) {
			Expect(check.ObservedRoute(events(routeNote(value)))).To(Equal(want))
			mode, tool, _ := strings.Cut(want, ":")
			Expect(check.FormatRoute(&scenario.Route{Mode: mode, Tool: tool})).To(Equal(want))
		},
		Entry("mode and tool", agents.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}, "tool:ghrsst.bbox_mean"),
		Entry("mode only, by pointer", &agents.Route{Mode: "explain"}, "explain"),
		Entry("mode only, as a map", map[string]any{"mode": "code"}, "code"),
	)

	It("observes no route without a route note", func() {
		Expect(check.ObservedRoute(events(llmCall(1, 1)))).To(BeEmpty())
		Expect(check.ObservedRoute(events(routeNote((*agents.Route)(nil))))).To(BeEmpty())
		Expect(check.FormatRoute(nil)).To(BeEmpty())
	})

	DescribeTable("tools",
		func(exp scenario.ToolSequence, called []string, detail string) {
			var evs []trace.Event
			for _, n := range called {
				evs = append(evs, toolCall(n, `{}`))
			}
			expectOutcome(only(check.Turn(0, scenario.Expect{Tools: &exp}, agents.Reply{}, evs, nil)), "tools", detail)
		},
		Entry("exact", scenario.ToolSequence{Match: "exact", Names: []string{"a", "b"}}, []string{"a", "b"}, ""),
		Entry("exact, wrong order", scenario.ToolSequence{Match: "exact", Names: []string{"a", "b"}}, []string{"b", "a"},
			"want exactly [a, b], got [b, a]"),
		Entry("exact by default, none expected", scenario.ToolSequence{}, []string{"a"},
			"want exactly no tools, got [a]"),
		Entry("ordered, with others between", scenario.ToolSequence{Match: "ordered", Names: []string{"a", "c"}}, []string{"a", "b", "c"}, ""),
		Entry("ordered, out of order", scenario.ToolSequence{Match: "ordered", Names: []string{"a", "c"}}, []string{"c", "a"},
			"want [a, c] in this order, c missing after [a], got [c, a]"),
		Entry("subset, any order", scenario.ToolSequence{Match: "subset", Names: []string{"c", "a"}}, []string{"a", "b", "c"}, ""),
		Entry("subset, one missing", scenario.ToolSequence{Match: "subset", Names: []string{"a", "d"}}, []string{"a", "b"},
			"want [a, d] in any order, missing [d], got [a, b]"),
		Entry("not called", scenario.ToolSequence{Match: "subset", NotCall: []string{"code.run"}}, []string{"a"}, ""),
		Entry("forbidden tool called", scenario.ToolSequence{Match: "subset", NotCall: []string{"code.run"}}, []string{"a", "code.run"},
			"want no call to [code.run], got [a, code.run]"),
		Entry("unknown match", scenario.ToolSequence{Match: "some", Names: []string{"a"}}, []string{"a"},
			`unknown match "some" (want exact, ordered or subset), got [a]`),
	)

	DescribeTable("args",
		func(want map[string]any, tol float64, evs []trace.Event, detail string) {
			exp := scenario.Expect{Args: want, Tolerance: tol}
			expectOutcome(only(check.Turn(0, exp, agents.Reply{}, evs, nil)), "args", detail)
		},
		Entry("equal, with extra arguments ignored",
			map[string]any{"bbox": []any{118.0, 20, 123.5, 26.5}, "var": "sst"}, 0.0,
			events(toolCall("ghrsst.bbox_mean", `{"bbox":[118,20.0,123.5,26.5],"var":"sst","date":"2025-11-06"}`)), ""),
		Entry("only the first tool call counts",
			map[string]any{"var": "sst"}, 0.0,
			events(toolCall("a", `{"var":"sst"}`), toolCall("b", `{"var":"chl"}`)), ""),
		Entry("within the default tolerance",
			map[string]any{"bbox": []any{118.0, 20.0, 123.5, 26.5}}, 0.0,
			events(toolCall("ghrsst.bbox_mean", `{"bbox":[118.0000001,20,123.5,26.5]}`)), ""),
		Entry("outside the default tolerance",
			map[string]any{"bbox": []any{118.0, 20.0, 123.5, 26.5}}, 0.0,
			events(toolCall("ghrsst.bbox_mean", `{"bbox":[118,20,123,26.5]}`)),
			"/bbox/2: want 123.5, got 123 (arguments of ghrsst.bbox_mean)"),
		Entry("within a scenario's tolerance",
			map[string]any{"bbox": []any{118.0, 20.0, 123.5, 26.5}}, 0.5,
			events(toolCall("ghrsst.bbox_mean", `{"bbox":[118,20,123,26.5]}`)), ""),
		Entry("integers and unsigned integers from YAML",
			map[string]any{"n": 3, "m": uint64(4), "x": int64(-2)}, 0.0,
			events(toolCall("t", `{"n":3.0,"m":4,"x":-2}`)), ""),
		Entry("typed slices and maps from a decoder",
			map[string]any{"ids": []int{1, 2}, "opts": map[string]string{"unit": "C"}}, 0.0,
			events(toolCall("t", `{"ids":[1,2],"opts":{"unit":"C","depth":0}}`)), ""),
		Entry("nested maps",
			map[string]any{"region": map[string]any{"name": "Taiwan", "box": map[string]any{"south": 20}}}, 0.0,
			events(toolCall("t", `{"region":{"name":"Taiwan","box":{"south":20,"north":26.5}}}`)), ""),
		Entry("nested maps, wrong leaf",
			map[string]any{"region": map[string]any{"name": "Taiwan", "box": map[string]any{"south": 20}}}, 0.0,
			events(toolCall("t", `{"region":{"name":"Taiwan","box":{"south":21}}}`)),
			"/region/box/south: want 20, got 21 (arguments of t)"),
		Entry("missing key",
			map[string]any{"region": map[string]any{"name": "Taiwan"}}, 0.0,
			events(toolCall("t", `{"region":{}}`)),
			`/region/name: want "Taiwan", got no such key (arguments of t)`),
		Entry("wrong list length",
			map[string]any{"bbox": []any{118.0, 20.0, 123.5, 26.5}}, 0.0,
			events(toolCall("t", `{"bbox":[118,20,123.5]}`)),
			"/bbox: want 4 elements, got 3: [118,20,123.5] (arguments of t)"),
		Entry("list where an object is expected",
			map[string]any{"box": map[string]any{"south": 20}}, 0.0,
			events(toolCall("t", `{"box":[20]}`)),
			"/box: want an object, got [20] (arguments of t)"),
		Entry("string where a number is expected",
			map[string]any{"depth": 0}, 0.0,
			events(toolCall("t", `{"depth":"0"}`)),
			`/depth: want 0, got "0" (arguments of t)`),
		Entry("any_of, one matches",
			map[string]any{"unit": map[string]any{"any_of": []any{"C", "celsius"}}}, 0.0,
			events(toolCall("t", `{"unit":"celsius"}`)), ""),
		Entry("any_of over numbers, within tolerance",
			map[string]any{"bbox": []any{map[string]any{"any_of": []any{118, 118.5}}, 20}}, 0.0,
			events(toolCall("t", `{"bbox":[118.5,20]}`)), ""),
		Entry("any_of over objects",
			map[string]any{"area": map[string]any{"any_of": []any{map[string]any{"name": "Taiwan"}, "TW"}}}, 0.0,
			events(toolCall("t", `{"area":{"name":"Taiwan","kind":"island"}}`)), ""),
		Entry("any_of, none matches",
			map[string]any{"unit": map[string]any{"any_of": []any{"C", "celsius"}}}, 0.0,
			events(toolCall("t", `{"unit":"F"}`)),
			`/unit: want any of ["C","celsius"], got "F" (arguments of t)`),
		Entry("null",
			map[string]any{"date": nil}, 0.0,
			events(toolCall("t", `{"date":"2025-11-06"}`)),
			`/date: want null, got "2025-11-06" (arguments of t)`),
		Entry("no tool executed",
			map[string]any{"x": 1}, 0.0,
			events(llmCall(1, 1)),
			"want a tool call with arguments, got no tool executed"),
		Entry("arguments that are not JSON",
			map[string]any{"x": 1}, 0.0,
			events(toolCall("t", `{"x":`)),
			"arguments of t are not JSON: unexpected EOF"),
	)

	longText := strings.Repeat("台灣周遭海溫", 20) // 120 characters

	DescribeTable("answer",
		func(a scenario.AnswerExpect, name, text, detail string) {
			expectOutcome(only(check.Turn(0, scenario.Expect{Answer: &a}, agents.Reply{Text: text}, nil, nil)), name, detail)
		},
		Entry("contains", scenario.AnswerExpect{Contains: []string{"°C", "台灣"}}, "answer.contains",
			"台灣周遭海溫約 27.5°C。", ""),
		Entry("contains is case-sensitive", scenario.AnswerExpect{Contains: []string{"sst"}}, "answer.contains",
			"SST is 27.5 °C", `answer lacks "sst": "SST is 27.5 °C"`),
		Entry("contains, quoting the first 80 characters", scenario.AnswerExpect{Contains: []string{"°C", "台灣"}}, "answer.contains",
			longText, `answer lacks "°C": "`+string([]rune(longText)[:80])+`…"`),
		Entry("not contains", scenario.AnswerExpect{NotContains: []string{"error", "Traceback"}}, "answer.not_contains",
			"27.5 °C", ""),
		Entry("not contains, quoting around the match", scenario.AnswerExpect{NotContains: []string{"Traceback"}}, "answer.not_contains",
			strings.Repeat("x", 100)+"Traceback (most recent call last)",
			`answer contains "Traceback": "…`+strings.Repeat("x", 20)+`Traceback (most recent call last)"`),
		Entry("matches", scenario.AnswerExpect{Matches: `\d+(\.\d+)?\s*°C`}, "answer.matches",
			"約 27.5°C", ""),
		Entry("does not match", scenario.AnswerExpect{Matches: `\d+(\.\d+)?\s*°C`}, "answer.matches",
			"約 27.5 度", `answer does not match /\d+(\.\d+)?\s*°C/: "約 27.5 度"`),
		Entry("bad regexp", scenario.AnswerExpect{Matches: `(`}, "answer.matches",
			"x", "bad regexp \"(\": error parsing regexp: missing closing ): `(`"),
		Entry("zh", scenario.AnswerExpect{Language: "zh"}, "answer.language",
			"台灣周遭海溫約 27.5°C (GHRSST MUR, 2025-11-06)。", ""),
		Entry("zh, but English", scenario.AnswerExpect{Language: "zh"}, "answer.language",
			"About 27.5 °C near Taiwan.", `want zh, got 0.0% Han and 100.0% Latin of 16 letters: "About 27.5 °C near Taiwan."`),
		Entry("en", scenario.AnswerExpect{Language: "en"}, "answer.language",
			"About 27.5 °C near Taiwan.", ""),
		Entry("en, but with Han", scenario.AnswerExpect{Language: "en"}, "answer.language",
			"About 27.5 °C near Taiwan (台灣).", `want en, got 11.1% Han and 88.9% Latin of 18 letters: "About 27.5 °C near Taiwan (台灣)."`),
		Entry("no letters", scenario.AnswerExpect{Language: "en"}, "answer.language",
			"27.5", `want en, got no letters: "27.5"`),
		Entry("unknown language", scenario.AnswerExpect{Language: "fr"}, "answer.language",
			"Bonjour", `unknown language "fr" (want zh or en)`),
	)

	reply := agents.Reply{
		Text: "台灣周遭海溫約 27.5°C。",
		Data: map[string]any{"mode": "tool", "raw": map[string]any{"tool_result": map[string]any{"date": "2025-11-06", "mean": 27.5}}},
	}
	turnEvents := events(
		llmCall(300, 40),
		routeNote(agents.Route{Mode: "tool", Tool: "ghrsst.bbox_mean"}),
		httpCall(400*time.Millisecond),
		toolCall("ghrsst.bbox_mean", `{"bbox":[118,20,123.5,26.5]}`),
		llmCall(500, 60),
	)

	DescribeTable("jq",
		func(expr, detail string) {
			expectOutcome(only(check.Turn(0, scenario.Expect{JQ: []string{expr}}, reply, turnEvents, nil)), "jq[0]", detail)
		},
		Entry("over the reply's data", `.raw.tool_result.date == "2025-11-06"`, ""),
		Entry("over the reply's data, false", `.raw.tool_result.date == "2025-11-05"`,
			`.raw.tool_result.date == "2025-11-05": want true, got false`),
		Entry("numbers as JSON numbers", `.raw.tool_result.mean > 27`, ""),
		Entry("over $text", `$text | test("°C")`, ""),
		Entry("over $trace", `[$trace[] | select(.kind == "tool") | .tool.name] == ["ghrsst.bbox_mean"]`, ""),
		Entry("over $trace, tool arguments as JSON", `[$trace[] | select(.kind == "tool")][0].tool.args.bbox[2] == 123.5`, ""),
		Entry("over $trace, notes", `[$trace[] | select(.kind == "note")][0].note.value.tool == "ghrsst.bbox_mean"`, ""),
		Entry("over $trace, false", `[$trace[] | select(.kind == "llm")] | length == 1`,
			`[$trace[] | select(.kind == "llm")] | length == 1: want true, got false`),
		Entry("over $metrics", `$metrics.llm_calls == 2 and $metrics.input_tokens == 800 and $metrics.latency_ns == 400000000`, ""),
		Entry("over $metrics, false", `$metrics.output_tokens < 50`,
			`$metrics.output_tokens < 50: want true, got false`),
		Entry("only the first output counts", `true, false`, ""),
		Entry("a non-boolean", `.raw.tool_result.mean`, `.raw.tool_result.mean: want true, got 27.5`),
		Entry("null", `.missing`, `.missing: want true, got null`),
		Entry("no output", `empty`, `empty: want true, got no output`),
		Entry("an error", `error("boom")`, `error("boom"): want true, got error: error: boom`),
		Entry("a syntax error", `.raw ==`, "parse jq .raw ==: unexpected EOF"),
		Entry("an unknown variable", `$env`, "compile jq $env: variable not defined: $env"),
	)

	It("fails every jq check when the reply's data is not JSON", func() {
		bad := agents.Reply{Data: map[string]any{"f": func() {}}}
		c := only(check.Turn(0, scenario.Expect{JQ: []string{"true"}}, bad, nil, nil))
		Expect(c.Pass).To(BeFalse())
		Expect(c.Detail).To(HavePrefix("reply data is not JSON: "))
	})

	It("turns the trace into JSON only for the checks of a turn that name $trace", func() {
		// A note that has no JSON form fails the checks that read the trace,
		// and only those.
		bad := append(append([]trace.Event(nil), turnEvents...),
			trace.Event{Kind: trace.KindNote, Note: &trace.Note{Key: "x", Value: math.Inf(1)}})
		for _, tc := range []struct {
			exprs []string
			pass  bool
		}{
			{[]string{`.mode == "tool"`, `$metrics.llm_calls == 2`}, true},
			{[]string{`.mode == "tool"`, `$trace | length > 0`}, false},
		} {
			for _, c := range check.Turn(0, scenario.Expect{JQ: tc.exprs}, reply, bad, nil) {
				Expect(c.Pass).To(Equal(tc.pass), "%v: %s", tc.exprs, c.Detail)
				if !tc.pass {
					Expect(c.Detail).To(HavePrefix("trace events are not JSON: "))
				}
			}
		}
	})

	It("gives jq null for no data and [] for no events", func() {
		c := only(check.Turn(0, scenario.Expect{JQ: []string{`. == null and $trace == [] and $metrics.llm_calls == 0`}}, agents.Reply{}, nil, nil))
		Expect(c.Pass).To(BeTrue(), c.Detail)
	})

	DescribeTable("counts",
		func(exp scenario.Expect, name, detail string) {
			expectOutcome(only(check.Turn(0, exp, reply, turnEvents, nil)), name, detail)
		},
		Entry("LLM calls", scenario.Expect{LLMCalls: intp(2)}, "llm_calls", ""),
		Entry("LLM calls, one too many", scenario.Expect{LLMCalls: intp(1)}, "llm_calls", "want 1 LLM call, got 2"),
		Entry("LLM calls, none expected", scenario.Expect{LLMCalls: intp(0)}, "llm_calls", "want 0 LLM calls, got 2"),
		Entry("tool calls", scenario.Expect{ToolCalls: intp(1)}, "tool_calls", ""),
		Entry("tool calls, too few", scenario.Expect{ToolCalls: intp(2)}, "tool_calls", "want 2 tool calls, got 1"),
	)

	budgetEvents := events(
		llmCall(300, 40),
		httpCall(1200*time.Millisecond),
		toolPayload("ghrsst.bbox_mean", 1000, 307),
		httpCall(300*time.Millisecond),
		toolPayload("ghrsst.point", 0, 0),
	)

	DescribeTable("budgets",
		func(b scenario.Budget, name, detail string) {
			expectOutcome(only(check.Turn(0, scenario.Expect{Budget: &b}, agents.Reply{}, budgetEvents, nil)), name, detail)
		},
		Entry("latency", scenario.Budget{Latency: 1500 * time.Millisecond}, "budget.latency", ""),
		Entry("latency, over", scenario.Budget{Latency: time.Second}, "budget.latency", "want latency <= 1s, got 1.5s"),
		Entry("input tokens", scenario.Budget{InputTokens: 300}, "budget.input_tokens", ""),
		Entry("input tokens, over", scenario.Budget{InputTokens: 299}, "budget.input_tokens", "want input tokens <= 299, got 300"),
		Entry("context tokens", scenario.Budget{ContextTokens: 400}, "budget.context_tokens", ""),
		Entry("context tokens, over", scenario.Budget{ContextTokens: 300}, "budget.context_tokens", "want context tokens <= 300, got 307"),
		Entry("token reduction", scenario.Budget{TokenReduction: 0.69}, "budget.token_reduction", ""),
		Entry("token reduction, short", scenario.Budget{TokenReduction: 0.8}, "budget.token_reduction",
			"want token reduction >= 80.0%, got 69.3% (1000 raw tokens, 307 in context)"),
	)

	It("fails a token reduction budget when no raw payload was seen", func() {
		c := only(check.Turn(0, scenario.Expect{Budget: &scenario.Budget{TokenReduction: 0.5}}, agents.Reply{}, events(llmCall(1, 1)), nil))
		expectOutcome(c, "budget.token_reduction", "want token reduction >= 50.0%, got 0.0% (0 raw tokens, 0 in context)")
	})
})

var _ = Describe("CompileJQ", func() {
	It("accepts an expression over the data and the variables", func() {
		Expect(check.CompileJQ(`.raw.x == 1 and ($text | length) > 0 and ($trace | length) > 0 and $metrics.llm_calls == 1`)).To(Succeed())
	})

	DescribeTable("rejects",
		func(expr, msg string) {
			Expect(check.CompileJQ(expr)).To(MatchError(msg))
		},
		Entry("a syntax error", `.a ==`, "parse jq .a ==: unexpected EOF"),
		Entry("an unknown variable", `$nope`, "compile jq $nope: variable not defined: $nope"),
		Entry("an unknown function", `nope(1)`, "compile jq nope(1): function not defined: nope/1"),
	)
})
