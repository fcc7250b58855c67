package trim_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate/trim"
)

// wrappedSeedShape moves the real body's {source, data} entries under
// data.successfulSources, the seed's envelope.
func wrappedSeedShape() map[string]any {
	real := input("datasources-real.txtar")
	return obj{"data": obj{
		"successfulSources": real["data"],
		"removedSources":    real["removedSources"],
		"failedSources":     real["failedSources"],
	}}
}

// successful is the number of successful sources in a body of either shape.
func successful(body map[string]any) int {
	switch d := body["data"].(type) {
	case []any:
		return len(d)
	case map[string]any:
		s, _ := d["successfulSources"].([]any)
		return len(s)
	}
	return 0
}

// entry is the trimmed entry of one source, from a minimal real-shape body.
func entry(source, data obj) obj {
	GinkgoHelper()
	out := list(trim.Datasources(obj{"data": []any{obj{"source": source, "data": data}}}))
	Expect(out).To(HaveLen(1))
	return out[0]
}

var _ = Describe("Datasources", func() {
	DescribeTable("counts every successful source, whatever the shape",
		func(body func() map[string]any) {
			in := body()
			Expect(successful(in)).To(Equal(6))
			out := trim.Datasources(in)
			Expect(out).To(HaveKeyWithValue("count", 6.0))
			Expect(list(out)).To(HaveLen(6))
		},
		Entry("real shape", func() map[string]any { return input("datasources-real.txtar") }),
		Entry("seed shape, flat entries", func() map[string]any { return input("datasources-seed.txtar") }),
		Entry("seed shape, {source, data} entries", wrappedSeedShape),
	)

	It("trims the same sources to the same output in every shape", func() {
		want := trim.Datasources(input("datasources-real.txtar"))
		Expect(trim.Datasources(input("datasources-seed.txtar"))).To(Equal(want))
		Expect(trim.Datasources(wrappedSeedShape())).To(Equal(want))
	})

	It("keeps names, coverage, classification and headline emissions parsed from strings", func() {
		out := list(trim.Datasources(input("datasources-real.txtar")))
		Expect(out[0]).To(Equal(obj{
			"datasourceName":       "OCO_ROAD_2024",
			"sourceType":           "third_party",
			"retrievalMethod":      "global_api",
			"geographicalLocation": "EARTH",
			"startYear":            2015.0,
			"endYear":              2023.0,
			"subSector":            "On-road transportation",
			"subCategory":          "Emissions from fuel combustion for on-road transportation occurring in the city",
			"referenceNumber":      "II.1.1",
			"scope":                "1",
			"scaleFactor":          1.0,
			"data": obj{
				"co2eq_100yr":  187240.5,
				"co2":          184230.5,
				"ch4":          1153.6,
				"n2o":          1856.4,
				"recordsCount": 3.0,
			},
		}))
		Expect(out[1]["data"]).To(HaveKeyWithValue("co2eq_100yr", 33990957.8))
		Expect(out[1]).To(HaveKeyWithValue("scaleFactor", 0.008431))
		for _, e := range out {
			for k, v := range e["data"].(obj) {
				if k != "unavailableReason" {
					Expect(v).To(BeAssignableToTypeOf(0.0), "data.%s of %s", k, e["datasourceName"])
				}
			}
		}
	})

	It("reports a notation-key source with no totals as unavailable, with its issue", func() {
		ne := list(trim.Datasources(input("datasources-real.txtar")))[3]
		Expect(ne).To(HaveKeyWithValue("datasourceName", "WW_OUTSIDE_NE"))
		Expect(ne).To(HaveKeyWithValue("issue", "not-estimated"))
		Expect(ne["data"]).To(Equal(obj{"unavailableReason": "not-estimated"}))
		Expect(ne).To(HaveKeyWithValue("subSector", "Wastewater generated in the city"))
		Expect(ne).To(HaveKeyWithValue("scope", "3"))
	})

	It("reads numeric totals and the ch4_co2eq/n2o_co2eq keys, and invents no co2eq_100yr", func() {
		grid := list(trim.Datasources(input("datasources-real.txtar")))[4]
		Expect(grid["data"]).To(Equal(obj{"co2": 1337.0, "ch4": 1338.0, "n2o": 1339.0, "recordsCount": 0.0}))
	})

	It("skips what does not parse and falls back to datasetName, the subsector and the first scope", func() {
		rail := list(trim.Datasources(input("datasources-real.txtar")))[5]
		Expect(rail).To(Equal(obj{
			"datasourceName":       "Rail diesel consumption (national railways)",
			"sourceType":           "third_party",
			"retrievalMethod":      "global_api_downscaled_by_population",
			"geographicalLocation": "CL",
			"startYear":            2016.0,
			"endYear":              2023.0,
			"subSector":            "Railways",
			"referenceNumber":      "II.2",
			"scope":                "1",
			"scaleFactor":          0.008431,
			"data":                 obj{"co2": 1200.5, "recordsCount": 1.0},
		}))
	})

	It("passes on no long text and no URL", func() {
		in := input("datasources-real.txtar")
		prose := texts(in, "datasetDescription", "methodologyDescription", "transformationDescription", "notes", "url", "apiEndpoint", "methodologyUrl", "URL", "reason", "error")
		Expect(prose).NotTo(BeEmpty())
		out := texts(trim.Datasources(in), "datasourceName", "sourceType", "retrievalMethod", "geographicalLocation",
			"subSector", "subCategory", "referenceNumber", "scope", "issue", "unavailableReason")
		Expect(out).NotTo(BeEmpty())
		for _, s := range out {
			Expect(prose).NotTo(ContainElement(s))
			Expect(s).NotTo(ContainSubstring("://"))
		}
	})

	DescribeTable("gives an empty list for a body of no known shape",
		func(body obj) {
			Expect(trim.Datasources(body)).To(Equal(obj{"data": []any{}, "count": 0.0}))
		},
		Entry("nil", nil),
		Entry("no data", obj{"removedSources": []any{obj{}}}),
		Entry("data is a string", obj{"data": "none"}),
		Entry("data is a number", obj{"data": 3.0}),
		Entry("data is an object without successfulSources", obj{"data": obj{"removedSources": []any{obj{}}}}),
		Entry("successfulSources is not a list", obj{"data": obj{"successfulSources": obj{"a": obj{}}}}),
		Entry("entries that are not objects", obj{"data": []any{nil, "x", 1.0, []any{}}}),
	)

	DescribeTable("parses emissions and skips what does not parse",
		func(value any, want obj) {
			got := entry(obj{"datasourceName": "S"}, obj{"totals": obj{"emissions": obj{"co2eq_100yr": value}}})
			Expect(got["data"]).To(Equal(want))
		},
		Entry("a string", "5050", obj{"co2eq_100yr": 5050.0}),
		Entry("a string with spaces", " 12.5 ", obj{"co2eq_100yr": 12.5}),
		Entry("an exponent", "1e3", obj{"co2eq_100yr": 1000.0}),
		Entry("a negative number", -4.5, obj{"co2eq_100yr": -4.5}),
		Entry("a number", 42.0, obj{"co2eq_100yr": 42.0}),
		Entry("NaN", "NaN", obj{"unavailableReason": "no totals in source data"}),
		Entry("infinity", "+Inf", obj{"unavailableReason": "no totals in source data"}),
		Entry("an empty string", "", obj{"unavailableReason": "no totals in source data"}),
		Entry("words", "n/a", obj{"unavailableReason": "no totals in source data"}),
		Entry("a boolean", true, obj{"unavailableReason": "no totals in source data"}),
		Entry("an object", obj{"value": "1"}, obj{"unavailableReason": "no totals in source data"}),
	)

	DescribeTable("says why data is unavailable",
		func(data obj, want obj) {
			Expect(entry(obj{"datasourceName": "S"}, data)["data"]).To(Equal(want))
		},
		Entry("a notation key with totals",
			obj{"issue": "NE", "totals": obj{"emissions": obj{"co2eq_100yr": "7"}}},
			obj{"co2eq_100yr": 7.0, "unavailableReason": "NE"}),
		Entry("another issue with totals: none",
			obj{"issue": "missing-population", "totals": obj{"emissions": obj{"co2eq_100yr": "7"}}},
			obj{"co2eq_100yr": 7.0}),
		Entry("another issue without totals: the issue",
			obj{"issue": "missing-population", "totals": obj{}},
			obj{"unavailableReason": "missing-population"}),
		Entry("no issue and no totals",
			obj{"issue": nil, "records": []any{}},
			obj{"recordsCount": 0.0, "unavailableReason": "no totals in source data"}),
		Entry("an unavailableReason of the seed's flat shape",
			obj{"unavailableReason": "no-occurrance", "recordsCount": 0.0},
			obj{"recordsCount": 0.0, "unavailableReason": "no-occurrance"}),
	)

	DescribeTable("names the source, its subsector, subcategory, reference number and scope",
		func(source obj, want obj) {
			got := entry(source, obj{"totals": obj{"co2eq_100yr": 1.0}})
			delete(got, "data")
			Expect(got).To(Equal(want))
		},
		Entry("datasetName.en when datasourceName is null",
			obj{"datasourceName": nil, "datasetName": obj{"es": "Nombre", "en": "Name"}},
			obj{"datasourceName": "Name"}),
		Entry("a plain datasetName",
			obj{"datasetName": "Name"},
			obj{"datasourceName": "Name"}),
		Entry("a datasetName with no English",
			obj{"datasetName": obj{"es": "Nombre"}},
			obj{}),
		Entry("subcategory over subsector",
			obj{"subSector": obj{"subsectorName": "Railways", "referenceNumber": "II.2"},
				"subCategory": obj{"subcategoryName": "Rail fuel", "referenceNumber": "II.2.1", "scope": obj{"scopeName": "1"}}},
			obj{"subSector": "Railways", "subCategory": "Rail fuel", "referenceNumber": "II.2.1", "scope": "1"}),
		Entry("the subcategory's subsector when subSector is null, the first of scopes",
			obj{"subSector": nil, "subCategory": obj{"subcategoryName": "Grid", "subsector": obj{"subsectorName": "Residential", "referenceNumber": "I.1"}},
				"scopes": []any{obj{"scopeName": "2"}, obj{"scopeName": "3"}}},
			obj{"subSector": "Residential", "subCategory": "Grid", "referenceNumber": "I.1", "scope": "2"}),
		Entry("the seed's flat names",
			obj{"subSector": obj{"name": "Railways"}, "subCategory": "Rail fuel", "referenceNumber": "II.2.1", "scope": "1"},
			obj{"subSector": "Railways", "subCategory": "Rail fuel", "referenceNumber": "II.2.1", "scope": "1"}),
		Entry("fields of the wrong type are skipped",
			obj{"datasourceName": 7.0, "sourceType": obj{}, "startYear": "2015", "endYear": true, "scopes": "1", "subSector": 3.0},
			obj{"startYear": 2015.0}),
	)
})

var _ = Describe("SeedDatasources", func() {
	It("finds no sources in the real shape, as the seed did", func() {
		out := trim.SeedDatasources(input("datasources-real.txtar"))
		Expect(out).To(Equal(obj{"data": []any{}}))
		Expect(out).NotTo(HaveKey("count"))
	})

	It("trims the flat entries of the shape it expects, copying values as they are", func() {
		out := list(trim.SeedDatasources(input("datasources-seed.txtar")))
		Expect(out).To(HaveLen(6))
		for _, e := range out {
			Expect(e).To(HaveKey("datasourceName"))
			Expect(e).To(HaveKey("retrievalMethod"))
		}
		Expect(out[0]["data"]).To(HaveKeyWithValue("co2eq_100yr", "187240.5"))
		Expect(out[0]).NotTo(HaveKey("subSector"), "the seed reads subSector.name, the API sends subsectorName")
		Expect(out[5]["datasourceName"]).To(Equal(obj{"en": "Rail diesel consumption (national railways)", "es": "Consumo de diésel ferroviario"}))
	})

	It("finds nothing but empty entries in {source, data} entries", func() {
		out := list(trim.SeedDatasources(wrappedSeedShape()))
		Expect(out).To(HaveLen(6))
		for _, e := range out {
			Expect(e).To(BeEmpty())
		}
	})

	DescribeTable("other shapes",
		func(body, want obj) {
			Expect(trim.SeedDatasources(body)).To(Equal(want))
		},
		Entry("nil", nil, obj{"data": []any{}}),
		Entry("data is a list", obj{"data": []any{obj{"datasourceName": "S"}}, "error": "e"}, obj{"data": []any{}}),
		Entry("no successfulSources keeps the error", obj{"data": obj{}, "error": "boom", "error_code": "cc_error"},
			obj{"data": []any{}, "error": "boom", "error_code": "cc_error"}),
		Entry("null and non-object entries are skipped, empty ones kept",
			obj{"data": obj{"successfulSources": []any{nil, "x", obj{}}}}, obj{"data": []any{obj{}}}),
		Entry("Python truthiness",
			obj{"data": obj{"successfulSources": []any{obj{
				"datasourceName": "", "datasetName": "D", "sourceType": 0.0, "startYear": 0.0, "scaleFactor": 0.0,
				"subSector": "", "scope": obj{"name": ""}, "issue": false,
				"data": obj{"totals": obj{"co2eq_100yr": 0.0}, "recordsCount": 0.0, "unavailableReason": ""},
			}}}},
			obj{"data": []any{obj{
				"datasourceName": "D", "startYear": 0.0, "scaleFactor": 0.0, "subSector": "",
				"data": obj{"co2eq_100yr": 0.0, "recordsCount": 0.0},
			}}}),
	)
})
