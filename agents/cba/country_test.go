package cba_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the country tools (REST Countries and the World Bank)", func() {
	var w *world

	BeforeEach(func() { w = newWorld() })

	DescribeTable("get_country_indicators asks REST Countries by ISO code and writes a profile",
		func(arguments, path string, want ...string) {
			r := w.tool(cfgMinimalHelp, "get_country_indicators", arguments)
			Expect(r.Err).NotTo(HaveOccurred())
			reqs := w.transport.Requests(countriesHost)
			Expect(reqs).To(HaveLen(1))
			Expect(reqs[0].Path).To(Equal(path))
			Expect(string(r.Raw)).To(HavePrefix(`[{"name":`), "raw is the upstream's answer")
			Expect(lines(r.Context)).To(Equal(want))
		},
		Entry("a name", `{"country":"Chad"}`, "/v3.1/alpha/TD",
			"Country profile: Chad (Republic of Chad)", "- Capital: N'Djamena", "- Region: Africa, Middle Africa",
			"- Area: 1,284,000 km²", "- Population: 18.30 million (14.3 per km²)", "- Languages: Arabic, French",
			"- Currencies: Central African CFA franc (XAF)"),
		Entry("a code in lower case", `{"country":"ke"}`, "/v3.1/alpha/KE",
			"Country profile: Kenya (Republic of Kenya)", "- Capital: Nairobi", "- Region: Africa, Eastern Africa",
			"- Area: 580,367 km²", "- Population: 55.10 million (94.9 per km²)", "- Languages: English, Swahili",
			"- Currencies: Kenyan shilling (KES)"),
	)

	It("get_country_indicators says a country the API does not know was not found", func() {
		r := w.tool(cfgMinimalHelp, "get_country_indicators", `{"country":"Atlantis"}`)
		Expect(r.Err).To(MatchError("could not find country: Atlantis"))
	})

	DescribeTable("get_world_bank_data asks for one series, 2010 to 2024, and lists its years with values",
		func(arguments, path string, want ...string) {
			r := w.tool(cfgMinimalHelp, "get_world_bank_data", arguments)
			Expect(r.Err).NotTo(HaveOccurred())
			reqs := w.transport.Requests(worldBankHost)
			Expect(reqs).To(HaveLen(1))
			Expect(reqs[0].Path).To(Equal(path))
			Expect(reqs[0].RawQuery).To(Equal("date=2010%3A2024&format=json&per_page=20"))
			Expect(lines(r.Context)).To(Equal(want))
		},
		Entry("GDP per capita, a year without a value left out", `{"country":"Chad","indicator":"gdp_per_capita"}`,
			"/v2/country/TD/indicator/NY.GDP.PCAP.CD",
			"GDP per capita (current US$), Chad (World Bank NY.GDP.PCAP.CD)", "Year | Value",
			"2023 | $721", "2022 | $703", "2021 | $689", "2020 | $660", "2019 | $675"),
		Entry("population, by code", `{"country":"KE","indicator":"population"}`, "/v2/country/KE/indicator/SP.POP.TOTL",
			"Total population, Kenya (World Bank SP.POP.TOTL)", "Year | Value", "2023 | 55.10M", "2022 | 54.03M", "2021 | 53.01M"),
		Entry("a series with no data", `{"country":"Chad","indicator":"gini"}`, "/v2/country/TD/indicator/SI.POV.GINI",
			"No data available for Chad: Gini index."),
	)

	It("get_world_bank_data names the series it offers for an unknown one, without calling the API", func() {
		r := w.tool(cfgMinimalHelp, "get_world_bank_data", `{"country":"Chad","indicator":"happiness"}`)
		Expect(r.Err).To(MatchError(`unknown indicator "happiness"; choose one of gdp, gdp_per_capita, population, poverty, gini, agricultural_land, rural_population`))
		Expect(w.transport.Requests(worldBankHost)).To(BeEmpty())
	})
})
