package standin_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/standin/generic"
)

// weatherTool is a tool of an agent the stand-in has never seen.
var weatherTool = llm.Tool{Name: "get_weather", Description: "Current conditions and the forecast for a city.",
	Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}, "date": {"type": "string", "format": "date"},
	"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city", "date", "units"]}`)}

var stockTool = llm.Tool{Name: "stock_price", Description: "The last traded price of a share.",
	Parameters: json.RawMessage(`{"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]}`)}

// ask is a request of one user turn, with a system prompt that gives the
// date, offering tools.
func ask(text string, tools ...llm.Tool) standin.Request {
	return standin.Request{Model: "m", Tools: tools, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a helpful assistant. Today is 2026-11-25."},
		{Role: llm.RoleUser, Content: text},
	}}
}

// answer is the generic policy's answer to r.
func answer(r standin.Request) llm.Message {
	GinkgoHelper()
	msg, _, err := generic.New().Decide(r)
	Expect(err).NotTo(HaveOccurred())
	Expect(msg.Role).To(Equal(llm.RoleAssistant))
	return msg
}

// calls returns the names and decoded arguments of msg's tool calls.
func calls(msg llm.Message) ([]string, []map[string]any) {
	GinkgoHelper()
	var names []string
	var args []map[string]any
	for _, c := range msg.ToolCalls {
		var a map[string]any
		Expect(json.Unmarshal(c.Arguments, &a)).To(Succeed(), "arguments %s", c.Arguments)
		names, args = append(names, c.Name), append(args, a)
	}
	return names, args
}

// after is r with the assistant's calls and the tools' results appended.
func after(r standin.Request, call llm.Message, results ...string) standin.Request {
	r.Messages = append(r.Messages, call)
	for i, c := range call.ToolCalls {
		r.Messages = append(r.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: results[i]})
	}
	return r
}

func tool(name, desc, params string) llm.Tool {
	return llm.Tool{Name: name, Description: desc, Parameters: json.RawMessage(params)}
}

var _ = Describe("the generic policy", func() {
	It("accepts any request and is the last policy the server asks", func() {
		Expect(generic.New().Accepts(standin.Request{})).To(BeTrue())
		ps := standin.Policies()
		Expect(ps[len(ps)-1].Name()).To(Equal(standin.GenericName))
		for _, p := range ps[:len(ps)-1] {
			Expect(p.Name()).NotTo(Equal(standin.GenericName))
		}
	})

	DescribeTable("choosing a tool",
		func(text string, tools []llm.Tool, want string) {
			names, _ := calls(answer(ask(text, tools...)))
			if want == "" {
				Expect(names).To(BeEmpty())
			} else {
				Expect(names).To(Equal([]string{want}))
			}
		},
		Entry("a word of the tool's name scores 3", "What is the weather in Oslo?", []llm.Tool{stockTool, weatherTool}, "get_weather"),
		Entry("the lexicon maps synonyms in other languages (German)", "Wie wird das Wetter in Wien?", []llm.Tool{stockTool, weatherTool}, "get_weather"),
		Entry("the lexicon's Han words are found without spaces", "台北的天氣如何", []llm.Tool{stockTool, weatherTool}, "get_weather"),
		Entry("a parameter's name scores 2", "the isbn 978-3 please", []llm.Tool{weatherTool,
			tool("catalog", "", `{"type": "object", "properties": {"isbn": {"type": "string"}}}`)}, "catalog"),
		Entry("words are stemmed (invoices: invoice)", "Any open invoices for Acme?", []llm.Tool{weatherTool,
			tool("fetch_invoice", "Reads one bill.", `{"type": "object", "properties": {"customer": {"type": "string"}}, "required": ["customer"]}`)}, "fetch_invoice"),
		Entry("identifiers split at camelCase humps", "Post a message to the team", []llm.Tool{weatherTool,
			tool("sendMessage", "Posts text.", `{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}`)}, "sendMessage"),
		Entry("the first tool wins a tie", "weather please", []llm.Tool{tool("weather_now", "", `{}`), tool("weather_later", "", `{}`)}, "weather_now"),
		Entry("two words of a description score 2", "Tell me about the share price", []llm.Tool{
			tool("lookup", "Finds a share price by ticker symbol.", `{"type": "object", "properties": {"symbol": {"type": "string"}}}`)}, "lookup"),
		Entry("one word of a description alone (score 1) is not enough", "Tell me about the share", []llm.Tool{
			tool("lookup", "Finds a share price by ticker symbol.", `{"type": "object", "properties": {"symbol": {"type": "string"}}}`)}, ""),
		Entry("below the least score it answers without a tool", "Tell me a joke", []llm.Tool{weatherTool, stockTool}, ""),
		Entry("stop words never count", "What is the of and?", []llm.Tool{tool("the_what", "is of and", `{}`)}, ""),
	)

	DescribeTable("filling arguments",
		func(text string, t llm.Tool, want map[string]any) {
			_, args := calls(answer(ask(text, t)))
			Expect(args).To(HaveLen(1))
			Expect(args[0]).To(Equal(want))
		},
		Entry("a place is the capitalised span after a preposition; a date with no date word is the request's",
			"What's the weather in New York?", weatherTool, map[string]any{"city": "New York", "date": "2026-11-25", "units": "celsius"}),
		Entry("an enum takes the value the text mentions",
			"Weather in Lima in Fahrenheit", weatherTool, map[string]any{"city": "Lima", "date": "2026-11-25", "units": "fahrenheit"}),
		Entry("relative day words count from the request's date",
			"Will it be cold in Oslo tomorrow? Give me the weather", weatherTool, map[string]any{"city": "Oslo", "date": "2026-11-26", "units": "celsius"}),
		Entry("relative day words in other languages", "Le temps à Lyon hier, météo", weatherTool, map[string]any{"city": "Lyon", "date": "2026-11-24", "units": "celsius"}),
		Entry("an ISO date in the text wins", "weather for Rome on 2026-12-31", weatherTool, map[string]any{"city": "Rome", "date": "2026-12-31", "units": "celsius"}),
		Entry("Han text: the run before the first lexicon word, without day words", "東京明天的天氣", weatherTool, map[string]any{"city": "東京", "date": "2026-11-26", "units": "celsius"}),
		Entry("a string with nothing better takes quoted text",
			`Translate "good night" to German`, tool("translate", "", `{"type": "object", "required": ["text", "target"],
			"properties": {"text": {"type": "string"}, "target": {"type": "string", "enum": ["english", "german"], "default": "english"}}}`),
			map[string]any{"text": "good night", "target": "german"}),
		Entry("else the whole text", "search for cheap flights", tool("search", "", `{"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}}}`),
			map[string]any{"q": "search for cheap flights"}),
		Entry("a string with a pattern takes the first stretch of the text the pattern matches, its anchors aside",
			"Where is my order BK-2291? It was due Monday", tool("lookup_order", "", `{"type": "object", "required": ["order_id"],
			"properties": {"order_id": {"type": "string", "pattern": "^BK-[0-9]{4}$"}}}`),
			map[string]any{"order_id": "BK-2291"}),
		Entry("before quoted text the pattern does not match",
			`Refund "the blue one" from order bk-7710`, tool("refund", "", `{"type": "object", "required": ["order_id"],
			"properties": {"order_id": {"type": "string", "pattern": "(?i)^bk-\\d{4}$"}}}`),
			map[string]any{"order_id": "bk-7710"}),
		Entry("a pattern nothing matches, or Go cannot read, leaves the rest as it was",
			`Find "Dune" in the catalogue`, tool("find", "", `{"type": "object", "required": ["isbn", "title"],
			"properties": {"isbn": {"type": "string", "pattern": "^97[89][0-9]{10}$"}, "title": {"type": "string", "pattern": "^(?=D)\\w+$"}}}`),
			map[string]any{"isbn": "Dune", "title": "Dune"}),
		Entry("numbers in order, dates and clock times left out, integers rounded",
			"calculate 12.5 and 3.6 on 2026-01-02 at 10:30", tool("calculate", "", `{"type": "object", "required": ["a", "b"],
			"properties": {"a": {"type": "number"}, "b": {"type": "integer"}}}`), map[string]any{"a": 12.5, "b": float64(4)}),
		Entry("numbers stay within minimum and maximum; with none left, the default, the minimum or 0",
			"calculate 99", tool("calculate", "", `{"type": "object", "required": ["a", "b", "c", "d"],
			"properties": {"a": {"type": "integer", "maximum": 10}, "b": {"type": "integer", "default": 5}, "c": {"type": "number", "minimum": 2}, "d": {"type": "number"}}}`),
			map[string]any{"a": float64(10), "b": float64(5), "c": float64(2), "d": float64(0)}),
		Entry("an enum nobody mentions: the default if it is one, else the first",
			"weather Paris", tool("weather", "", `{"type": "object", "required": ["u", "v"], "properties": {"u": {"enum": ["c", "f"], "default": "f"}, "v": {"enum": ["x", "y"], "default": "z"}}}`),
			map[string]any{"u": "f", "v": "x"}),
		Entry("booleans are false unless their default says", "weather now", tool("weather", "", `{"type": "object", "required": ["a", "b"],
			"properties": {"a": {"type": "boolean"}, "b": {"type": "boolean", "default": true}}}`), map[string]any{"a": false, "b": true}),
		Entry("only required properties are filled", "weather in Kyiv", tool("weather", "", `{"type": "object", "required": ["city"],
			"properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}`), map[string]any{"city": "Kyiv"}),
		Entry("date-time format", "weather in Kyiv", tool("weather", "", `{"type": "object", "required": ["at"], "properties": {"at": {"type": "string", "format": "date-time"}}}`),
			map[string]any{"at": "2026-11-25T00:00:00Z"}),
	)

	It("leaves out a required date that neither the text nor the request gives", func() {
		r := ask("weather in Kyiv", weatherTool)
		r.Messages[0].Content = "You are a helpful assistant."
		_, args := calls(answer(r))
		Expect(args).To(Equal([]map[string]any{{"city": "Kyiv", "units": "celsius"}}))
	})

	Describe("parallel calls", func() {
		It("calls the tool once per listed place, with fresh ids", func() {
			r := ask("Compare the weather in Paris, Berlin and Rome", weatherTool)
			r.Messages = append(r.Messages[:1], llm.Message{Role: llm.RoleUser, Content: "hi"},
				llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{}`)}}},
				llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: "{}"}, r.Messages[1])
			msg := answer(r)
			names, args := calls(msg)
			Expect(names).To(Equal([]string{"get_weather", "get_weather", "get_weather"}))
			Expect([]any{args[0]["city"], args[1]["city"], args[2]["city"]}).To(Equal([]any{"Paris", "Berlin", "Rome"}))
			Expect([]string{msg.ToolCalls[0].ID, msg.ToolCalls[1].ID, msg.ToolCalls[2].ID}).To(Equal([]string{"call_2", "call_3", "call_4"}))
		})

		DescribeTable("calls once when the text does not clearly ask for several",
			func(text string, t llm.Tool) {
				Expect(answer(ask(text, t)).ToolCalls).To(HaveLen(1))
			},
			Entry("places not joined by a conjunction", "Weather in Paris. Berlin is nice too", weatherTool),
			Entry("a tool that wants no place", "Price of ACME and Globex stock", stockTool),
		)

		It("calls at most four times", func() {
			Expect(answer(ask("weather in Oslo, Bergen, Lima, Quito and Cusco", weatherTool)).ToolCalls).To(HaveLen(4))
		})
	})

	Describe("answering from tool results", func() {
		DescribeTable("one round: quotes each result in text",
			func(result string, want []string) {
				r := ask("What's the weather and temperature in Oslo?", weatherTool)
				msg := answer(after(r, answer(r), result))
				Expect(msg.ToolCalls).To(BeEmpty())
				for _, w := range want {
					Expect(msg.Content).To(ContainSubstring(w))
				}
			},
			Entry("JSON values, those sharing more terms with the user's words and the tool first, the first item of arrays",
				`{"latitude": 59.9, "current": {"time": "2026-11-25T10:00", "temperature_2m": -3.5}, "hourly": {"wind": [4, 9]}}`,
				[]string{"From get_weather: current.temperature_2m: -3.5; current.time: 2026-11-25T10:00; latitude: 59.9; hourly.wind: 4."}),
			Entry("at most six values", `{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7}`, []string{"From get_weather: a: 1; b: 2; c: 3; d: 4; e: 5; f: 6."}),
			Entry("units objects append their units", `{"current_units": {"temperature_2m": "°C"}, "current": {"temperature_2m": -3.5}, "units": {"wind": "km/h"}, "wind": 4}`,
				[]string{"From get_weather: current.temperature_2m: -3.5 °C; wind: 4 km/h."}),
			Entry("an error object", `{"error": true, "reason": "No place called Oslo"}`, []string{"get_weather failed: No place called Oslo"}),
			Entry("an error message", `{"error": {"message": "quota exceeded"}}`, []string{"get_weather failed: quota exceeded"}),
			Entry("an error text", `Error: upstream returned 503`, []string{"get_weather failed: Error: upstream returned 503"}),
			Entry("plain text", `Cold and clear.`, []string{"From get_weather: Cold and clear."}),
			Entry("nothing", ``, []string{"get_weather returned nothing."}),
		)

		It("quotes every result of a parallel round", func() {
			r := ask("weather in Oslo and Lima", weatherTool)
			msg := answer(after(r, answer(r), `{"t": 1}`, `{"t": 2}`))
			Expect(msg.Content).To(Equal("From get_weather: t: 1. From get_weather: t: 2. Let me know if there is anything else I can help you with."))
		})

		It("calls again for a new user message after a round", func() {
			r := ask("weather in Oslo", weatherTool)
			r = after(r, answer(r), `{"t": 1}`)
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleAssistant, Content: "ok"}, llm.Message{Role: llm.RoleUser, Content: "and the weather in Lima?"})
			msg := answer(r)
			Expect(msg.ToolCalls).To(HaveLen(1))
			Expect(msg.ToolCalls[0].ID).To(Equal("call_2"))
		})
	})

	// Without a limit in sentences, a text answer ends with the closing
	// offer of more help (the sentences form's default).
	DescribeTable("answering plainly",
		func(r standin.Request, want string) {
			Expect(answer(r)).To(Equal(llm.Message{Role: llm.RoleAssistant, Content: want}))
		},
		Entry("no tools: echoes the message", ask("Hello there"), `You said: "Hello there". I have no tools, so this is all I can answer. Let me know if there is anything else I can help you with.`),
		Entry("no tool that fits: names its tools", ask("Tell me a joke", weatherTool, stockTool), "I did not need a tool for that. I can use: get_weather, stock_price. Let me know if there is anything else I can help you with."),
	)

	Describe("JSON mode", func() {
		It("answers a JSON object carrying the text", func() {
			r := ask("Hello there")
			r.Output = llm.OutputJSON
			Expect(answer(r).Content).To(MatchJSON(`{"answer": "You said: \"Hello there\". I have no tools, so this is all I can answer."}`))
		})

		It("fills a response schema's every property, strings with the text", func() {
			r := ask("Rate Oslo from 1 to 5")
			r.Output, r.Schema = llm.OutputJSON, json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}, "score": {"type": "integer"},
				"summary": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}}`)
			Expect(answer(r).Content).To(MatchJSON(`{"city": "Oslo", "score": 1, "summary": "You said: \"Rate Oslo from 1 to 5\". I have no tools, so this is all I can answer.", "tags": ["a"]}`))
		})

		It("still calls a tool that fits", func() {
			r := ask("weather in Oslo", weatherTool)
			r.Output = llm.OutputJSON
			Expect(answer(r).ToolCalls).To(HaveLen(1))
		})
	})

	DescribeTable("odd schemas never make it fail",
		func(params string, want map[string]any) {
			_, args := calls(answer(ask("weather in Oslo", tool("weather", "", params))))
			Expect(args).To(Equal([]map[string]any{want}))
		},
		Entry("nested objects fill their own required properties", `{"type": "object", "required": ["where"], "properties": {"where": {"type": "object",
			"required": ["city", "geo"], "properties": {"city": {"type": "string"}, "geo": {"properties": {"lat": {"type": "number"}}, "required": ["lat"]}}}}}`,
			map[string]any{"where": map[string]any{"city": "Oslo", "geo": map[string]any{"lat": float64(0)}}}),
		Entry("arrays get one item", `{"type": "object", "required": ["cities"], "properties": {"cities": {"type": "array", "items": {"type": "string"}}}}`,
			map[string]any{"cities": []any{"Oslo"}}),
		Entry("arrays of tuples (items not an object) get one string", `{"type": "object", "required": ["p"], "properties": {"p": {"type": "array", "items": [{"type": "number"}]}}}`,
			map[string]any{"p": []any{"weather in Oslo"}}),
		Entry("anyOf takes the first alternative that is not null", `{"type": "object", "required": ["n"], "properties": {"n": {"anyOf": [{"type": "null"}, {"type": "integer", "default": 7}]}}}`,
			map[string]any{"n": float64(7)}),
		Entry("a list of types takes the first that is not null", `{"type": "object", "required": ["n"], "properties": {"n": {"type": ["null", "boolean"]}}}`,
			map[string]any{"n": false}),
		Entry("const", `{"type": "object", "required": ["v"], "properties": {"v": {"const": 2}}}`, map[string]any{"v": float64(2)}),
		Entry("no properties", `{"type": "object"}`, map[string]any{}),
		Entry("a required name without a property is a string", `{"type": "object", "required": ["city", 3]}`, map[string]any{"city": "Oslo"}),
		Entry("not an object", `[1, 2]`, map[string]any{}),
		Entry("not JSON", `{"type": `, map[string]any{}),
		Entry("null", `null`, map[string]any{}),
		Entry("Gemini's upper-case types", `{"type": "OBJECT", "required": ["city", "n"], "properties": {"city": {"type": "STRING"}, "n": {"type": "INTEGER"}}}`,
			map[string]any{"city": "Oslo", "n": float64(0)}),
		Entry("properties not an object", `{"properties": [1], "required": ["a"]}`, map[string]any{"a": "weather in Oslo"}),
	)

	It("bounds a deeply nested schema", func() {
		inner := `{"type": "string"}`
		for range 40 {
			inner = `{"type": "object", "required": ["x"], "properties": {"x": ` + inner + `}}`
		}
		_, args := calls(answer(ask("weather in Oslo", tool("weather", "", inner))))
		Expect(args).To(HaveLen(1))
		b, err := json.Marshal(args[0])
		Expect(err).NotTo(HaveOccurred())
		Expect(len(b)).To(BeNumerically("<", 200), "filled at most a few levels deep")
	})
})
