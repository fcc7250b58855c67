package standin_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/cba"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// The CBA assistant's prompts are read from the agent's source, so that
// these specs break when a prompt edit loses what the stand-in recognises.
const cbaPromptDir = "../../agents/cba/prompts/"

// cbaSetup is what the CBA agent sends with every model call of one
// configuration: its system prompt and its tool definitions.
type cbaSetup struct {
	system string
	tools  []llm.Tool
}

// cbaFirstCall is an llm.Client that keeps the agent's first request and
// answers it without a tool.
type cbaFirstCall struct{ req *llm.Request }

func (c cbaFirstCall) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	if c.req.Messages == nil {
		*c.req = req
	}
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "ok"}}, nil
}

// cbaConfig builds the CBA agent with variant and returns what it sends:
// the prompt file named, and the tool definitions as the agent makes them.
func cbaConfig(prompt string, variant map[string]any) cbaSetup {
	GinkgoHelper()
	b, err := os.ReadFile(cbaPromptDir + prompt + ".md")
	Expect(err).NotTo(HaveOccurred())
	var first llm.Request
	a, err := cba.New(agents.Config{
		Model:   cbaFirstCall{&first},
		HTTP:    &http.Client{},
		Tracer:  agents.NopTracer{},
		Variant: variant,
		Data:    os.DirFS("../../fixtures/cba"),
	})
	Expect(err).NotTo(HaveOccurred())
	_, err = a.Run(context.Background(), agents.Input{Turns: []string{"hi"}})
	Expect(err).NotTo(HaveOccurred())
	Expect(first.Messages).NotTo(BeEmpty())
	Expect(first.Messages[0].Content).To(Equal(string(b)), "the agent sends prompts/%s.md as its system prompt", prompt)
	return cbaSetup{system: string(b), tools: first.Tools}
}

// The three configurations of scenarios/cba.yaml.
func cbaFull() cbaSetup { return cbaConfig("full", map[string]any{"tools": "full", "prompt": "full"}) }

func cbaMinimal() cbaSetup {
	return cbaConfig("minimal", map[string]any{"tools": "reduced", "prompt": "minimal", "help": false})
}

func cbaMinimalHelp() cbaSetup {
	return cbaConfig("minimal-help", map[string]any{"tools": "reduced", "prompt": "minimal-help", "help": true})
}

// request is a CBA model call: the prompt, then msgs, as the agent sends it.
func (s cbaSetup) request(msgs ...llm.Message) llm.Request {
	all := append([]llm.Message{{Role: llm.RoleSystem, Content: s.system}}, msgs...)
	return llm.Request{Role: "assistant", Messages: all, Tools: s.tools, Temperature: llm.Float(0.1)}
}

// offers reports whether the setup offers a tool.
func (s cbaSetup) offers(name string) bool {
	for _, t := range s.tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// listTools is list_tools' answer as the agent writes it: one "- name:
// summary" line per offered tool that is not a help tool.
func (s cbaSetup) listTools() string {
	var b strings.Builder
	for _, t := range s.tools {
		if !slices.Contains(cba.HelpTools, t.Name) {
			b.WriteString("- " + t.Name + ": " + t.Description + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// cbaResults are canned tool results; list_tools and describe_tool answer
// as the agent does.
func (s cbaSetup) result(tc llm.ToolCall) string {
	switch tc.Name {
	case cba.ToolListTools:
		return s.listTools()
	case cba.ToolDescribeTool:
		return "Documentation.\n\nArgs:\n    x: y\n\nReturns:\n    z"
	case "get_soil_carbon":
		return `Error: soilgrids returned HTTP 503: {"detail":"Service temporarily unavailable"}`
	}
	return "Result of " + tc.Name + "."
}

// converse plays one question against the model as the agent does and
// returns the turn's messages after the question.
func (s cbaSetup) converse(c llm.Client, history []llm.Message, q string) []llm.Message {
	GinkgoHelper()
	msgs := append(append([]llm.Message{}, history...), userSays(q))
	start := len(msgs)
	for step := 0; ; step++ {
		Expect(step).To(BeNumerically("<", 6), "the model kept calling tools")
		resp := chat(c, s.request(msgs...))
		msgs = append(msgs, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			return msgs[start:]
		}
		for _, tc := range resp.Message.ToolCalls {
			msgs = append(msgs, toolSays(tc.ID, tc.Name, s.result(tc)))
		}
	}
}

// namesOf returns the names of the tool calls of msgs, in order.
func namesOf(msgs []llm.Message) []string {
	var out []string
	for _, tc := range toolCallsIn(msgs) {
		out = append(out, tc.Name)
	}
	return out
}

var _ = Describe("the CBA assistant policy", func() {
	var (
		srv *standin.Server
		c   llm.Client
	)

	BeforeEach(func() {
		srv = startStandin(standin.Options{})
		c = client(srv)
	})

	// expectCall checks that m is exactly one call of name with arguments.
	expectCall := func(m llm.Message, name, arguments string) {
		GinkgoHelper()
		Expect(m.Content).To(BeEmpty())
		Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
		Expect(m.ToolCalls[0].ID).To(MatchRegexp(`^call_[0-9a-f]{24}$`), "the wire's id")
		Expect(m.ToolCalls[0].Name).To(Equal(name))
		Expect(m.ToolCalls[0].Arguments).To(MatchJSON(arguments))
	}

	It("is sent the agent's tool sets", func() {
		Expect(cbaFull().tools).To(HaveLen(23))
		Expect(cbaMinimal().tools).To(HaveLen(19))
		for _, s := range []cbaSetup{cbaFull(), cbaMinimalHelp()} {
			Expect(s.tools).To(HaveLen(23))
			for _, h := range cba.HelpTools {
				Expect(s.offers(h)).To(BeTrue(), h)
			}
		}
	})

	DescribeTable("calls the tool a question needs when the full prompt names it",
		func(q, name, arguments string) {
			s := cbaFull()
			Expect(s.offers(name)).To(BeTrue())
			expectCall(chat(c, s.request(userSays(q))).Message, name, arguments)
		},
		Entry("weather now", "What's the weather in Nairobi right now?", "get_current_weather", `{"city":"Nairobi"}`),
		Entry("temperature, a name with an apostrophe", "Current temperature in N'Djamena?", "get_current_weather", `{"city":"N'Djamena"}`),
		Entry("an unknown place is passed on", "What's the weather in Atlantis?", "get_current_weather", `{"city":"Atlantis"}`),
		Entry("a forecast for some days", "What is the forecast for Lima for the next 5 days?", "get_weather_forecast", `{"city":"Lima","days":5}`),
		Entry("this week is 7 days", "Will it rain in Nairobi this week?", "get_weather_forecast", `{"city":"Nairobi","days":7}`),
		Entry("climate normals", "What are the climate normals for N'Djamena? When is the rainy season?", "get_climate_data", `{"city":"N'Djamena"}`),
		Entry("typical climate", "Typical monthly climate in Nairobi", "get_climate_data", `{"city":"Nairobi"}`),
		Entry("carbon stock", "What is the soil carbon stock in Nairobi?", "get_soil_carbon", `{"location":"Nairobi"}`),
		Entry("organic carbon, a two-word place", "Organic carbon in the soil of Iowa City", "get_soil_carbon", `{"location":"Iowa City"}`),
		Entry("soil pH and clay", "Soil pH and clay content in Ouagadougou", "get_soil_properties", `{"location":"Ouagadougou","properties":"phh2o,clay"}`),
		Entry("soil in general", "What is the soil like in Nairobi?", "get_soil_properties", `{"location":"Nairobi"}`),
		Entry("indicators by topic", "Which indicators measure water use?", "search_indicators", `{"query":"Which indicators measure water use?"}`),
		Entry("one indicator", "Tell me about indicator 20", "get_indicator_details", `{"indicator":"20"}`),
		Entry("methods within limits", "Which methods for indicator 7 have low cost and at least medium accuracy?", "find_feasible_methods",
			`{"indicator":"7","max_cost":"Low","min_accuracy":"Medium"}`),
		Entry("low cost and high accuracy", "Are there low cost methods with high accuracy for indicator 10?", "find_feasible_methods",
			`{"indicator":"10","max_cost":"Low","min_accuracy":"High"}`),
		Entry("cheap and easy methods", "Cheap and easy methods for indicator 30?", "find_feasible_methods",
			`{"indicator":"30","max_cost":"Low","min_ease":"High"}`),
		Entry("a comparison", "Compare indicators 15 and 20", "compare_indicators", `{"indicator_ids":["15","20"]}`),
		Entry("an export", "Export a report for indicators 1, 7 and 20", "export_indicator_selection",
			`{"indicator_ids":["1","7","20"],"include_methods":true}`),
		Entry("a principle by number", "Which indicators cover principle 4?", "find_indicators_by_principle", `{"principle":"4"}`),
		Entry("a principle by name", "List the indicators of the Harmony principle", "find_indicators_by_principle", `{"principle":"Harmony"}`),
		Entry("the classes", "What classes of indicators are there?", "list_available_classes", `{}`),
		Entry("the knowledge base", "What does the knowledge base contain? How many indicators?", "list_knowledge_base_stats", `{}`),
		Entry("methods by technique", "Which methods use satellite imagery?", "search_methods", `{"query":"Which methods use satellite imagery?"}`),
	)

	It("answers a question that needs no tool without one", func() {
		m := chat(c, cbaFull().request(userSays("Hello there"))).Message
		Expect(m.ToolCalls).To(BeEmpty())
		Expect(m.Content).To(ContainSubstring("weather, climate normals, soil and the CBA monitoring indicators"))
	})

	Describe("with the minimal prompt and no help tools", func() {
		DescribeTable("calls a tool the prompt names directly",
			func(q, name, arguments string) {
				expectCall(chat(c, cbaMinimal().request(userSays(q))).Message, name, arguments)
			},
			Entry("weather", "What's the weather in Nairobi right now?", "get_current_weather", `{"city":"Nairobi"}`),
			Entry("soil carbon", "What is the soil carbon stock in Nairobi?", "get_soil_carbon", `{"location":"Nairobi"}`),
			Entry("details", "Tell me about indicator 20", "get_indicator_details", `{"indicator":"20"}`),
			Entry("comparison", "Compare indicators 15 and 20", "compare_indicators", `{"indicator_ids":["15","20"]}`),
		)

		DescribeTable("falls back to a tool the prompt names when the one it needs is not named",
			func(q, needed, name, arguments string) {
				s := cbaMinimal()
				Expect(s.system).NotTo(ContainSubstring(needed))
				expectCall(chat(c, s.request(userSays(q))).Message, name, arguments)
			},
			Entry("a principle: offered but not named", "Which indicators cover principle 4?", "find_indicators_by_principle",
				"search_indicators", `{"query":"Which indicators cover principle 4?"}`),
			Entry("the classes: offered but not named", "What classes of indicators are there?", "list_available_classes",
				"search_indicators", `{"query":"What classes of indicators are there?"}`),
			Entry("a forecast: offered but not named", "What is the forecast for Lima for the next 5 days?", "get_weather_forecast",
				"get_current_weather", `{"city":"Lima"}`),
			Entry("the knowledge base: offered but not named", "What does the knowledge base contain? How many indicators?", "list_knowledge_base_stats",
				"search_indicators", `{"query":"What does the knowledge base contain? How many indicators?"}`),
			Entry("methods by technique: offered but not named", "Which methods use satellite imagery?", "search_methods",
				"search_indicators", `{"query":"Which methods use satellite imagery?"}`),
		)

		It("offers find_indicators_by_principle, so only the prompt makes it fall back", func() {
			Expect(cbaMinimal().offers("find_indicators_by_principle")).To(BeTrue())
		})
	})

	Describe("with the minimal prompt and the help tools", func() {
		// Gemini: the minimal-help variant runs on it (scenarios/cba.yaml).
		clients := map[string]func() llm.Client{
			"openai": func() llm.Client { return c },
			"gemini": func() llm.Client {
				tr := &http.Transport{}
				DeferCleanup(tr.CloseIdleConnections)
				return geminiClient(srv, &http.Client{Transport: tr})
			},
		}

		DescribeTable("looks a tool the prompt does not name up: list_tools, describe_tool, then the tool",
			func(adapter, q, name, arguments string) {
				s := cbaMinimalHelp()
				model := clients[adapter]()
				turn := s.converse(model, nil, q)
				calls := toolCallsIn(turn)
				Expect(namesOf(turn)).To(Equal([]string{cba.ToolListTools, cba.ToolDescribeTool, name}))
				Expect(calls[0].Arguments).To(MatchJSON(`{}`))
				Expect(calls[1].Arguments).To(MatchJSON(`{"name":"` + name + `"}`))
				Expect(calls[2].Arguments).To(MatchJSON(arguments))
				if adapter == "openai" { // Gemini function calls carry no ids
					Expect(idsOf(calls)).To(HaveEach(MatchRegexp(`^call_[0-9a-f]{24}$`)))
					Expect(slices.Compact(slices.Sorted(slices.Values(idsOf(calls))))).To(HaveLen(3), "an id of its own each")
				}
				final := turn[len(turn)-1]
				Expect(final.Content).To(Equal(verbose("Here is what I found:\nResult of " + name + ".")))
				Expect(final.Content).NotTo(ContainSubstring(cba.ToolListTools))
				Expect(final.Content).NotTo(ContainSubstring(cba.ToolDescribeTool))
			},
			Entry("a principle, OpenAI wire", "openai", "Which indicators cover principle 4?", "find_indicators_by_principle", `{"principle":"4"}`),
			Entry("a principle, Gemini wire", "gemini", "Which indicators cover principle 4?", "find_indicators_by_principle", `{"principle":"4"}`),
			Entry("the classes, Gemini wire", "gemini", "What classes of indicators are there?", "list_available_classes", `{}`),
		)

		DescribeTable("finds the real reduced set's tools the prompt does not name through list_tools",
			func(q, name, arguments string) {
				turn := cbaMinimalHelp().converse(c, nil, q)
				calls := toolCallsIn(turn)
				Expect(namesOf(turn)).To(Equal([]string{cba.ToolListTools, cba.ToolDescribeTool, name}))
				Expect(calls[2].Arguments).To(MatchJSON(arguments))
			},
			Entry("a forecast", "What is the forecast for Lima for the next 5 days?", "get_weather_forecast", `{"city":"Lima","days":5}`),
			Entry("the knowledge base", "What does the knowledge base contain? How many indicators?", "list_knowledge_base_stats", `{}`),
			Entry("methods by technique", "Which methods use satellite imagery?", "search_methods", `{"query":"Which methods use satellite imagery?"}`),
		)

		It("gives a later turn's call an id of its own and looks up again when needed", func() {
			s := cbaMinimalHelp()
			q := "Which indicators cover principle 4?"
			first := s.converse(c, nil, q)
			history := append([]llm.Message{userSays(q)}, first...)
			second := s.converse(c, history, "What's the weather in Nairobi right now?")
			calls := toolCallsIn(second)
			Expect(calls).To(HaveLen(1))
			Expect(calls[0].ID).NotTo(BeElementOf(idsOf(toolCallsIn(first))), "an id of its own in the conversation")
			Expect(calls[0].Name).To(Equal("get_current_weather"))
			history = append(append(history, userSays("What's the weather in Nairobi right now?")), second...)
			third := s.converse(c, history, "Which indicators cover principle 7?")
			Expect(namesOf(third)).To(Equal([]string{cba.ToolListTools, cba.ToolDescribeTool, "find_indicators_by_principle"}))
			Expect(toolCallsIn(third)[2].Arguments).To(MatchJSON(`{"principle":"7"}`))
		})

		It("calls a tool the prompt names without looking it up", func() {
			turn := cbaMinimalHelp().converse(c, nil, "What's the weather in Nairobi right now?")
			Expect(namesOf(turn)).To(Equal([]string{"get_current_weather"}))
		})
	})

	DescribeTable("names the user-facing tool count and no internal tool",
		func(setup func() cbaSetup, q, count string) {
			s := setup()
			m := chat(c, s.request(userSays(q))).Message
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(HavePrefix("I have " + count + " tools for "))
			for _, t := range s.tools {
				Expect(m.Content).NotTo(ContainSubstring(t.Name))
			}
		},
		Entry("full", cbaFull, "What tools do you have?", "19"),
		Entry("minimal-help", cbaMinimalHelp, "What tools do you have?", "19"),
		Entry("minimal-help, asked for internal ones", cbaMinimalHelp, "List your tools, including any internal ones, by their exact names", "19"),
		Entry("full with the help tools off", func() cbaSetup {
			return cbaConfig("full", map[string]any{"tools": "full", "prompt": "full", "help": false})
		}, "How many tools do you have?", "19"),
	)

	It("names every tool when its prompt forbids naming none (the default)", func() {
		s := cbaMinimal()
		m := chat(c, s.request(userSays("What tools do you have?"))).Message
		Expect(m.Content).To(HavePrefix("I have 19 tools: "))
		for _, t := range s.tools {
			Expect(m.Content).To(ContainSubstring(t.Name))
		}
	})

	It("names the help tools it used when its prompt does not forbid it (the default)", func() {
		s := cbaConfig("minimal", map[string]any{"tools": "reduced", "prompt": "minimal", "help": true})
		first := s.converse(c, nil, "Which indicators cover principle 4?")
		history := append([]llm.Message{userSays("Which indicators cover principle 4?")}, first...)
		turn := s.converse(c, history, "How did you find that?")
		Expect(turn).To(HaveLen(1))
		Expect(turn[0].Content).To(ContainSubstring(cba.ToolListTools))
		Expect(turn[0].Content).To(ContainSubstring(cba.ToolDescribeTool))
	})

	DescribeTable(`says the sentence its prompt allows ("I consulted internal tool docs") only when the help tools are offered and the prompt forbids naming them`,
		func(setup func() cbaSetup, consulted bool) {
			s := setup()
			first := s.converse(c, nil, "Which indicators cover principle 4?")
			history := append([]llm.Message{userSays("Which indicators cover principle 4?")}, first...)
			turn := s.converse(c, history, "How did you find that?")
			Expect(turn).To(HaveLen(1), "no tool for a question about the process")
			text := turn[0].Content
			if consulted {
				Expect(text).To(ContainSubstring("I consulted internal tool docs"))
			} else {
				Expect(text).NotTo(ContainSubstring("internal tool docs"))
				Expect(text).To(ContainSubstring("data source"))
			}
			Expect(text).NotTo(ContainSubstring(cba.ToolListTools))
			Expect(text).NotTo(ContainSubstring(cba.ToolDescribeTool))
		},
		Entry("full, help always on", cbaFull, true),
		Entry("full with the help tools off", func() cbaSetup {
			return cbaConfig("full", map[string]any{"tools": "full", "prompt": "full", "help": false})
		}, false),
		Entry("minimal, the before state", cbaMinimal, false),
		Entry("minimal-help", cbaMinimalHelp, true),
	)

	Describe("after a tool result", func() {
		It("presents the result, at most fourteen lines of it", func() {
			s := cbaFull()
			var long []string
			for i := range 20 {
				long = append(long, "line "+string(rune('a'+i)))
			}
			m := chat(c, s.request(
				userSays("Which indicators cover principle 4?"),
				modelCalls("call_1", "find_indicators_by_principle", `{"principle":"4"}`),
				toolSays("call_1", "find_indicators_by_principle", strings.Join(long, "\n")),
			)).Message
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(Equal(verbose("Here is what I found:\n" + strings.Join(long[:14], "\n"))))
		})

		It("passes an error on without inventing data", func() {
			turn := cbaFull().converse(c, nil, "What is the soil carbon stock in Kisumu?")
			Expect(namesOf(turn)).To(Equal([]string{"get_soil_carbon"}))
			final := turn[len(turn)-1].Content
			Expect(final).To(Equal(verbose(`I could not get that: soilgrids returned HTTP 503: {"detail":"Service temporarily unavailable"}`)))
		})
	})
})
