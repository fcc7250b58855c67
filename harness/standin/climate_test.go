package standin_test

import (
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate/trim"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

var digits = regexp.MustCompile(`\d`)

var _ = Describe("the Climate Advisor policy", func() {
	var c llm.Client

	BeforeEach(func() { c = client(startStandin(standin.Options{})) })

	DescribeTable("calls the inventory tools in the order its prompt states, else in the order the request lists them",
		func(edit func(llm.Request) llm.Request, want string) {
			req := edit(advisorRequest(ccAfter("Sources de données pour Oslo ?", "city_inventory_search", `{"city_name":"Oslo"}`, cityListing("Oslo", 0))...))
			m := chat(c, req).Message
			Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
			Expect(m.ToolCalls[0].Name).To(Equal(want))
		},
		Entry("as stated: the inventory, then its sources", func(r llm.Request) llm.Request { return r }, "get_inventory"),
		Entry("stated inverted", func(r llm.Request) llm.Request {
			return mutated(r, swapWords("get_inventory", "get_all_datasources"))
		}, "get_all_datasources"),
		Entry("unstated, the request listing the sources tool first", func(r llm.Request) llm.Request {
			r = mutated(r, dropLines("get_inventory"))
			i := slices.IndexFunc(r.Tools, func(t llm.Tool) bool { return t.Name == "get_inventory" })
			j := slices.IndexFunc(r.Tools, func(t llm.Tool) bool { return t.Name == "get_all_datasources" })
			r.Tools = slices.Clone(r.Tools)
			r.Tools[i], r.Tools[j] = r.Tools[j], r.Tools[i]
			return r
		}, "get_all_datasources"),
		Entry("unstated, the request's own order", func(r llm.Request) llm.Request {
			return mutated(r, dropLines("get_inventory"))
		}, "get_inventory"),
	)

	// answer returns the model's message for msgs after the prompt.
	answer := func(msgs ...llm.Message) llm.Message {
		resp := chat(c, advisorRequest(msgs...))
		return resp.Message
	}

	// expectCall checks that m is exactly one call of name with arguments.
	expectCall := func(m llm.Message, name, arguments string) {
		Expect(m.Content).To(BeEmpty())
		Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
		Expect(m.ToolCalls[0].ID).To(MatchRegexp(`^call_[0-9a-f]{24}$`), "the wire's id")
		Expect(m.ToolCalls[0].Name).To(Equal(name))
		Expect(m.ToolCalls[0].Arguments).To(MatchJSON(arguments))
	}

	Describe("the first step of a turn", func() {
		DescribeTable("calls the tool the prompt's flow asks for",
			func(q, name, arguments string) {
				expectCall(answer(userSays(q)), name, arguments)
			},
			// climate science without a city → the knowledge base, with the user's words
			Entry("GPC levels", "What is the difference between GPC BASIC and BASIC+?",
				"climate_vector_search", `{"question":"What is the difference between GPC BASIC and BASIC+?"}`),
			Entry("scopes; \"for cities\" names no city", "Explain scope 1, scope 2 and scope 3 emissions for cities",
				"climate_vector_search", `{"question":"Explain scope 1, scope 2 and scope 3 emissions for cities"}`),
			Entry(`GWP; "for methane" is not a city`, "Which global warming potential values does AR6 use for methane?",
				"climate_vector_search", `{"question":"Which global warming potential values does AR6 use for methane?"}`),
			Entry("grid factors (\"how do\" without I/we is no product cue)", "How do grid emission factors affect scope 2 accounting?",
				"climate_vector_search", `{"question":"How do grid emission factors affect scope 2 accounting?"}`),
			Entry("landfill", "How is landfill methane estimated with first order decay?",
				"climate_vector_search", `{"question":"How is landfill methane estimated with first order decay?"}`),
			Entry("notation keys", "What do the notation keys NE and IE mean?",
				"climate_vector_search", `{"question":"What do the notation keys NE and IE mean?"}`),
			Entry("a product cue with a science word is science", "How do I export the GPC scopes table?",
				"climate_vector_search", `{"question":"How do I export the GPC scopes table?"}`),
			// a city, after for/in/of/from/about or before 's
			Entry("a city after \"for\"", "Show me the inventories for New York",
				"city_inventory_search", `{"city_name":"New York"}`),
			Entry("a possessive with a year", "What were New York's emissions in 2022?",
				"city_inventory_search", `{"city_name":"New York","year":2022}`),
			Entry("a possessive without a year", "What are Tokyo's inventories?",
				"city_inventory_search", `{"city_name":"Tokyo"}`),
			Entry("odd casing, kept as written", "find inventories for nEw YoRk",
				"city_inventory_search", `{"city_name":"nEw YoRk"}`),
			Entry("the Rio de Janeiro 2023 inventory", "What data sources are available for the Rio de Janeiro 2023 inventory?",
				"city_inventory_search", `{"city_name":"Rio de Janeiro","year":2023}`),
			Entry("a city and \"in <year>\"", "Show me the emissions of Cape Town in 2023",
				"city_inventory_search", `{"city_name":"Cape Town","year":2023}`),
			Entry("\"the <city> inventory\"", "What are the total emissions of the Lima inventory?",
				"city_inventory_search", `{"city_name":"Lima"}`),
			Entry("accents", "Tell me about the inventory for São Paulo",
				"city_inventory_search", `{"city_name":"São Paulo"}`),
			Entry("parentheses and dots", "Show the inventory for Washington (D.C.)",
				"city_inventory_search", `{"city_name":"Washington (D.C.)"}`),
			Entry(`regex metacharacters, "for .*"`, "Find inventories for .* please",
				"city_inventory_search", `{"city_name":".*"}`),
			Entry("a city the user has no inventory for", "Do I have an inventory for Nairobi?",
				"city_inventory_search", `{"city_name":"Nairobi"}`),
			Entry("science words with a city and an inventory cue", "What are New York's scope 2 emissions?",
				"city_inventory_search", `{"city_name":"New York"}`),
			// inventory words without a city → browse
			Entry("browse", "Which inventories do I have?", "get_user_inventories", `{}`),
			Entry("browse, \"all my\"", "List all my inventories", "get_user_inventories", `{}`),
			Entry(`browse, "for my city" names no city`, "Show the emissions inventory for my city", "get_user_inventories", `{}`),
		)

		DescribeTable("answers without a tool",
			func(q, says string) {
				m := answer(userSays(q))
				Expect(m.ToolCalls).To(BeEmpty())
				Expect(m.Content).To(ContainSubstring(says))
			},
			Entry("a product question", "How do I upload a spreadsheet to CityCatalyst?", "product question"),
			Entry("a product question with a city", "Where can I invite a colleague to the New York inventory?", "product question"),
			Entry("a password", "How can I reset my password?", "product question"),
			Entry("a greeting", "Hello!", "I can help you find and understand your CityCatalyst inventories"),
			Entry(`off-topic; "of water" names no inventory`, "What is the boiling point of water?", "I can help you"),
			Entry("a data-source question before any inventory is open", "Which data sources exist?", "I can help you"),
		)
	})

	Describe("after a tool result", func() {
		// after returns the model's message after one call of name and its result.
		after := func(q, name, arguments, result string) llm.Message {
			return answer(userSays(q), modelCalls("call_1", name, arguments), toolSays("call_1", name, result))
		}

		It("opens the one inventory found", func() {
			m := after("Show me the details of the Oslo inventory", "city_inventory_search", `{"city_name":"Oslo"}`, cityListing("Oslo", 0))
			expectCall(m, "get_inventory", `{"inventory_id":"`+ccOslo+`"}`)
		})

		It("lists several inventories, newest first, and asks which one to open", func() {
			m := after("Show me the inventories for New York", "city_inventory_search", `{"city_name":"New York"}`, cityListing("New York", 0))
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(Equal(verbose("I found 3 inventories:\n" +
				"- New York 2023: GPC BASIC+, 49.8 million tCO2e (ID " + ccNewYork2023 + ")\n" +
				"- New York 2022: GPC BASIC+, 51.1 million tCO2e (ID " + ccNewYork2022 + ")\n" +
				"- New York 2021: GPC BASIC+, 52.4 million tCO2e (ID " + ccNewYork2021 + ")\n" +
				"Which one should I open?")))
		})

		It("lists every inventory after browsing", func() {
			m := after("Which inventories do I have?", "get_user_inventories", `{}`, allListing())
			Expect(m.Content).To(HavePrefix("I found 13 inventories:\n"))
			Expect(m.Content).To(ContainSubstring("- Tokyo 2020: GPC BASIC, no total emissions recorded (ID " + ccTokyo + ")"))
			Expect(m.Content).To(HaveSuffix(verbose("Which one should I open?")))
		})

		DescribeTable("says when nothing was found",
			func(q, name, arguments, result, says string) {
				m := after(q, name, arguments, result)
				Expect(m.ToolCalls).To(BeEmpty())
				Expect(m.Content).To(Equal(verbose(says)))
			},
			Entry("a city", "Do I have an inventory for Nairobi?", "city_inventory_search", `{"city_name":"Nairobi"}`,
				cityListing("Nairobi", 0), `I found no inventories for "Nairobi" in your account.`),
			Entry("a city and a year", "Show New York's inventory for 2030", "city_inventory_search", `{"city_name":"New York","year":2030}`,
				cityListing("New York", 2030), `I found no inventories for "New York" in 2030 in your account.`),
			Entry("regex metacharacters", "Find inventories for .* please", "city_inventory_search", `{"city_name":".*"}`,
				cityListing(".*", 0), `I found no inventories for ".*" in your account.`),
			Entry("browsing", "Which inventories do I have?", "get_user_inventories", `{}`,
				succeeded(map[string]any{"data": []any{}}), "You have no inventories yet."),
		)

		It("summarizes an inventory the user asked about", func() {
			m := after("Tell me about the Cape Town inventory", "get_inventory", `{"inventory_id":"`+ccCapeTown+`"}`, inventoryDetail(ccCapeTown))
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(Equal(verbose("Cape Town 2023 (Cape Town, 2023) is a GPC BASIC+ inventory; its emissions total 21.5 million tCO2e, using AR6 GWP values.")))
		})

		It("goes on to the data sources when the user asked for them", func() {
			m := after("What data sources exist for the Cape Town 2023 inventory?", "get_inventory", `{"inventory_id":"`+ccCapeTown+`"}`, inventoryDetail(ccCapeTown))
			expectCall(m, "get_all_datasources", `{"inventory_id":"`+ccCapeTown+`"}`)
		})

		DescribeTable("counts the data sources in every shape the tool returns",
			func(body func() any, says string) {
				m := after("What data sources are available for the Rio de Janeiro 2023 inventory?",
					"get_all_datasources", `{"inventory_id":"`+ccRio+`"}`, succeeded(body()))
				Expect(m.ToolCalls).To(BeEmpty())
				Expect(m.Content).To(Equal(verbose(says)))
			},
			Entry("the real raw shape", func() any { return readJSON("datasource/rio-de-janeiro-2023.json") },
				"There are 26 data sources available for this inventory, including GEA-res-fuel-v2024; UCO-district-heat-v2024; OGF-res-grid-v2024."),
			Entry("trimmed by ours", func() any { return trim.Datasources(readJSON("datasource/rio-de-janeiro-2023.json")) },
				"There are 26 data sources available for this inventory, including GEA-res-fuel-v2024; UCO-district-heat-v2024; OGF-res-grid-v2024."),
			Entry("trimmed by the seed's trimmer, which finds none in the real shape",
				func() any { return trim.SeedDatasources(readJSON("datasource/rio-de-janeiro-2023.json")) },
				"There are no data sources available for this inventory."),
			Entry("New York 2023, raw", func() any { return readJSON("datasource/new-york-2023.json") },
				"There are 31 data sources available for this inventory, including GEA-res-fuel-v2024; UCO-district-heat-v2024; OGF-res-grid-region-v2024."),
			Entry("Tokyo 2020, raw: none succeeded", func() any { return readJSON("datasource/tokyo-2020.json") },
				"There are no data sources available for this inventory."),
		)

		DescribeTable("reports a tool error without inventing data",
			func(name, arguments, result, errText string) {
				m := after("What are the total emissions of the Lima inventory?", name, arguments, result)
				Expect(m.ToolCalls).To(BeEmpty())
				Expect(m.Content).To(HavePrefix("I could not get that from CityCatalyst: " + errText + "."))
				Expect(m.Content).To(ContainSubstring("will not guess"))
				Expect(digits.FindAllString(strings.Replace(m.Content, errText, "", 1), -1)).To(BeEmpty(),
					"no number beyond the error's own: %q", m.Content)
				Expect(m.Content).NotTo(ContainSubstring("tCO2e"))
			},
			Entry("an upstream 500", "get_inventory", `{"inventory_id":"`+ccLima+`"}`,
				failed(`CityCatalyst returned HTTP 500: {"error":"internal error"}`, "cc_error"),
				`CityCatalyst returned HTTP 500: {"error":"internal error"}`),
			Entry("bad arguments", "get_inventory", `{}`, failed("inventory_id is required", "invalid_arguments"), "inventory_id is required"),
			Entry("a failed search", "city_inventory_search", `{"city_name":"Lima"}`,
				failed("CityCatalyst did not answer: connection refused", "cc_error"), "CityCatalyst did not answer: connection refused"),
		)

		It("says it cannot read a result that is not JSON", func() {
			m := after("Which inventories do I have?", "get_user_inventories", `{}`, "<html>maintenance</html>")
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(Equal(verbose("The get_user_inventories tool returned something I could not read, so I cannot answer from it.")))
		})

		It("quotes the first excerpt of a knowledge-base search", func() {
			result := "Relevant climate knowledge base excerpts were retrieved. Use them to ground your response when helpful.\n" +
				"1. Source: scopes-in-city-inventories.md (chunk 1, score 0.96)\n" +
				"   Full Content: Scope 1 covers emissions from sources located within the city boundary. Gas boilers count.\n" +
				"2. Source: grid-emission-factors-scope2.md (chunk 0, score 0.90)\n" +
				"   Full Content: Scope 2 emissions are those caused by consuming grid-supplied electricity.\n" +
				"Always cite insights as coming from the internal climate knowledge base, not from personal memory."
			m := after("Explain scope 1", "climate_vector_search", `{"question":"Explain scope 1"}`, result)
			Expect(m.ToolCalls).To(BeEmpty())
			Expect(m.Content).To(HavePrefix("According to the internal climate knowledge base (scopes-in-city-inventories.md): Scope 1 covers emissions"))
			Expect(m.Content).NotTo(ContainSubstring("grid-supplied"))
		})

		It("does not answer from memory when the search was not used", func() {
			m := after("Explain scope 1", "climate_vector_search", `{"question":"Explain scope 1"}`,
				"Climate search was not used. Reason: no_relevant_matches")
			Expect(m.Content).To(Equal(verbose("I could not find this in the internal climate knowledge base, so I will not answer from memory.")))
		})
	})

	Describe("a choice in a later turn", func() {
		// newYorkListed is a first turn that listed New York's three inventories.
		newYorkListed := func() []llm.Message {
			return []llm.Message{
				userSays("Show me the inventories for New York"),
				modelCalls("call_1", "city_inventory_search", `{"city_name":"New York"}`),
				toolSays("call_1", "city_inventory_search", cityListing("New York", 0)),
				assistantSays("I found 3 inventories: … Which one should I open?"),
			}
		}
		// allListed is a first turn that listed every inventory.
		allListed := func() []llm.Message {
			return []llm.Message{
				userSays("Which inventories do I have?"),
				modelCalls("call_1", "get_user_inventories", `{}`),
				toolSays("call_1", "get_user_inventories", allListing()),
				assistantSays("I found 13 inventories: … Which one should I open?"),
			}
		}

		DescribeTable("opens the inventory the user picks",
			func(history func() []llm.Message, q, id string) {
				msgs := append(history(), userSays(q))
				expectCall(answer(msgs...), "get_inventory", `{"inventory_id":"`+id+`"}`)
			},
			Entry("by year", newYorkListed, "Open the 2022 one", ccNewYork2022),
			Entry("the latest", newYorkListed, "The latest one, please", ccNewYork2023),
			Entry("the newest", newYorkListed, "the newest", ccNewYork2023),
			Entry("the oldest", newYorkListed, "the oldest one", ccNewYork2021),
			Entry("by ordinal, second", newYorkListed, "the second one", ccNewYork2022),
			Entry("by ordinal, third", newYorkListed, "Open the third", ccNewYork2021),
			Entry("by id", newYorkListed, "Open "+ccNewYork2021, ccNewYork2021),
			Entry("by city name", allListed, "Tell me about the Cape Town one", ccCapeTown),
			Entry("by city name and year", allListed, "Open the New York 2022 inventory", ccNewYork2022),
			Entry("by id among all", allListed, "open "+strings.ToUpper(ccRio), ccRio),
		)

		It("does not open anything for a year that was not listed", func() {
			m := answer(append(newYorkListed(), userSays("Open the 2019 one"))...)
			Expect(m.ToolCalls).To(BeEmpty())
		})

		It("asks for the data sources of the inventory opened earlier", func() {
			msgs := []llm.Message{
				userSays("Tell me about the inventory for Cape Town"),
				modelCalls("call_1", "city_inventory_search", `{"city_name":"Cape Town"}`),
				toolSays("call_1", "city_inventory_search", cityListing("Cape Town", 0)),
				modelCalls("call_2", "get_inventory", `{"inventory_id":"`+ccCapeTown+`"}`),
				toolSays("call_2", "get_inventory", inventoryDetail(ccCapeTown)),
				assistantSays("Cape Town 2023 (Cape Town, 2023) is a GPC BASIC+ inventory …"),
				userSays("What data sources are available for it?"),
			}
			expectCall(answer(msgs...), "get_all_datasources", `{"inventory_id":"`+ccCapeTown+`"}`)
		})
	})

	Describe("tool call ids", func() {
		It("are OpenAI's, one of its own for every call of the conversation, across turns, the same every time", func() {
			turns := []string{"Which inventories do I have?", "Tell me about the Cape Town one", "What data sources are available for it?"}
			first := converse(c, turns...)

			var ids, tools []string
			for _, tc := range toolCallsIn(first) {
				ids = append(ids, tc.ID)
				tools = append(tools, tc.Name)
			}
			Expect(ids).To(HaveEach(MatchRegexp(`^call_[0-9a-f]{24}$`)))
			Expect(slices.Compact(slices.Sorted(slices.Values(ids)))).To(HaveLen(3))
			Expect(tools).To(Equal([]string{"get_user_inventories", "get_inventory", "get_all_datasources"}))
			Expect(first[len(first)-1].Content).To(HavePrefix("There are 30 data sources available for this inventory"))

			Expect(converse(c, turns...)).To(Equal(first))
		})

		It("differ from the calls of earlier turns", func() {
			msgs := converse(c, "What data sources are available for the Rio de Janeiro 2023 inventory?", "Show me the inventories for New York", "Open the 2022 one")
			var ids, tools []string
			for _, tc := range toolCallsIn(msgs) {
				ids = append(ids, tc.ID)
				tools = append(tools, tc.Name)
			}
			Expect(tools).To(Equal([]string{"city_inventory_search", "get_inventory", "get_all_datasources", "city_inventory_search", "get_inventory"}))
			Expect(slices.Compact(slices.Sorted(slices.Values(ids)))).To(HaveLen(5))
			Expect(msgs[len(msgs)-1].Content).To(ContainSubstring("51.1 million tCO2e"))
		})
	})

	// The package promises a deterministic model. choice (climate.go) tries
	// the ordinals by ranging over the map ccOrdinals, so a message naming two
	// ordinals picks whichever the map yields first: a different inventory
	// from call to call.
	It("picks the same inventory every time when a message names two ordinals", func() {
		msgs := []llm.Message{
			userSays("Show me the inventories for New York"),
			modelCalls("call_1", "city_inventory_search", `{"city_name":"New York"}`),
			toolSays("call_1", "city_inventory_search", cityListing("New York", 0)),
			assistantSays("I found 3 inventories: … Which one should I open?"),
			userSays("Not the first one: the second one"),
		}
		want := answer(msgs...)
		for range 200 {
			Expect(answer(msgs...)).To(Equal(want))
		}
	})
})
