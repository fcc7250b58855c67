package standin_test

import (
	"encoding/json"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// geocodeTool finds coordinates: a prerequisite some prompts state.
var geocodeTool = tool("geocode", "Finds a place's latitude and longitude.",
	`{"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}`)

// Two tools a routing rule can tell apart where the scores do not.
var (
	nowTool     = tool("current_conditions", "Conditions right now in a city.", `{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)
	outlookTool = tool("outlook", "What to expect in a city over the next days.", `{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`)
)

// told is a request of one user turn whose system prompt states
// instructions (none when instructions is ""), offering tools.
func told(instructions, text string, tools ...llm.Tool) standin.Request {
	return standin.Request{Model: "m", Tools: tools, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: strings.TrimSpace("You are an assistant. Today is 2026-11-25.\n" + instructions)},
		{Role: llm.RoleUser, Content: text},
	}}
}

// firstCall is the name of the tool r's answer calls first, or "".
func firstCall(r standin.Request) string {
	GinkgoHelper()
	names, _ := calls(answer(r))
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// resultText is the text answer to r after its first call returned result.
func resultText(r standin.Request, result string) string {
	GinkgoHelper()
	call := answer(r)
	Expect(call.ToolCalls).To(HaveLen(1), "%+v", call)
	msg := answer(after(r, call, result))
	Expect(msg.ToolCalls).To(BeEmpty())
	return msg.Content
}

const offer = "Let me know if there is anything else I can help you with."

var _ = Describe("the generic policy reads what it is told", func() {
	weatherAndGeocode := []llm.Tool{weatherTool, geocodeTool}

	DescribeTable("ordering: the tool a stated ordering puts first is called first; without it, the tool that fits",
		func(instruction string) {
			Expect(firstCall(told(instruction, "Weather in Oslo", weatherAndGeocode...))).To(Equal("geocode"))
			Expect(firstCall(told("", "Weather in Oslo", weatherAndGeocode...))).To(Equal("get_weather"))
		},
		Entry("call-first", "Always call geocode first."),
		Entry("only-after", "Call get_weather only after geocode."),
		Entry("before", "Call geocode before get_weather."),
		Entry("then", "Use geocode, then get_weather."),
		Entry("numbered steps", "1. Call geocode with the place.\n2. Call get_weather."),
	)

	It("reads an ordering from a tool's description too", func() {
		described := weatherTool
		described.Description += " Call geocode before get_weather."
		Expect(firstCall(told("", "Weather in Oslo", described, geocodeTool))).To(Equal("geocode"))
	})

	It("calls the tool asked for once its prerequisite answered, then answers", func() {
		r := told("Call geocode before get_weather.", "Weather in Oslo", weatherAndGeocode...)
		first := answer(r)
		r = after(r, first, `{"latitude": 59.9}`)
		second := answer(r)
		names, _ := calls(second)
		Expect(names).To(Equal([]string{"get_weather"}))
		r = after(r, second, `{"temperature": -3}`)
		Expect(answer(r).ToolCalls).To(BeEmpty())
	})

	It("does not call the prerequisite again when the conversation has called it", func() {
		r := told("Call geocode before get_weather.", "Weather in Oslo", weatherAndGeocode...)
		r = after(r, answer(r), `{"latitude": 59.9}`)
		r = after(r, answer(r), `{"temperature": -3}`)
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleAssistant, Content: "ok"}, llm.Message{Role: llm.RoleUser, Content: "and the weather in Lima?"})
		Expect(firstCall(r)).To(Equal("get_weather"))
	})

	DescribeTable("prohibitions and conditions on calling: a tool it may not call is not called",
		func(instruction, text, with, without string) {
			Expect(firstCall(told(instruction, text, weatherTool, stockTool))).To(Equal(with))
			Expect(firstCall(told("", text, weatherTool, stockTool))).To(Equal(without))
		},
		Entry("never call X", "Never call get_weather.", "Weather in Oslo", "", "get_weather"),
		Entry("do not use X", "Do not use `get_weather`.", "Weather in Oslo", "", "get_weather"),
		Entry("do not call X unless C, C unmet", "Do not call get_weather unless the user asks about rain.", "Weather in Oslo", "", "get_weather"),
		Entry("do not call X unless C, C met", "Do not call get_weather unless the user asks about rain.", "Weather in Oslo, will it rain?", "get_weather", "get_weather"),
		Entry("do not call X unless C, C sharing only a preposition with the question", "Do not call get_weather unless the user wants to ski.", "Weather to expect in Oslo", "", "get_weather"),
		Entry("call X only when C, C unmet", "Call get_weather only when the user asks about wind.", "Weather in Oslo", "", "get_weather"),
	)

	DescribeTable("routes: the tool a rule routes the question to; without the rule, the one that scores best",
		func(instruction, text, with, without string) {
			Expect(firstCall(told(instruction, text, nowTool, outlookTool))).To(Equal(with))
			Expect(firstCall(told("", text, nowTool, outlookTool))).To(Equal(without))
		},
		Entry("use X for C", "Use outlook for questions about tomorrow or the coming days.", "Conditions in Oslo tomorrow", "outlook", "current_conditions"),
		Entry("use X when C, a question that does not meet C", "Use outlook when the user asks about tomorrow.", "Conditions in Oslo now", "current_conditions", "current_conditions"),
		Entry("use A for C and B for D: D does not route to A", "Use current_conditions for questions about now and outlook for the coming days.", "Conditions in Oslo tomorrow", "current_conditions", "current_conditions"),
		Entry("the rule for the rest", "Use outlook for everything else.", "Tell me a joke", "outlook", ""),
	)

	Describe("what it may name or quote", func() {
		joke := func(instruction string) string {
			return answer(told(instruction, "Tell me a joke", weatherTool, stockTool)).Content
		}

		It("does not list a tool it may not name when it answers plainly", func() {
			Expect(joke("Never name or mention stock_price.")).To(Equal("I did not need a tool for that. I can use: get_weather. " + offer))
			Expect(joke("")).To(ContainSubstring("get_weather, stock_price"))
			Expect(joke("Never reveal get_weather or stock_price.")).To(Equal("I did not need a tool for that. " + offer))
		})

		It("does not name the tool it called when it may not", func() {
			result := `{"temperature": -3}`
			Expect(resultText(told("Never mention get_weather.", "Weather in Oslo", weatherTool), result)).To(And(
				HavePrefix("From a tool: temperature: -3."), Not(ContainSubstring("get_weather"))))
			Expect(resultText(told("", "Weather in Oslo", weatherTool), result)).To(HavePrefix("From get_weather: temperature: -3."))
		})

		DescribeTable("values",
			func(instruction, text, result, with, without string) {
				got := resultText(told(instruction, text, weatherTool), result)
				if with == "" {
					Expect(got).NotTo(ContainSubstring(without))
				} else {
					Expect(got).To(ContainSubstring(with))
				}
				Expect(resultText(told("", text, weatherTool), result)).To(ContainSubstring(without))
			},
			Entry("never show X: the value left out", "Never show the latitude.", "Weather in Oslo", `{"latitude": 59.9, "temperature": -3}`, "", "latitude: 59.9"),
			Entry(`mention "X" only when C, C unmet: left out`, `Mention "wind" only when the user asks about wind.`, "Weather in Oslo", `{"temperature": -3, "wind": 14}`, "", "wind: 14"),
			Entry(`mention "X" only when C, C met: quoted`, `Mention "wind" only when the user asks about wind.`, "Weather and wind in Oslo", `{"temperature": -3, "wind": 14}`, "wind: 14", "wind: 14"),
			Entry("format X like EX: the example's decimals and unit", `Format temperatures like "3.20 °C".`, "Weather in Oslo",
				`{"current_units": {"temperature_2m": "°C"}, "current": {"temperature_2m": -3.5}}`, "temperature_2m: -3.50 °C", "temperature_2m: -3.5 °C"),
			Entry("format X like EX, a bare value: the example's suffix", `Format temperatures like "77.1°F".`, "Weather in Oslo", `{"temperature": 41}`, "temperature: 41.0°F", "temperature: 41."),
			Entry("format X like EX in another unit: not converted, left as it is", `Format temperatures like "77.1°F".`, "Weather in Oslo",
				`{"current_units": {"temperature_2m": "°C"}, "current": {"temperature_2m": -3.5}}`, "temperature_2m: -3.5 °C", "temperature_2m: -3.5 °C"),
		)
	})

	Describe("its prose", func() {
		two := func(instruction string) string {
			r := told(instruction, "weather in Oslo and Lima", weatherTool)
			return answer(after(r, answer(r), `{"t": 1}`, `{"t": 2}`)).Content
		}

		DescribeTable("sentence limits: the first sentences it allows; without one, every sentence and the closing offer",
			func(instruction, want string) {
				Expect(two(instruction)).To(Equal(want))
				Expect(two("")).To(Equal("From get_weather: t: 1. From get_weather: t: 2. " + offer))
			},
			Entry("in one sentence", "Answer in one sentence.", "From get_weather: t: 1."),
			Entry("in one to two sentences", "Reply in one to two sentences.", "From get_weather: t: 1. From get_weather: t: 2."),
		)

		DescribeTable("language: its sentences in the language it is told, the values as they are; without it, English",
			func(instruction, text, want string) {
				Expect(answer(told(instruction, text, weatherTool)).Content).To(Equal(want))
				Expect(answer(told("", text, weatherTool)).Content).To(Equal("I did not need a tool for that. I can use: get_weather. " + offer))
			},
			Entry("a named language", "Answer in Spanish.", "Tell me a joke",
				"No necesité ninguna herramienta para eso. Puedo usar: get_weather. Dime si puedo ayudarte en algo más."),
			Entry("the user's language", "Reply in the user's language.", "給我講個笑話",
				"這個問題不需要使用工具。我可以使用：get_weather。如果還有其他需要幫忙的地方，請告訴我。"),
		)

		It("quotes a tool's result in the language it is told, the values as the tool gave them", func() {
			r := told("Answer in French.", "weather in Oslo", weatherTool)
			Expect(answer(after(r, answer(r), `{"t": 1}`)).Content).To(HavePrefix("D'après get_weather : t: 1."))
		})
	})

	DescribeTable("JSON shape: a text answer is the object the prompt requires, in its order; without it, prose",
		func(instruction, want string) {
			Expect(answer(told(instruction, "Tell me a joke", weatherTool)).Content).To(Equal(want))
			Expect(json.Valid([]byte(answer(told("", "Tell me a joke", weatherTool)).Content))).To(BeFalse())
		},
		Entry("fields with listed values: the first", `Reply with one JSON object: {"kind": "tool" | "plain", "text": "..."}.`,
			`{"kind":"tool","text":"I did not need a tool for that. I can use: get_weather. `+offer+`"}`),
		Entry("a stated default", "Reply with a JSON object {\"text\": \"...\", \"kind\": \"tool\" | \"plain\"}.\nkind defaults to \"plain\".",
			`{"text":"I did not need a tool for that. I can use: get_weather. `+offer+`","kind":"plain"}`),
	)

	It("reads a JSON shape a tool's description states as that tool's, not the answer's", func() {
		// LlamaIndex.TS's structured output offers such a tool; its
		// description made every text answer "{}".
		format := tool("format_output", "Respond with a JSON object",
			`{"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}`)
		Expect(answer(told("", "Tell me a joke", weatherTool, format)).Content).To(Equal(
			"I did not need a tool for that. I can use: get_weather, format_output. " + offer))
	})
})
