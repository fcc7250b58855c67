package kura_test

import (
	"encoding/json"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/kura"
	"github.com/agentreplay/testbed/agents/llm"
)

var _ = Describe("runTurn with a scripted Planner and Executor and the real Synthesizer", Label("integration"), func() {
	const query = "What's the weather in Paris?"
	const answer = "In Paris it's 54.3°F and partly cloudy, feels like 51.8°F."

	var (
		w     *world
		reply kura.Reply
	)
	BeforeEach(func() {
		w = newWorld()
		w.script("planner", text(twoStepPlan))
		w.script("executor", parisExecutor())
		reply = ask(w.agent(nil), query)
	})

	It("answers with the stand-in synthesizer's formatting and no coordinates", func() {
		Expect(reply.Error).To(BeEmpty())
		Expect(reply.Text).To(Equal(answer))
		Expect(reply.Text).NotTo(MatchRegexp(coordinate))
		Expect(reply.Text).NotTo(ContainSubstring("48.8"))
		Expect(reply.Snippets).To(Equal([]string{"Found Paris, France.", "It is 54.3°F and partly cloudy in Paris."}))
	})

	It("calls the planner once, the executor twice per step and the synthesizer once, on the wire only for the synthesizer", func() {
		Expect(w.model.roles()).To(Equal([]string{"planner", "executor", "executor", "executor", "executor", "synthesizer"}))
		model := w.transport.Requests(geminiHost)
		Expect(model).To(HaveLen(1))
		Expect(model[0].Path).To(Equal("/v1beta/models/gemini-1.5-flash:generateContent"))
		synth := w.model.ofRole("synthesizer")[0]
		Expect(synth.Err).NotTo(HaveOccurred())
		Expect(synth.Response.Message.Content).To(Equal(answer))
	})

	It("runs the executor's tools against the Maps fixtures and shows the executor their raw answers", func() {
		Expect(w.tracer.ToolNames()).To(Equal([]string{"geocode", "weather"}))
		weather := w.transport.Requests(weatherHost)
		Expect(weather).To(HaveLen(1))
		Expect(weather[0].Query).To(Equal(url.Values{
			"location.latitude": {"48.8566"}, "location.longitude": {"2.3522"}, "unitsSystem": {"IMPERIAL"}}))

		exec := w.model.ofRole("executor")
		results := []string{}
		for _, x := range exec {
			if m, ok := toolResult(x.Request); ok {
				results = append(results, m.Content)
			}
		}
		Expect(results).To(HaveLen(2))
		Expect(at(fromJSON(results[0]), "status")).To(Equal("OK"))
		Expect(results[0]).To(ContainSubstring(`"formatted_address": "Paris, France"`))
		Expect(at(fromJSON(results[1]), "temperature", "degrees")).To(Equal(54.3))
		Expect(at(fromJSON(results[1]), "feelsLikeTemperature", "degrees")).To(Equal(51.8))
	})

	It("gives the synthesizer the final world state and the snippets", func() {
		in := fromJSON(userMessage(w.model.ofRole("synthesizer")[0].Request))
		Expect(in["query"]).To(Equal(query))
		Expect(in["snippets"]).To(Equal([]any{"Found Paris, France.", "It is 54.3°F and partly cloudy in Paris."}))
		Expect(at(in, "world_state", "context", "weather", "Paris", "temp")).To(Equal(54.3))
		Expect(at(in, "world_state", "context", "completed_steps")).To(Equal([]any{"S1", "S2"}))
	})

	It("holds the merged deltas in the world state", func() {
		ws := reply.WorldState
		Expect(at(ws, "context", "places", "Paris")).To(Equal(fromJSON(parisPlace)))
		Expect(at(ws, "context", "weather", "Paris")).To(Equal(fromJSON(parisWeather)))
		Expect(at(ws, "context", "lastWeather")).To(Equal(fromJSON(parisWeather)))
		Expect(at(ws, "context", "completed_steps")).To(Equal([]any{"S1", "S2"}))
		Expect(at(ws, "context", "final_response")).To(Equal(answer))
		Expect(at(ws, "context", "plan", "status")).To(Equal("planning"))
		Expect(at(ws, "context", "plan", "confidence")).To(Equal(0.9))
		Expect(at(ws, "query", "raw")).To(Equal(query))
		Expect(at(ws, "errors")).To(BeEmpty())
	})

	It("changes the world state only by merging: the initial state merged with the patches in order", func() {
		plan := fromJSON(twoStepPlan)
		want := map[string]any(kura.NewState(clockAt(), "imperial"))
		for _, patch := range []map[string]any{
			{"query": map[string]any{"raw": query}, "errors": []any{}},
			{"context": map[string]any{"plan": plan}},
			fromJSON(geocodeOut)["deltaState"].(map[string]any),
			{"context": map[string]any{"completed_steps": []any{"S1"}}},
			fromJSON(weatherOut)["deltaState"].(map[string]any),
			{"context": map[string]any{"completed_steps": []any{"S1", "S2"}}},
			{"context": map[string]any{"final_response": answer}},
		} {
			want = kura.DeepMerge(want, patch)
		}
		Expect(asJSON(reply.WorldState)).To(MatchJSON(asJSON(want)))

		var steps []any
		for _, r := range w.logs.withMessage("merged delta") {
			steps = append(steps, r.Attrs["step"])
		}
		Expect(steps).To(Equal([]any{"seed", "plan", "S1", "S1", "S2", "S2", "final"}))
	})
})

var _ = Describe("planner and model failures", func() {
	var w *world
	BeforeEach(func() { w = newWorld() })

	DescribeTable("a plan the agent cannot use asks the user to rephrase and says why in Reply.Error",
		func(planner, wantErr string) {
			w.script("planner", text(planner))
			r := ask(w.agent(nil), "What's the weather in Paris?")
			Expect(r.Text).To(Equal("I couldn't understand that request. Could you say it another way?"))
			Expect(r.Error).To(ContainSubstring(wantErr))
			Expect(r.Plan).To(BeNil())
			Expect(w.model.roles()).To(Equal([]string{"planner"}))
			Expect(upstreamRequests(w.transport)).To(BeEmpty())
			Expect(w.tracer.Noted("error")).To(Equal([]any{r.Error}))
		},
		Entry("prose", "Sure! First I'll geocode Paris, then look up its weather.", "not a valid plan JSON"),
		Entry("an unknown action", `{"steps": [{"action": "Teleport", "args": {}}]}`, `unknown action "Teleport"`),
		Entry("no steps", `{"steps": [], "status": "complete"}`, "no steps"),
		Entry("prose after the plan", `{"steps": [{"action": "Geocode", "args": {"address": "Paris"}}]} Hope that helps!`, "text after the plan JSON"),
	)

	It("answers the stand-in planner's prose for an emoji-only query the same way", func() {
		r := ask(w.agent(nil), "🤔🤔🤔 ???")
		Expect(r.Text).To(HavePrefix("I couldn't understand that request"))
		Expect(r.Error).To(ContainSubstring("not a valid plan JSON"))
		Expect(r.Error).To(ContainSubstring("I'm not sure what you need."))
		Expect(w.model.roles()).To(Equal([]string{"planner"}))
		Expect(w.tracer.Reports("")).To(BeEmpty())
	})

	It("says the planning service is busy on the stand-in's injected 429", func() {
		r := ask(w.agent(nil), "What's the weather in Paris? testbed:fault=429")
		Expect(r.Text).To(Equal("I couldn't complete that request: my planning service is busy. Please try again in a moment."))
		Expect(r.Error).To(ContainSubstring("429"))
		Expect(w.model.roles()).To(Equal([]string{"planner"}))
		Expect(w.transport.Requests(geminiHost)).To(HaveLen(1), "no retry")
		Expect(w.tracer.Reports("")).To(BeEmpty())
		var se *llm.StatusError
		Expect(w.model.exchanges()[0].Err).To(BeAssignableToTypeOf(se))
	})

	It("does not blame the planner for a 429 that hits the executor", func() {
		w.script("planner", text(twoStepPlan))
		w.script("executor", failing(&llm.StatusError{Code: 429, Body: "quota"}))
		r := ask(w.agent(nil), "What's the weather in Paris?")
		Expect(r.Text).To(Equal("I couldn't complete that request. Please try again in a moment."))
		Expect(r.Error).To(Equal("step S1 (Geocode): executor: model returned HTTP 429: quota"))
	})

	It("reports a synthesizer failure as a friendly message", func() {
		w.script("planner", text(twoStepPlan))
		w.script("executor", parisExecutor())
		w.script("synthesizer", text("   "))
		r := ask(w.agent(nil), "What's the weather in Paris?")
		Expect(r.Text).To(Equal("I couldn't complete that request. Please try again in a moment."))
		Expect(r.Error).To(Equal("synthesizer: empty answer"))
		Expect(at(r.WorldState, "context", "weather", "Paris", "temp")).To(Equal(54.3), "the steps' results stay in the state")
	})

	It("fails the turn on executor output that holds no JSON object, keeping the output in the error", func() {
		w.script("planner", text(twoStepPlan))
		w.script("executor", executor(map[string]stepScript{
			"S1": {calls: []llm.ToolCall{call("geocode", `{"address": "Paris"}`)}, output: "Paris is at 48.8566, 2.3522."},
		}))
		r := ask(w.agent(nil), "What's the weather in Paris?")
		Expect(r.Text).To(Equal("I couldn't complete that request. Please try again in a moment."))
		Expect(r.Error).To(HavePrefix("step S1 (Geocode): executor output has no {deltaState, snippet} JSON object"))
		Expect(r.Error).To(ContainSubstring("Paris is at 48.8566"))
		Expect(w.model.ofRole("synthesizer")).To(BeEmpty())
	})
})

var _ = Describe("errors in the world state", func() {
	var w *world
	BeforeEach(func() { w = newWorld() })

	It("accumulates the errors of every failing step, in order", func() {
		const address = "123 Nowhere Lane, Atlantis"
		w.script("planner", text(`{"steps": [{"action": "Geocode", "args": {"address": "`+address+`"}}, {"action": "Weather", "args": {"location": "`+address+`"}}]}`))
		w.script("executor", executor(map[string]stepScript{
			"S1": {calls: []llm.ToolCall{call("geocode", `{"address": "`+address+`"}`)},
				output: `{"deltaState": {"errors": [{"step": "S1", "tool": "geocode", "message": "no place found for '` + address + `'"}]}, "snippet": "No such place."}`},
			"S2": {calls: []llm.ToolCall{call("weather", `{"units": "imperial"}`)},
				output: `{"deltaState": {"errors": [{"step": "S2", "tool": "weather", "message": "missing required argument lat, lng"}]}, "snippet": "No weather."}`},
		}))
		r := ask(w.agent(nil), "What's the weather at "+address+"?")
		Expect(r.Error).To(BeEmpty())
		Expect(at(r.WorldState, "errors")).To(Equal([]any{
			map[string]any{"step": "S1", "tool": "geocode", "message": "no place found for '" + address + "'"},
			map[string]any{"step": "S2", "tool": "weather", "message": "missing required argument lat, lng"},
		}))
		Expect(at(r.WorldState, "context", "completed_steps")).To(Equal([]any{"S1", "S2"}))
		Expect(r.Text).To(Equal("I couldn't find " + address + ". I couldn't complete the weather lookup: missing required argument lat, lng."))
	})

	It("keeps the city that worked when the other's weather fails (stand-in end to end)", func() {
		r := ask(w.agent(nil), "What's the weather in Paris and Reykjavik?")
		Expect(r.Error).To(BeEmpty())
		errs := at(r.WorldState, "errors").([]any)
		Expect(errs).To(HaveLen(1))
		Expect(at(errs[0], "tool")).To(Equal("weather"))
		Expect(at(errs[0], "message")).To(Equal("weather API returned HTTP 500"))
		Expect(at(r.WorldState, "context", "weather")).To(HaveKey("Paris"))
		Expect(at(r.WorldState, "context", "weather")).NotTo(HaveKey("Reykjavik"))
		Expect(r.Text).To(ContainSubstring("In Paris it's 54.3°F"))
		Expect(r.Text).To(ContainSubstring("I couldn't complete the weather lookup: weather API returned HTTP 500."))
		Expect(at(r.WorldState, "context", "completed_steps")).To(Equal([]any{"S1.1", "S1.2", "S2.1", "S2.2"}))
	})

	It("starts each turn of a conversation with no errors, keeping what earlier turns found", func() {
		rs := run(w.agent(nil), "What's the weather in Reykjavik?", "What's the weather in Paris?")
		Expect(at(rs[0].WorldState, "errors")).To(HaveLen(1))
		Expect(at(rs[1].WorldState, "errors")).To(BeEmpty())
		Expect(rs[1].Text).To(Equal("In Paris it's 54.3°F and partly cloudy, feels like 51.8°F."))
		Expect(at(rs[1].WorldState, "context", "places")).To(HaveKey("Reykjavik"))
		Expect(at(rs[1].WorldState, "query", "raw")).To(Equal("What's the weather in Paris?"))
		Expect(w.tracer.Noted("turn")).To(Equal([]any{0, 1}))
	})

	It("counts the completed steps of the current plan only, turn after turn", Label("regression"), func() {
		rs := run(w.agent(map[string]any{"state": "compact"}), "What's the weather in Tokyo?", "What's the weather in Paris?")
		Expect(at(rs[0].WorldState, "context", "completed_steps")).To(Equal([]any{"S1", "S2"}))
		// The second turn's plan has two steps, of which two are done.
		Expect(at(rs[1].WorldState, "context", "completed_steps")).To(Equal([]any{"S1", "S2"}))
		first := executorInputOf(w.model.ofRole("executor")[4].Request) // turn 2, S1, before its tool
		Expect(first.Step.ID).To(Equal("S1"))
		Expect(at(first.WorldState, "context", "plan")).To(Equal(map[string]any{"status": "planning", "steps": 2.0, "completed": 0.0}))
	})
})

var _ = Describe("casual messages", func() {
	var w *world
	BeforeEach(func() { w = newWorld() })

	DescribeTable("skip the planner: the synthesizer alone answers",
		func(q string) {
			r := ask(w.agent(nil), q)
			Expect(w.model.roles()).To(Equal([]string{"synthesizer"}))
			Expect(w.tracer.Reports("")).To(BeEmpty())
			Expect(upstreamRequests(w.transport)).To(BeEmpty())
			Expect(r.Plan.Steps).To(Equal([]kura.Step{{ID: "S1", Action: kura.ActionConversation, Args: map[string]any{}}}))
			Expect(r.Snippets).To(BeEmpty())
			// The stand-in greets as the synthesizer's prompt says: warmly,
			// offering help with transit, places or weather.
			Expect(r.Text).To(ContainSubstring("transit"))
		},
		Entry("hi", "hi"),
		Entry("thanks!", "thanks!"),
		Entry("Hello there", "Hello there"),
		Entry("Thank you so much.", "Thank you so much."),
		Entry("Good morning!", "Good morning!"),
	)

	DescribeTable("a message that only contains a greeting word is planned",
		func(q, want string) {
			r := ask(w.agent(nil), q)
			Expect(w.model.roles()[0]).To(Equal("planner"))
			Expect(r.Text).To(ContainSubstring(want))
		},
		Entry("a greeting before a longer question", "hi, what's the weather in Paris right now?", "54.3°F"),
		Entry("hi inside a word", "High temperature in Tokyo?", "68.2°F"),
		Entry("a greeting at the end", "Is it cold in Tokyo? hi", "68.2°F"),
	)
})

var _ = Describe("logging", func() {
	var (
		w     *world
		reply kura.Reply
	)
	BeforeEach(func() {
		w = newWorld()
		reply = ask(w.agent(nil), "What's the weather in Paris?")
		Expect(reply.Error).To(BeEmpty())
	})

	It("logs the plan, each tool call, each merge and the final state, in order, all under logger=kura", func() {
		Expect(w.logs.messages()).To(Equal([]string{
			"merged delta", "plan", "merged delta",
			"tool call", "merged delta", "merged delta",
			"tool call", "merged delta", "merged delta",
			"merged delta", "final world state",
		}))
		for _, r := range w.logs.all() {
			Expect(r.Attrs).To(HaveKeyWithValue("logger", "kura"), "record %q", r.Message)
		}
	})

	It("logs the plan the planner wrote", func() {
		plan := w.logs.withMessage("plan")[0].Attrs["plan"]
		Expect(plan).To(MatchJSON(w.model.ofRole("planner")[0].Response.Message.Content))
		Expect(plan).To(MatchJSON(asJSON(reply.Plan)))
	})

	It("logs every tool call with its name, arguments and a summary of the response", func() {
		calls := w.logs.withMessage("tool call")
		reports := w.tracer.Reports("")
		Expect(calls).To(HaveLen(2))
		Expect(reports).To(HaveLen(2))
		for i, c := range calls {
			Expect(c.Attrs["tool"]).To(Equal(reports[i].Name))
			Expect(c.Attrs["args"]).To(MatchJSON(reports[i].Args))
			Expect(c.Attrs).To(HaveKeyWithValue("response", BeAssignableToTypeOf("")))
			summary := c.Attrs["response"].(string)
			Expect(summary).To(HaveSuffix("…"), "the raw answers are longer than a summary")
			Expect([]rune(summary)).To(HaveLen(161))
			Expect(reports[i].Context).To(HavePrefix(strings.TrimSuffix(summary, "…")))
		}
		Expect(calls[0].Attrs["step"]).To(Equal("S1"))
		Expect(calls[0].Attrs["args"]).To(MatchJSON(`{"address": "Paris"}`))
		Expect(calls[1].Attrs["step"]).To(Equal("S2"))
		Expect(calls[1].Attrs["args"]).To(MatchJSON(`{"lat": 48.8566, "lng": 2.3522, "units": "imperial"}`))
	})

	It("logs each merged delta with the list of what changed", func() {
		merges := w.logs.withMessage("merged delta")
		Expect(merges).To(HaveLen(7))
		Expect(merges[0].Attrs["changes"]).To(Equal([]string{`.query.raw: "" → "What's the weather in Paris?"`}))
		for _, m := range merges {
			Expect(m.Attrs["changes"]).NotTo(BeEmpty(), "merge %v changed nothing", m.Attrs["step"])
		}
		geocoded := merges[2].Attrs["changes"].([]string)
		Expect(merges[2].Attrs["step"]).To(Equal("S1"))
		Expect(geocoded).To(HaveLen(1))
		Expect(geocoded[0]).To(HavePrefix(".context.places.Paris: null → {"))
		Expect(merges[3].Attrs["changes"]).To(Equal([]string{`.context.completed_steps: [] → ["S1"]`}))
		weather := merges[4].Attrs["changes"].([]string)
		Expect(weather).To(ContainElement(HavePrefix(".context.weather.Paris: null → {")))
		Expect(weather).To(ContainElement(HavePrefix(".context.lastWeather: null → {")))
		Expect(merges[6].Attrs["changes"]).To(Equal([]string{`.context.final_response: null → "In Paris it's 54.3°F and partly cloudy, feels like 51.8°F."`}))
	})

	It("logs the final world state as the reply holds it", func() {
		final := w.logs.withMessage("final world state")
		Expect(final).To(HaveLen(1))
		Expect(final[0].Attrs["state"]).To(MatchJSON(asJSON(reply.WorldState)))
	})

	It("never logs the Maps key", func() {
		for _, r := range w.logs.all() {
			b, err := json.Marshal(r.Attrs)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).NotTo(ContainSubstring(mapsKey))
		}
	})

	It("logs a failed turn at error level with its cause", func() {
		w2 := newWorld()
		w2.script("planner", text("no plan today"))
		r := ask(w2.agent(nil), "What's the weather in Paris?")
		failed := w2.logs.withMessage("turn failed")
		Expect(failed).To(HaveLen(1))
		Expect(failed[0].Level.String()).To(Equal("ERROR"))
		Expect(failed[0].Attrs).To(HaveKeyWithValue("error", r.Error))
		Expect(failed[0].Attrs).To(HaveKeyWithValue("logger", "kura"))
	})
})
