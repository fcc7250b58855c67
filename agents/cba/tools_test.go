package cba_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/cba"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/lint"
)

var _ = Describe("tool sets", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	// offered returns the tool definitions of the agent's first model call.
	offered := func(variant map[string]any) []llm.Tool {
		w.useModel(&fake{Next: func(int, llm.Request) llm.Message {
			return llm.Message{Role: llm.RoleAssistant, Content: "hello"}
		}})
		reply := ask(w.agent(variant), "hi")
		Expect(reply.Tools).To(BeEmpty())
		reqs := w.model.Requests()
		Expect(reqs).To(HaveLen(1))
		return reqs[0].Tools
	}

	DescribeTable("the model gets the active set, then the help tools when help is on",
		func(variant map[string]any, want []string, count int) {
			tools := offered(variant)
			Expect(toolNames(tools)).To(Equal(want))
			for _, t := range tools {
				Expect(json.Valid(t.Parameters)).To(BeTrue(), t.Name)
				Expect(t.Description).NotTo(BeEmpty(), t.Name)
				Expect(t.Description).NotTo(ContainSubstring("\n"), "%s: the schema carries the summary line only", t.Name)
			}
			Expect(w.agent(variant).ToolCount()).To(Equal(count))
		},
		Entry("the default is reduced with help", nil, withHelp(reducedTools), 19),
		Entry("reduced: help is always on", map[string]any{"tools": "reduced"}, withHelp(reducedTools), 19),
		Entry("full: help is always on", map[string]any{"tools": "full"}, withHelp(fullTools), 19),
		Entry("help off, the before state", map[string]any{"tools": "reduced", "help": false}, reducedTools, 19),
		Entry("minimal-help as the scenarios run it", cfgMinimalHelp, withHelp(reducedTools), 19),
	)

	It("reports the user-facing count in every reply, help tools not counted", func() {
		w.useModel(callOnce(cba.ToolListTools, `{}`))
		reply := ask(w.agent(cfgMinimalHelp), "What tools do you have?")
		Expect(reply.ToolCount).To(Equal(19))
		w.useModel(callOnce(cba.ToolListTools, `{}`))
		reply = ask(w.agent(cfgFull), "What tools do you have?")
		Expect(reply.ToolCount).To(Equal(19))
	})

	It("sends the system prompt, the tools and temperature 0.1 on every call of a turn", func() {
		w.useModel(calls(call("c1", cba.ToolListTools, `{}`), call("c2", cba.ToolDescribeTool, `{"name":"search_indicators"}`)))
		ask(w.agent(cfgMinimalHelp), "Which indicators cover principle 4?")
		reqs := w.model.Requests()
		Expect(reqs).To(HaveLen(3))
		for _, req := range reqs {
			Expect(req.Messages[0]).To(Equal(llm.Message{Role: llm.RoleSystem, Content: promptFile("minimal-help")}))
			Expect(toolNames(req.Tools)).To(Equal(withHelp(reducedTools)))
			Expect(req.Temperature).NotTo(BeNil())
			Expect(*req.Temperature).To(Equal(0.1))
		}
	})
})

var _ = Describe("the internal help tools", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	// listed runs list_tools on an agent built with variant.
	listed := func(variant map[string]any) string {
		r := w.tool(variant, cba.ToolListTools, `{}`)
		Expect(r.Err).NotTo(HaveOccurred())
		return r.Context
	}

	// summaries maps each offered non-help tool to its schema description.
	summaries := func(variant map[string]any) map[string]string {
		out := map[string]string{}
		for _, t := range w.model.Requests()[0].Tools {
			if !slices.Contains(helpTools, t.Name) {
				out[t.Name] = t.Description
			}
		}
		return out
	}

	DescribeTable("list_tools lists one \"- name: summary\" line per active tool, in order",
		func(variant map[string]any, want []string) {
			out := listed(variant)
			sum := summaries(variant)
			var expected []string
			for _, name := range want {
				Expect(sum).To(HaveKey(name))
				expected = append(expected, "- "+name+": "+sum[name])
			}
			Expect(lines(out)).To(Equal(expected))
			for _, h := range helpTools {
				Expect(out).NotTo(ContainSubstring(h))
			}
		},
		Entry("reduced: 19 lines", cfgMinimalHelp, reducedTools),
		Entry("full: 19 lines", cfgFull, fullTools),
	)

	It("gives each tool's first doc line as its summary", func() {
		out := listed(cfgMinimalHelp)
		Expect(out).To(ContainSubstring("- get_current_weather: Get the current weather for a city.\n"))
		Expect(out).To(ContainSubstring("- find_indicators_by_principle: List indicators that cover a CBA principle.\n"))
		Expect(out).To(HaveSuffix("- search_usecases: Search example projects (use cases) and the indicators selected for their outcomes."))
	})

	DescribeTable("describe_tool returns the full documentation of an active tool",
		func(variant map[string]any, name string, want ...string) {
			r := w.tool(variant, cba.ToolDescribeTool, `{"name":"`+name+`"}`)
			Expect(r.Err).NotTo(HaveOccurred())
			out := r.Context
			Expect(strings.SplitN(out, "\n", 2)[0]).To(Equal(summaries(variant)[name]))
			Expect(out).To(ContainSubstring("\n\nReturns:\n    "))
			for _, s := range want {
				Expect(out).To(ContainSubstring(s))
			}
		},
		Entry("get_current_weather", cfgMinimalHelp, "get_current_weather", "Args:\n    city: ", "weather"),
		Entry("get_soil_properties", cfgMinimalHelp, "get_soil_properties", "Args:\n    location: ", "    depth: 0-5cm, 5-15cm, 15-30cm, or 0-30cm"),
		Entry("find_feasible_methods", cfgMinimalHelp, "find_feasible_methods", "Args:\n    indicator: ", "    min_accuracy: "),
		Entry("find_indicators_by_principle", cfgMinimalHelp, "find_indicators_by_principle", "Args:\n    principle: "),
		Entry("a tool without arguments has Returns only", cfgMinimalHelp, "list_available_classes"),
		Entry("get_weather_forecast, in the real reduced set", cfgMinimalHelp, "get_weather_forecast", "Args:\n    city: ", "    days: "),
		Entry("search_usecases, in the real reduced set", cfgMinimalHelp, "search_usecases", "Args:\n    query: ", "    n_results: "),
	)

	It("says a tool without arguments has no Args section", func() {
		r := w.tool(cfgMinimalHelp, cba.ToolDescribeTool, `{"name":"list_available_classes"}`)
		Expect(r.Context).NotTo(ContainSubstring("Args:"))
	})

	DescribeTable("describe_tool answers an unknown or inactive tool as the seed does",
		func(variant map[string]any, arguments, name string) {
			r := w.tool(variant, cba.ToolDescribeTool, arguments)
			Expect(r.Err).NotTo(HaveOccurred())
			Expect(r.Context).To(Equal("Tool '" + name + "' not found. Use list_tools() to see available tools."))
		},
		Entry("a name no set has", cfgMinimalHelp, `{"name":"nonexistent_tool"}`, "nonexistent_tool"),
		Entry("a tool of the real full set this agent lacks", cfgMinimalHelp, `{"name":"get_historical_climate"}`, "get_historical_climate"),
		Entry("a help tool itself", cfgMinimalHelp, `{"name":"describe_tool"}`, "describe_tool"),
		Entry("no name", cfgMinimalHelp, `{}`, ""),
	)

	It("cannot be called when help is off", func() {
		r := w.tool(cfgMinimal, cba.ToolListTools, `{}`)
		Expect(r.Err).To(HaveOccurred())
		Expect(r.Context).To(Equal(`Error: unknown tool "list_tools".`))
	})
})

var _ = Describe("prompts and the lint", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	known := withHelp(fullTools)

	DescribeTable("PromptSets gives the prompt as sent and the tools the model has with it",
		func(variant map[string]any, name string, active []string) {
			a := w.agent(variant)
			sets := a.PromptSets()
			Expect(sets).To(HaveLen(1))
			Expect(sets[0].Name).To(Equal("prompts/" + name + ".md"))
			Expect(sets[0].Text).To(Equal(promptFile(name)))
			Expect(sets[0].Active).To(Equal(active))
			Expect(sets[0].Known).To(ConsistOf(known))

			// the prompt set is the system message the model gets
			w.useModel(&fake{Next: func(int, llm.Request) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: "ok"} }})
			ask(a, "hi")
			Expect(w.model.Requests()[0].Messages[0].Content).To(Equal(sets[0].Text))

			Expect(lint.Prompt(sets[0])).To(BeEmpty())
		},
		Entry("full", cfgFull, "full", withHelp(fullTools)),
		Entry("minimal", cfgMinimal, "minimal", reducedTools),
		Entry("minimal-help", cfgMinimalHelp, "minimal-help", withHelp(reducedTools)),
	)

	It("the agent is Prompted", func() {
		var a agents.Agent = w.agent(nil)
		_, ok := a.(agents.Prompted)
		Expect(ok).To(BeTrue())
	})

	It("finds a help tool named by the minimal prompt, the before state without help tools", func() {
		set := w.agent(cfgMinimal).PromptSets()[0]
		set.Text = strings.Replace(set.Text, "- Weather and climate: get_current_weather, get_climate_data",
			"- Weather and climate: get_current_weather, get_climate_data, search_tools", 1)
		problems := lint.Prompt(set)
		Expect(problems).To(HaveLen(1))
		Expect(problems[0].Tool).To(Equal(cba.ToolSearchTools))
		Expect(problems[0].Prompt).To(Equal("prompts/minimal.md"))
		Expect(lines(set.Text)[problems[0].Line-1]).To(ContainSubstring(cba.ToolSearchTools))
	})

	It("finds the help tools the minimal-help prompt names when help is off", func() {
		set := w.agent(map[string]any{"prompt": "minimal-help", "help": false}).PromptSets()[0]
		var tools []string
		for _, p := range lint.Prompt(set) {
			tools = append(tools, p.Tool)
			Expect(lines(set.Text)[p.Line-1]).To(ContainSubstring(p.Tool))
		}
		Expect(tools).To(Equal(helpTools))
	})

	It("finds the help tools the full prompt's INTERNAL TOOLS section names when help is off", func() {
		set := w.agent(map[string]any{"tools": "full", "prompt": "full", "help": false}).PromptSets()[0]
		var tools []string
		for _, p := range lint.Prompt(set) {
			tools = append(tools, p.Tool)
		}
		Expect(tools).To(ConsistOf(helpTools))
	})

	It("the full prompt has the seed's INTERNAL TOOLS section after ABSOLUTE RULE 5", func() {
		text := promptFile("full")
		rules := strings.Index(text, "## Absolute rules")
		rule5 := strings.Index(text, "5. Never mention list_tools or describe_tool to users; they are internal only.")
		section := strings.Index(text, "## INTERNAL TOOLS (DO NOT REVEAL TO USERS)")
		reference := strings.Index(text, "## Tool reference")
		Expect([]int{rules, rule5, section, reference}).NotTo(ContainElement(-1), "every part is there")
		Expect(rules < rule5 && rule5 < section && section < reference).To(BeTrue(), "rules, rule 5, the section, the reference")
		for _, h := range helpTools {
			Expect(text[section:reference]).To(ContainSubstring("- " + h + ": "))
		}
	})

	It("the minimal prompt names nine of the nineteen reduced tools and no help tool", func() {
		text := promptFile("minimal")
		var named []string
		for _, t := range known {
			if strings.Contains(text, t) {
				named = append(named, t)
			}
		}
		Expect(named).To(HaveLen(9))
		Expect(named).NotTo(ContainElements("find_indicators_by_principle", "list_available_classes", "search_usecases"))
		Expect(named).NotTo(ContainElements(helpTools))
	})

	It("reads a prompt that is not built in from the prompt folder", func() {
		cfg := w.config(map[string]any{"prompt": "prompts/mine.md"})
		cfg.Prompts = fstest.MapFS{"prompts/mine.md": {Data: []byte("You are a data assistant for sustainable agriculture. Use get_current_weather.")}}
		w.useModel(&fake{Next: func(int, llm.Request) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: "ok"} }})
		a, err := cba.New(cfg)
		Expect(err).NotTo(HaveOccurred())
		set := a.(agents.Prompted).PromptSets()[0]
		Expect(set.Name).To(Equal("prompts/mine.md"))
		Expect(set.Text).To(HaveSuffix("Use get_current_weather."))
		ask(a, "hi")
		Expect(w.model.Requests()[0].Messages[0].Content).To(Equal(set.Text))
	})
})

var _ = Describe("variant configuration", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("rejects a bad variant with an error that says what is wrong",
		func(variant map[string]any, prompts fstest.MapFS, want ...string) {
			cfg := w.config(variant)
			if prompts != nil {
				cfg.Prompts = prompts
			}
			a, err := cba.New(cfg)
			Expect(err).To(HaveOccurred())
			Expect(a).To(BeNil())
			for _, s := range want {
				Expect(err.Error()).To(ContainSubstring(s))
			}
		},
		Entry("an unknown key", map[string]any{"tool_set": "full"}, nil,
			"cba: variant config", `unknown field "tool_set"`, "known keys: tools, prompt, help, max_steps"),
		Entry("a tools value that is no set", map[string]any{"tools": "all"}, nil,
			`cba: variant config: tools "all": want reduced or full`),
		Entry("a tools value of the wrong type", map[string]any{"tools": 15}, nil, "cba: variant config"),
		Entry("zero max_steps", map[string]any{"max_steps": 0}, nil, "max_steps must be positive"),
		Entry("negative max_steps", map[string]any{"max_steps": -2}, nil, "max_steps must be positive"),
		Entry("a prompt file without a prompt folder", map[string]any{"prompt": "prompts/mine.md"}, nil,
			`cba: prompt "prompts/mine.md" is not built in and no prompt folder was given`),
		Entry("a prompt file the folder lacks", map[string]any{"prompt": "prompts/missing.md"},
			fstest.MapFS{"prompts/other.md": {Data: []byte("x")}}, "cba: prompt:", "missing.md"),
	)

	It("needs a data folder for the knowledge base", func() {
		cfg := w.config(nil)
		cfg.Data = nil
		_, err := cba.New(cfg)
		Expect(err).To(MatchError(ContainSubstring("no data folder given")))
	})

	DescribeTable("rejects a broken knowledge base, naming the file",
		func(files fstest.MapFS, want string) {
			cfg := w.config(nil)
			cfg.Data = files
			_, err := cba.New(cfg)
			Expect(err).To(MatchError(want))
		},
		Entry("a missing table", fstest.MapFS{"kb/indicators.csv": {Data: []byte("id\n1\n")}},
			"cba: knowledge base: open kb/methods.csv: file does not exist"),
		Entry("a table without rows", fstest.MapFS{"kb/indicators.csv": {Data: []byte("id\n")},
			"kb/methods.csv": {Data: []byte("id\n")}, "kb/principles.csv": {Data: []byte("principle_id\n")}, "kb/usecases.csv": {Data: []byte("id\n")}},
			"cba: knowledge base: kb/indicators.csv has no rows"),
		Entry("an id that is no number", fstest.MapFS{"kb/indicators.csv": {Data: []byte("id\nseven\n")},
			"kb/methods.csv": {Data: []byte("id\n")}, "kb/principles.csv": {Data: []byte("principle_id\n")}, "kb/usecases.csv": {Data: []byte("id\n")}},
			`cba: knowledge base: kb/indicators.csv: id "seven" is not a number`),
	)

	It("accepts every known key", func() {
		_, err := cba.New(w.config(map[string]any{"tools": "full", "prompt": "minimal", "help": true, "max_steps": 3}))
		Expect(err).NotTo(HaveOccurred())
	})

	It("stops a turn after max_steps model calls", func() {
		w.useModel(&fake{Next: func(i int, _ llm.Request) llm.Message {
			return llm.Message{Role: llm.RoleAssistant, ToolCalls: call("c", "list_available_classes", `{}`)}
		}})
		reply := ask(w.agent(map[string]any{"max_steps": 3}), "loop")
		Expect(w.model.Requests()).To(HaveLen(3))
		Expect(reply.Error).To(Equal("max_steps"))
		Expect(reply.Tools).To(HaveLen(3))
		Expect(reply.Text).To(Equal("I could not finish this request within the allowed number of steps."))
	})

	It("answers without the model when it cannot be reached", func() {
		w.useModel(failing{})
		reply := ask(w.agent(nil), "weather in Nairobi")
		Expect(reply.Error).To(ContainSubstring("503"))
		Expect(reply.Text).To(Equal("I could not reach the language model, so I cannot answer right now."))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "answer"}}))
	})
})

var _ = Describe("the route note", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("is the first non-help tool called in the turn, or answer",
		func(model *fake, want agents.Route) {
			w.useModel(model)
			ask(w.agent(map[string]any{"tools": "full", "help": true}), "question")
			Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{want}))
			Expect(w.tracer.Noted(agents.NoteTurn)).To(Equal([]any{0}))
		},
		Entry("no tool", calls(), agents.Route{Mode: "answer"}),
		Entry("only help tools", calls(call("a", cba.ToolListTools, `{}`), call("b", cba.ToolDescribeTool, `{"name":"search_indicators"}`)),
			agents.Route{Mode: "answer"}),
		Entry("help tools, then a tool", calls(call("a", cba.ToolListTools, `{}`), call("b", cba.ToolDescribeTool, `{"name":"list_available_classes"}`),
			call("c", "list_available_classes", `{}`)), agents.Route{Mode: "tool", Tool: "list_available_classes"}),
		Entry("two tools in one step: the first", calls([]llm.ToolCall{
			{ID: "a", Name: "list_knowledge_base_stats", Arguments: json.RawMessage(`{}`)},
			{ID: "b", Name: "list_available_classes", Arguments: json.RawMessage(`{}`)},
		}), agents.Route{Mode: "tool", Tool: "list_knowledge_base_stats"}),
		Entry("two steps: the first", calls(call("a", "search_indicators", `{"query":"soil"}`), call("b", "get_indicator_details", `{"indicator":"20"}`)),
			agents.Route{Mode: "tool", Tool: "search_indicators"}),
	)

	It("is noted once per turn, after the turn's tools", func() {
		w.useModel(&fake{Next: func(i int, _ llm.Request) llm.Message {
			if i == 0 {
				return llm.Message{Role: llm.RoleAssistant, ToolCalls: call("a", "list_available_classes", `{}`)}
			}
			return llm.Message{Role: llm.RoleAssistant, Content: "answer"}
		}})
		replies := run(w.agent(nil), "What classes are there?", "Thanks!")
		Expect(replies[0].Tools).To(Equal([]string{"list_available_classes"}))
		Expect(replies[1].Tools).To(BeEmpty())
		Expect(w.tracer.Noted(agents.NoteTurn)).To(Equal([]any{0, 1}))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{
			agents.Route{Mode: "tool", Tool: "list_available_classes"},
			agents.Route{Mode: "answer"},
		}))
		// the second turn sees the first turn's tool result and answer
		reqs := w.model.Requests()
		second := reqs[len(reqs)-1].Messages
		var roles []string
		for _, m := range second {
			roles = append(roles, m.Role)
		}
		Expect(roles).To(Equal([]string{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant, llm.RoleUser}))
	})
})

var _ = Describe("the agent against the stand-in", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	It("finds a tool the minimal prompt does not name through the help tools, on Gemini", func() {
		w.useGemini()
		reply := ask(w.agent(cfgMinimalHelp), "Which indicators cover principle 4?")
		Expect(reply.Tools).To(Equal([]string{cba.ToolListTools, cba.ToolDescribeTool, "find_indicators_by_principle"}))
		Expect(reply.Text).To(ContainSubstring("Indicators covering principle 4 Diversity"))
		Expect(reply.Text).NotTo(ContainSubstring(cba.ToolListTools))
		Expect(reply.Text).NotTo(ContainSubstring(cba.ToolDescribeTool))
		Expect(w.tracer.Noted(agents.NoteRoute)).To(Equal([]any{agents.Route{Mode: "tool", Tool: "find_indicators_by_principle"}}))
		Expect(w.transport.Requests(geminiHost)).To(HaveLen(4))
		Expect(w.transport.Requests(ollamaHost)).To(BeEmpty())
	})

	It("falls back to search_indicators without the help tools", func() {
		reply := ask(w.agent(cfgMinimal), "Which indicators cover principle 4?")
		Expect(reply.Tools).To(Equal([]string{"search_indicators"}))
		Expect(reply.Text).To(HavePrefix("Here is what I found"))
		Expect(w.transport.Requests(ollamaHost)).To(HaveLen(2))
	})

	DescribeTable("tells users the user-facing count and never an internal tool",
		func(variant map[string]any, gem bool, count string) {
			if gem {
				w.useGemini()
			}
			reply := ask(w.agent(variant), "What tools do you have?")
			Expect(reply.Tools).To(BeEmpty())
			Expect(reply.Text).To(ContainSubstring("I have " + count + " tools"))
			for _, h := range helpTools {
				Expect(reply.Text).NotTo(ContainSubstring(h))
			}
		},
		Entry("full", cfgFull, false, "19"),
		Entry("minimal", cfgMinimal, false, "19"),
		Entry("minimal-help on Gemini", cfgMinimalHelp, true, "19"),
	)

	It("answers an unknown place with the geocoder's words", func() {
		reply := ask(w.agent(cfgFull), "What's the weather in Atlantis?")
		Expect(reply.Tools).To(Equal([]string{"get_current_weather"}))
		Expect(reply.Text).To(ContainSubstring("Could not find location: Atlantis"))
		Expect(w.transport.Requests(forecastHost)).To(BeEmpty())
	})

	It("runs with a context that is not cancelled by the harness", func() {
		a := w.agent(cfgFull)
		ans, err := a.Run(context.Background(), agents.Input{Turns: []string{"Tell me about indicator 20"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ans.Last().Text).To(ContainSubstring("Indicator 20: Soil organic carbon stock"))
	})
})
