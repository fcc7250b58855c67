package standin_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/standin/generic"
)

// Tools of an agent the stand-in has never seen: seatMap needs an id that
// only findFlight's result gives.
var (
	findFlight = tool("lookup_flight", "Finds a flight by its number and day, and returns its flight_id.",
		`{"type": "object", "required": ["flight_number", "day"], "properties": {"flight_number": {"type": "string"}, "day": {"type": "string", "format": "date"}}}`)
	seatMap = tool("seat_map", "The seat map of a flight: which seats are free.",
		`{"type": "object", "required": ["flight_id"], "properties": {"flight_id": {"type": "string", "description": "The flight's id, as lookup_flight returns it."}}}`)
	convertLength = tool("convert_length", "Converts a length between units.",
		`{"type": "object", "required": ["value", "from_unit", "to_unit"], "properties": {"value": {"type": "number"},
		"from_unit": {"type": "string", "enum": ["meter", "foot", "mile"]}, "to_unit": {"type": "string", "enum": ["meter", "foot", "mile"]}}}`)
	bookRide = tool("book_ride", "Books a ride between two places.",
		`{"type": "object", "required": ["destination", "origin"], "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}}}`)
)

// decision is the generic policy's answer to r and the rule it names.
func decision(r standin.Request) (llm.Message, string) {
	GinkgoHelper()
	d, ok := generic.New().(interface {
		Decide(standin.Request) (llm.Message, string, error)
	})
	Expect(ok).To(BeTrue(), "the generic policy names its rules")
	msg, rule, err := d.Decide(r)
	Expect(err).NotTo(HaveOccurred())
	return msg, rule
}

var _ = Describe("the generic policy chaining tools", func() {
	const question = "Show me the seat map of flight KX 802 tomorrow"

	It("calls first the tool that supplies a required value the conversation lacks, then the tool asked for with it, then answers", func() {
		r := ask(question, seatMap, findFlight)
		first, rule := decision(r)
		Expect(rule).To(Equal("chain-first"))
		names, args := calls(first)
		Expect(names).To(Equal([]string{"lookup_flight"}))
		Expect(args[0]).To(HaveKeyWithValue("day", "2026-11-26"))

		r = after(r, first, `{"flight": {"flight_id": "KX802-1126", "status": "scheduled"}}`)
		second, rule := decision(r)
		Expect(rule).To(Equal("chain-then"))
		names, args = calls(second)
		Expect(names).To(Equal([]string{"seat_map"}))
		Expect(args[0]).To(Equal(map[string]any{"flight_id": "KX802-1126"}))
		Expect(second.ToolCalls[0].ID).To(Equal("call_2"))

		r = after(r, second, `{"free": ["12A", "14C"]}`)
		last, rule := decision(r)
		Expect(rule).To(Equal("answer-from-results"))
		Expect(last.ToolCalls).To(BeEmpty())
		Expect(last.Content).To(ContainSubstring("From seat_map: free: 12A."))
	})

	It("answers from the results when the supplier's result does not give the value", func() {
		r := ask(question, seatMap, findFlight)
		first, _ := decision(r)
		_, rule := decision(after(r, first, `{"error": "no such flight"}`))
		Expect(rule).To(Equal("answer-from-results"))
	})

	DescribeTable("calls the tool asked for at once when the conversation gives the value, or no tool can supply it",
		func(r standin.Request, want string) {
			msg, rule := decision(r)
			Expect(rule).To(Equal("call-tool"))
			names, args := calls(msg)
			Expect(names).To(Equal([]string{"seat_map"}))
			Expect(args[0]["flight_id"]).To(Equal(want))
		},
		Entry("quoted in the message", ask(`Show me the seat map of "KX802-1126"`, seatMap, findFlight), "KX802-1126"),
		Entry("in an earlier turn's tool result", standin.Request{Model: "m", Tools: []llm.Tool{seatMap, findFlight}, Messages: []llm.Message{
			userSays("Find flight KX 802 today"), modelCalls("call_1", "lookup_flight", `{}`), toolSays("call_1", "lookup_flight", `{"flight_id": "KX802-1125"}`),
			assistantSays("Found it."), userSays("Now its seat map please")}}, "KX802-1125"),
		Entry("no tool supplies it: the message, as before", ask(question, seatMap), question),
	)

	It("does not chain after results it did not ask for", func() {
		r := ask(question, seatMap, findFlight)
		r.Messages = append(r.Messages, modelCalls("call_1", "seat_map", `{"flight_id": "x"}`), toolSays("call_1", "seat_map", `{"free": []}`))
		_, rule := decision(r)
		Expect(rule).To(Equal("answer-from-results"))
	})
})

var _ = Describe("the generic policy filling two properties of one kind", func() {
	DescribeTable("gives each a distinct value: in the order the text gives them, by role, and by from/to",
		func(text string, t llm.Tool, want map[string]any) {
			_, args := calls(answer(ask(text, t)))
			Expect(args).To(HaveLen(1))
			for k, v := range want {
				Expect(args[0]).To(HaveKeyWithValue(k, v))
			}
		},
		Entry("in the text's order, the source first", "Convert 5 mile to meter", convertLength, map[string]any{"from_unit": "mile", "to_unit": "meter", "value": float64(5)}),
		Entry("not in the enum's order", "Convert 5 foot in mile", convertLength, map[string]any{"from_unit": "foot", "to_unit": "mile"}),
		Entry("'to' and 'from' before the values give them their roles", "Convert to meter from mile, 5 of them", convertLength, map[string]any{"from_unit": "mile", "to_unit": "meter"}),
		Entry("one value mentioned: the other takes the first value not taken", "Convert 5 meter", convertLength, map[string]any{"from_unit": "meter", "to_unit": "foot"}),
		Entry("roles read from the descriptions when the names have none", "Convert 5 mile in meter", tool("convert_length", "Converts a length.",
			`{"type": "object", "required": ["want", "have"], "properties": {"want": {"enum": ["meter", "mile"], "description": "The unit to convert into."},
			"have": {"enum": ["meter", "mile"], "description": "The unit to convert from."}}}`), map[string]any{"have": "mile", "want": "meter"}),
		Entry("places: to and from", "Book a ride to Lyon from Geneva", bookRide, map[string]any{"origin": "Geneva", "destination": "Lyon"}),
		Entry("places in the text's order", "Book a ride between Basel and Bern", bookRide, map[string]any{"origin": "Basel", "destination": "Bern"}),
	)

	It("leaves a lone enum as it was", func() {
		_, args := calls(answer(ask("Weather in Lima in Fahrenheit", weatherTool)))
		Expect(args[0]).To(HaveKeyWithValue("units", "fahrenheit"))
	})
})

// genericRuleCases are a request for each of the generic policy's rules.
func genericRuleCases() map[string]map[string]ruleCase {
	const question = "Show me the seat map of flight KX 802 tomorrow"
	tools := []llm.Tool{seatMap, findFlight}
	lookup := []llm.Message{{Role: llm.RoleSystem, Content: "You help travellers. Today is 2026-11-25."}, userSays(question),
		modelCalls("call_1", "lookup_flight", `{"flight_number": "KX 802", "day": "2026-11-26"}`)}
	located := []llm.Tool{weatherTool, geocodeTool}
	locateFirst := llm.Message{Role: llm.RoleSystem, Content: "Always call geocode first."}
	return map[string]map[string]ruleCase{standin.GenericName: {
		"chain-then":          {req: llm.Request{Tools: tools, Messages: append(lookup[:3:3], toolSays("call_1", "lookup_flight", `{"flight_id": "KX802-1126"}`))}},
		"answer-from-results": {req: llm.Request{Tools: tools, Messages: append(lookup[:3:3], toolSays("call_1", "lookup_flight", `{"error": "no such flight"}`))}},
		"chain-first":         {req: llm.Request{Tools: tools, Messages: lookup[:2]}},
		"call-per-place":      {req: llm.Request{Tools: []llm.Tool{weatherTool}, Messages: []llm.Message{userSays("Weather in Oslo and Lima")}}},
		"call-tool":           {req: llm.Request{Tools: []llm.Tool{weatherTool}, Messages: []llm.Message{userSays("Weather in Oslo")}}},
		"answer-plainly":      {req: llm.Request{Tools: tools, Messages: []llm.Message{userSays("Tell me a joke")}}},
		"call-prerequisite":   {req: llm.Request{Tools: located, Messages: []llm.Message{locateFirst, userSays("Weather in Oslo")}}},
		"relay-answer": {req: llm.Request{Tools: []llm.Tool{tool("transfer_to_seats", "Ask agent 'seats' for help", `{"type": "object", "properties": {}}`)},
			Messages: []llm.Message{userSays(question), modelCalls("call_1", "transfer_to_seats", `{}`), toolSays("call_1", "transfer_to_seats", "Transferred to seats"),
				assistantSays("Seat 12A is free on KX 802."), modelCalls("call_2", "transfer_back_to_supervisor", `{}`),
				toolSays("call_2", "transfer_back_to_supervisor", "Transferred back to the supervisor")}}},
		"prerequisite-then": {req: llm.Request{Tools: located, Messages: []llm.Message{locateFirst, userSays("Weather in Oslo"),
			modelCalls("call_1", "geocode", `{"query": "Oslo"}`), toolSays("call_1", "geocode", `{"latitude": 59.9, "longitude": 10.7}`)}}},
	}}
}

var _ = Describe("the generic policy's rules", func() {
	specEveryRule([]string{standin.GenericName}, genericRuleCases)
})
