package trim

// SeedDatasources is a faithful port of the seed project's trim_datasources_response, kept to show its bug: it expects
// {"data": {"successfulSources": [...]}} and returns {"data": []} for any other shape, including the real one; entries are
// read flat (datasourceName, retrievalMethod, … at top level) and emissions from data.totals.co2eq_100yr.
//
// As in the seed, values are copied as they are (a datasetName object, a
// string number), null entries are skipped, and a top-level error and
// error_code are carried over when the shape is the expected one.
func SeedDatasources(body map[string]any) map[string]any {
	d := object(body["data"])
	if d == nil {
		return map[string]any{"data": []any{}}
	}
	list, _ := d["successfulSources"].([]any)
	out := make([]any, 0, len(list))
	for _, e := range list {
		if entry := object(e); entry != nil {
			out = append(out, seedEntry(entry))
		}
	}
	res := map[string]any{"data": out}
	for _, k := range []string{"error", "error_code"} {
		if truthy(body[k]) {
			res[k] = clone(body[k])
		}
	}
	return res
}

// seedEntry ports trim_datasource_entry, Python truthiness included.
func seedEntry(src map[string]any) map[string]any {
	t := map[string]any{}
	if v := src["datasourceName"]; truthy(v) {
		t["datasourceName"] = clone(v)
	} else if v := src["datasetName"]; truthy(v) {
		t["datasourceName"] = clone(v)
	}
	for _, k := range []string{"sourceType", "retrievalMethod", "geographicalLocation"} {
		if truthy(src[k]) {
			t[k] = clone(src[k])
		}
	}
	for _, k := range []string{"startYear", "endYear"} {
		if src[k] != nil {
			t[k] = clone(src[k])
		}
	}
	// subSector, subCategory and scope: the name of an object, anything else as is.
	for _, k := range []string{"subSector", "subCategory", "scope"} {
		v := src[k]
		if v == nil {
			continue
		}
		if m, ok := v.(map[string]any); ok {
			if truthy(m["name"]) {
				t[k] = clone(m["name"])
			}
			continue
		}
		t[k] = clone(v)
	}
	if truthy(src["referenceNumber"]) {
		t["referenceNumber"] = clone(src["referenceNumber"])
	}
	if truthy(src["issue"]) {
		t["issue"] = clone(src["issue"])
	}
	if src["scaleFactor"] != nil {
		t["scaleFactor"] = clone(src["scaleFactor"])
	}
	data, ok := src["data"].(map[string]any)
	if !ok {
		return t
	}
	summary := map[string]any{}
	if totals, ok := data["totals"].(map[string]any); ok {
		for _, k := range []string{"co2eq_100yr", "co2", "ch4", "n2o"} {
			if totals[k] != nil {
				summary[k] = clone(totals[k])
			}
		}
	}
	if data["recordsCount"] != nil {
		summary["recordsCount"] = clone(data["recordsCount"])
	}
	if truthy(data["unavailableReason"]) {
		summary["unavailableReason"] = clone(data["unavailableReason"])
	}
	if len(summary) > 0 {
		t["data"] = summary
	}
	return t
}

// truthy is Python's truth test on a decoded JSON value.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	default:
		return !empty(v)
	}
}
