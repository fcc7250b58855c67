package standin_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
)

// swapDescriptions returns tools with the descriptions of the tools named
// a and b exchanged, names and parameters left as they were.
func swapDescriptions(tools []llm.Tool, a, b string) []llm.Tool {
	out := append([]llm.Tool(nil), tools...)
	ia, ib := -1, -1
	for i, t := range out {
		switch t.Name {
		case a:
			ia = i
		case b:
			ib = i
		}
	}
	Expect(ia).NotTo(Equal(-1), a)
	Expect(ib).NotTo(Equal(-1), b)
	out[ia].Description, out[ib].Description = out[ib].Description, out[ia].Description
	return out
}

var _ = Describe("choosing a tool by its description", func() {
	var c llm.Client

	BeforeEach(func() { c = client(startStandin(standin.Options{})) })

	// called is the name of the one tool the model calls for req.
	called := func(req llm.Request) string {
		m := chat(c, req).Message
		Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
		return m.ToolCalls[0].Name
	}

	DescribeTable("the Climate Advisor calls the tool whose description fits, whatever its name",
		func(msgs []llm.Message, want, other string) {
			req := advisorRequest(msgs...)
			Expect(called(req)).To(Equal(want), "with the descriptions as the agent gives them")

			req.Tools = swapDescriptions(req.Tools, want, other)
			Expect(called(req)).To(Equal(other), "with the two descriptions swapped")
		},
		Entry("a city named: finding by city, not listing",
			[]llm.Message{userSays("Inventarios de emisiones para Quito")}, "city_inventory_search", "get_user_inventories"),
		Entry("browsing: listing, not finding by city",
			[]llm.Message{userSays("我的排放清冊有哪些？")}, "get_user_inventories", "city_inventory_search"),
		Entry("a science question: the knowledge base, not a city search",
			[]llm.Message{userSays("¿Qué es un factor de emisión de la red eléctrica?")}, "climate_vector_search", "city_inventory_search"),
		Entry("one inventory found: its details, not its data sources",
			ccAfter("Inventaires pour Oslo", "city_inventory_search", `{"city_name":"Oslo"}`, cityListing("Oslo", 0)), "get_inventory", "get_all_datasources"),
	)

	It("fills the chosen tool's arguments from its own schema", func() {
		req := advisorRequest(userSays("Inventarios de emisiones para Quito"))
		req.Tools = swapDescriptions(req.Tools, "city_inventory_search", "climate_vector_search")
		m := chat(c, req).Message
		Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
		Expect(m.ToolCalls[0].Name).To(Equal("climate_vector_search"))
		Expect(m.ToolCalls[0].Arguments).To(MatchJSON(`{"question":"Inventarios de emisiones para Quito"}`),
			"the knowledge tool's parameter is a question, so it gets the user's words, not a city")
	})

	It("does not call a kind of tool the request does not offer", func() {
		req := advisorRequest(userSays("我的排放清冊有哪些？"))
		var kept []llm.Tool
		for _, t := range req.Tools {
			if t.Name != "get_user_inventories" {
				kept = append(kept, t)
			}
		}
		req.Tools = kept
		m := chat(c, req).Message
		Expect(m.ToolCalls).To(BeEmpty(), "no offered tool says it lists inventories")
		Expect(m.Content).NotTo(BeEmpty())
	})

	DescribeTable("the CBA assistant calls the tool whose description fits, with the agent's own tool definitions",
		func(q, want, other string) {
			setup := cbaFull()
			req := setup.request(userSays(q))
			Expect(called(req)).To(Equal(want), "with the descriptions as the agent gives them")

			req.Tools = swapDescriptions(req.Tools, want, other)
			Expect(called(req)).To(Equal(other), "with the two descriptions swapped")
		},
		Entry("an export, not a comparison", "Please export indicators 3 and 12 into a report", "export_indicator_selection", "compare_indicators"),
		Entry("climate normals, not the weather now", "What is the usual climate of Cusco?", "get_climate_data", "get_current_weather"),
		Entry("indicators of a principle, not an indicator search", "Which indicators cover principle 4?", "find_indicators_by_principle", "search_indicators"),
		Entry("a forecast, not the weather now", "Forecast for Quito over the next 3 days", "get_weather_forecast", "get_current_weather"),
	)

	It("the family assistant calls the tool whose description fits, and a tool given without one by its name", func() {
		described := map[string]string{
			"download_state_history": "Fetches the recorded states of home sensors (entities) over a time period and keeps them as a JSON attachment.",
			"delegate_to_service":    "Passes the request on to another service, with the attachments it needs.",
			"jq_query":               "Runs a jq program over the JSON of an attachment and returns what it selects.",
			"create_vega_chart":      "Draws a Vega chart from a spec.",
		}
		req := familyRequest("default.md", withAttachment("Apply jq 'length' to it", "[1,2,3]"))
		Expect(called(req)).To(Equal("jq_query"), "no description: the name decides")
		for i, t := range req.Tools {
			req.Tools[i].Description = described[t.Name]
		}
		Expect(called(req)).To(Equal("jq_query"), "with descriptions")

		req.Tools = swapDescriptions(req.Tools, "jq_query", "download_state_history")
		m := chat(c, req).Message
		Expect(m.ToolCalls).To(HaveLen(1), "answered %q", m.Content)
		Expect(m.ToolCalls[0].Name).To(Equal("download_state_history"), "with the two descriptions swapped")
	})

	DescribeTable("the Kura executor calls the tool whose description says the step's action",
		func(step map[string]any, want, other string) {
			described := map[string]string{
				"geocode":            "Find the coordinates of an address (geocoding).",
				"reverse_geocode":    "Reverse geocoding: the address at a point.",
				"geolocate":          "Geolocate the user now.",
				"weather":            "Current weather conditions at a point.",
				"transit_directions": "Transit directions between two points.",
				"places_search":      "Search for places by text near a point.",
			}
			req := kuraExecutorRequest(step, kuraWorld("", kuraGeocoded()))
			for i, t := range req.Tools {
				req.Tools[i].Description = described[t.Name]
			}
			Expect(called(req)).To(Equal(want), "with the descriptions as written")

			req.Tools = swapDescriptions(req.Tools, want, other)
			Expect(called(req)).To(Equal(other), "with the two descriptions swapped")
		},
		Entry("Weather, not places", map[string]any{"id": "S2", "action": "Weather", "args": map[string]any{"location": "Paris"}}, "weather", "places_search"),
		Entry("Places, not weather", map[string]any{"id": "S2", "action": "Places", "args": map[string]any{"query": "tea", "near": "Paris"}}, "places_search", "weather"),
		Entry("Transit, not geocoding", map[string]any{"id": "S3", "action": "Transit", "args": map[string]any{"origin": "Paris", "destination": "Paris"}}, "transit_directions", "geocode"),
		Entry("Geolocate, not reverse geocoding", map[string]any{"id": "S1", "action": "Geolocate", "args": map[string]any{}}, "geolocate", "reverse_geocode"),
	)

	DescribeTable("the ODBchat router picks the catalog tool whose description fits",
		func(query, want, other string) {
			decide := func(catalog []map[string]any) string {
				req := routerRequest(query, false)
				in, err := json.Marshal(routerInput{Query: query, Now: now, ToolCatalog: catalog, GeoRegistry: geoRegistry()})
				Expect(err).NotTo(HaveOccurred())
				req.Messages[len(req.Messages)-1].Content = string(in)
				var p plan
				Expect(json.Unmarshal([]byte(chat(c, req).Message.Content), &p)).To(Succeed())
				Expect(p.Tool).NotTo(BeNil(), "rationale: %s", p.Rationale)
				return p.Tool.Name
			}
			catalog := toolCatalog()
			Expect(decide(catalog)).To(Equal(want), "with the catalog as the agent gives it")
			var ia, ib int
			for i, t := range catalog {
				switch t["name"] {
				case want:
					ia = i
				case other:
					ib = i
				}
			}
			catalog[ia]["description"], catalog[ib]["description"] = catalog[ib]["description"], catalog[ia]["description"]
			Expect(decide(catalog)).To(Equal(other), "with the two descriptions swapped")
		},
		Entry("a point: the tool for a point", "SST at 121.5E, 24.2N yesterday?", "ghrsst.point_value", "ghrsst.bbox_mean"),
		Entry("a region: the tool for a box", "台灣海峽昨天的海溫", "ghrsst.bbox_mean", "ghrsst.point_value"),
	)
})
