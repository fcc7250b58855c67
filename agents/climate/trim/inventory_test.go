package trim_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate/trim"
)

var _ = Describe("Listing", func() {
	It("keeps what identifies each inventory, newest year first, ties in input order", func() {
		out := list(trim.Listing(input("listing.txtar")))
		var ids []any
		for _, inv := range out {
			ids = append(ids, inv["inventoryId"])
		}
		Expect(ids).To(Equal([]any{
			"e6a3f18b-2c7d-49e0-85b1-d4f6a2c0e937", // 2024
			"8e4d2b17-5a9c-4f3e-b2d8-6c1a0f9e7b25", // 2023, first in the input
			"c27a6e90-1b4f-4d8c-a3e5-9f0d2c8b6a41", // 2023
			"0d7b4e26-9a13-4c58-b6f0-3a8e1d5c2f74", // 2023, last in the input
			"3f1c9a52-7d0e-4b8a-9c61-2e5f0b7a4d13", // 2022
			"5b9e0c3d-8f21-4a6b-9d47-1e3c5a7f9b08", // 2021
		}))
		Expect(out[2]).To(Equal(obj{
			"inventoryId":                "c27a6e90-1b4f-4d8c-a3e5-9f0d2c8b6a41",
			"inventoryName":              "Valdivia GPC Basic 2023",
			"year":                       2023.0,
			"inventoryType":              "gpc_basic",
			"globalWarmingPotentialType": "ar5",
			"totalEmissions":             812345.67,
			"city":                       obj{"name": "Valdivia", "locode": "CL ZAL"},
		}))
	})

	It("leaves out a null totalEmissions but keeps a zero one", func() {
		out := list(trim.Listing(input("listing.txtar")))
		Expect(out[1]).NotTo(HaveKey("totalEmissions"))
		Expect(out[5]).To(HaveKeyWithValue("totalEmissions", 0.0))
	})

	It("leaves out null and empty fields inside and outside the city", func() {
		out := list(trim.Listing(input("listing.txtar")))
		Expect(out[3]).NotTo(HaveKey("inventoryName"))
		Expect(out[5]).NotTo(HaveKey("globalWarmingPotentialType"))
		Expect(out[5]["city"]).To(Equal(obj{"name": "Manizales"}))
	})

	DescribeTable("edge cases",
		func(body, want obj) {
			Expect(trim.Listing(body)).To(Equal(want))
		},
		Entry("nil body", nil, obj{"data": []any{}}),
		Entry("data is not a list", obj{"data": obj{"inventoryId": "a"}}, obj{"data": []any{}}),
		Entry("entries that are not objects are skipped",
			obj{"data": []any{nil, "x", 3.0, obj{"inventoryId": "a", "year": 2020.0}}},
			obj{"data": []any{obj{"inventoryId": "a", "year": 2020.0}}}),
		Entry("inventories without a numeric year sort last, in input order",
			obj{"data": []any{obj{"inventoryId": "a"}, obj{"inventoryId": "b", "year": 2019.0}, obj{"inventoryId": "c", "year": "soon"}, obj{"inventoryId": "d", "year": 2024.0}}},
			obj{"data": []any{obj{"inventoryId": "d", "year": 2024.0}, obj{"inventoryId": "b", "year": 2019.0}, obj{"inventoryId": "a"}, obj{"inventoryId": "c", "year": "soon"}}}),
		Entry("country and region of a city search result are kept, the rest of the city is not",
			obj{"data": []any{obj{"inventoryId": "a", "city": obj{"name": "Valdivia", "locode": "CL ZAL", "country": "Chile", "region": "Los Ríos", "cityId": "x", "shape": obj{"type": "Polygon"}}}}},
			obj{"data": []any{obj{"inventoryId": "a", "city": obj{"name": "Valdivia", "locode": "CL ZAL", "country": "Chile", "region": "Los Ríos"}}}}),
		Entry("a city with nothing to keep is left out",
			obj{"data": []any{obj{"inventoryId": "a", "city": obj{"name": nil, "locode": ""}}}},
			obj{"data": []any{obj{"inventoryId": "a"}}}),
		Entry("a city that is not an object is left out",
			obj{"data": []any{obj{"inventoryId": "a", "city": "Valdivia"}}},
			obj{"data": []any{obj{"inventoryId": "a"}}}),
	)
})

var _ = Describe("Inventory", func() {
	It("keeps the inventory, its city without the shape, and the organization's name", func() {
		Expect(trim.Inventory(input("inventory.txtar"))).To(Equal(obj{"data": obj{
			"inventoryId":                "c27a6e90-1b4f-4d8c-a3e5-9f0d2c8b6a41",
			"inventoryName":              "Valdivia GPC Basic 2023",
			"year":                       2023.0,
			"totalEmissions":             798114.25,
			"inventoryType":              "gpc_basic",
			"globalWarmingPotentialType": "ar5",
			"organizationName":           "Red de Ciudades Sostenibles del Sur",
			"city": obj{
				"name": "Valdivia", "locode": "CL ZAL", "country": "Chile", "region": "Los Ríos",
				"countryLocode": "CL", "regionLocode": "CL-LR", "area": 1015.0,
			},
		}}))
	})

	DescribeTable("edge cases",
		func(body, want obj) {
			Expect(trim.Inventory(body)).To(Equal(want))
		},
		Entry("nil body", nil, obj{"data": obj{}}),
		Entry("data is a list", obj{"data": []any{obj{"inventoryId": "a"}}}, obj{"data": obj{}}),
		Entry("no project, no organizationName",
			obj{"data": obj{"inventoryId": "a", "city": obj{"name": "Valdivia", "projectId": "p"}}},
			obj{"data": obj{"inventoryId": "a", "city": obj{"name": "Valdivia"}}}),
		Entry("a project without organization",
			obj{"data": obj{"inventoryId": "a", "city": obj{"project": obj{"name": "P"}}}},
			obj{"data": obj{"inventoryId": "a"}}),
		Entry("an organization without a name",
			obj{"data": obj{"inventoryId": "a", "city": obj{"project": obj{"organization": obj{"name": nil, "organizationId": "o"}}}}},
			obj{"data": obj{"inventoryId": "a"}}),
		Entry("null fields and a null city",
			obj{"data": obj{"inventoryId": "a", "year": nil, "totalEmissions": nil, "inventoryName": "", "city": nil}},
			obj{"data": obj{"inventoryId": "a"}}),
	)
})
