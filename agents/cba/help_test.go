package cba_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/cba"
)

var _ = Describe("the help tools of the real project", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	names := func(out string) []string {
		var got []string
		for _, l := range lines(out) {
			got = append(got, strings.SplitN(strings.TrimPrefix(l, "- "), ":", 2)[0])
		}
		return got
	}

	DescribeTable("list_tools_by_category lists the active tools of one category",
		func(category string, want ...string) {
			r := w.tool(cfgMinimalHelp, cba.ToolListToolsByCategory, `{"category":"`+category+`"}`)
			Expect(r.Err).NotTo(HaveOccurred())
			Expect(names(r.Context)).To(Equal(want))
		},
		Entry("weather, without any knowledge-base tool", "weather", "get_current_weather", "get_weather_forecast", "get_climate_data"),
		Entry("soil", "soil", "get_soil_properties", "get_soil_carbon"),
		Entry("socioeconomic", "socioeconomic", "get_country_indicators", "get_world_bank_data"),
		Entry("case does not matter", "SOIL", "get_soil_properties", "get_soil_carbon"),
	)

	It("list_tools_by_category names the categories when it does not know one", func() {
		r := w.tool(cfgMinimalHelp, cba.ToolListToolsByCategory, `{"category":"forestry"}`)
		Expect(r.Context).To(Equal("Unknown category 'forestry'. Categories: weather, soil, socioeconomic, knowledge_base."))
	})

	DescribeTable("search_tools finds active tools by words of their names and documentation, best first",
		func(query string, first string) {
			r := w.tool(cfgMinimalHelp, cba.ToolSearchTools, `{"query":"`+query+`"}`)
			Expect(r.Err).NotTo(HaveOccurred())
			Expect(names(r.Context)[0]).To(Equal(first))
			for _, h := range helpTools {
				Expect(r.Context).NotTo(ContainSubstring(h))
			}
		},
		Entry("a word of a summary", "forecast days", "get_weather_forecast"),
		Entry("a name with underscores", "search_usecases", "search_usecases"),
		Entry("words of the documentation", "version knowledge base", "get_knowledge_version"),
	)

	It("search_tools says what to do when nothing matches", func() {
		r := w.tool(cfgMinimalHelp, cba.ToolSearchTools, `{"query":"zebra"}`)
		Expect(r.Context).To(Equal("No tool matches 'zebra'. Use list_tools() to see available tools."))
	})
})

var _ = Describe("the use cases and the knowledge base's version", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	It("search_usecases gives a matching use case's outcomes with their indicators by id and name", func() {
		out := w.kbTool("search_usecases", `{"query":"cotton in Chad"}`)
		Expect(lines(out)).To(HaveLen(5))
		Expect(lines(out)[0]).To(Equal("Use case cotton-chad: Regenerative cotton in southern Chad (Chad, cotton)"))
		Expect(out).To(ContainSubstring("- Soil organic matter rises on cotton plots: 20 Soil organic carbon stock; 21 Soil organic carbon concentration; 15 Soil pH"))
		Expect(out).NotTo(ContainSubstring("coffee"))
	})

	It("search_usecases limits the use cases to n_results", func() {
		out := w.kbTool("search_usecases", `{"query":"cotton coffee sorghum","n_results":2}`)
		Expect(strings.Count(out, "Use case ")).To(Equal(2))
	})

	It("search_usecases says so when nothing matches", func() {
		Expect(w.kbTool("search_usecases", `{"query":"salmon farming"}`)).To(Equal("No use case matches 'salmon farming'."))
	})

	It("get_knowledge_version names the tables' content and counts", func() {
		out := w.kbTool("get_knowledge_version", `{}`)
		Expect(out).To(MatchRegexp(`^Knowledge base version [0-9a-f]{12}: 51 indicators, \d+ methods, 3 use cases, from the tables kb/indicators.csv, kb/methods.csv, kb/principles.csv, kb/usecases.csv\.$`))
	})
})
