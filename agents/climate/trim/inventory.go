package trim

import (
	"cmp"
	"slices"
)

// Listing trims GET /api/v1/user/inventories ({"data": [inventory…]}): keeps inventoryId, inventoryName, year, inventoryType,
// globalWarmingPotentialType, totalEmissions (when not null), city{name, locode} (+ country, region when present);
// drops cityId, totalCountryEmissions, isPublic, publishedAt, created, lastUpdated, any null/empty field; sorts newest year first
// (stable; ties keep input order).
//
// Inventories without a numeric year sort last; entries that are not
// objects are skipped. A body without a data list gives {"data": []}.
func Listing(body map[string]any) map[string]any {
	list, _ := body["data"].([]any)
	out := make([]any, 0, len(list))
	for _, e := range list {
		inv := object(e)
		if inv == nil {
			continue
		}
		t := map[string]any{}
		keep(t, inv, "inventoryId", "inventoryName", "year", "inventoryType", "globalWarmingPotentialType", "totalEmissions")
		if city := object(inv["city"]); city != nil {
			c := map[string]any{}
			keep(c, city, "name", "locode", "country", "region")
			if len(c) > 0 {
				t["city"] = c
			}
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b any) int {
		ya, oka := number(object(a)["year"])
		yb, okb := number(object(b)["year"])
		switch {
		case oka && okb:
			return cmp.Compare(yb, ya)
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	return map[string]any{"data": out}
}

// Inventory trims GET /api/v1/inventory/{id} ({"data": inventory}): keeps inventoryId, inventoryName, year, totalEmissions,
// inventoryType, globalWarmingPotentialType, city{name, locode, country, region, countryLocode, regionLocode, area}, and
// organizationName (from city.project.organization.name) when present; drops city.shape, project, organization objects,
// timestamps, publish flags, auxiliary ids, nulls.
//
// A body whose data is not an object gives {"data": {}}.
func Inventory(body map[string]any) map[string]any {
	t := map[string]any{}
	inv := object(body["data"])
	if inv == nil {
		return map[string]any{"data": t}
	}
	keep(t, inv, "inventoryId", "inventoryName", "year", "totalEmissions", "inventoryType", "globalWarmingPotentialType")
	if city := object(inv["city"]); city != nil {
		c := map[string]any{}
		keep(c, city, "name", "locode", "country", "region", "countryLocode", "regionLocode", "area")
		if len(c) > 0 {
			t["city"] = c
		}
		org := object(object(city["project"])["organization"])
		if name, ok := text(org["name"]); ok {
			t["organizationName"] = name
		}
	}
	return map[string]any{"data": t}
}
