package trim

// notationKeys are the GPC notation keys, as codes and as the CityCatalyst
// translation keys an issue may carry.
var notationKeys = map[string]bool{
	"NO": true, "NE": true, "IE": true, "C": true,
	"no-occurrance": true, "no-occurrence": true, "not-estimated": true,
	"confidential-information": true, "included-elsewhere": true, "presented-elsewhere": true,
}

// noTotals is the unavailableReason of a source that reports no totals and no issue.
const noTotals = "no totals in source data"

// gases maps each output key of the data summary to the Global API keys it is
// read from, under data.totals.emissions, in order of preference. The seed's
// flat data.totals.<key> is read when none of them parses.
var gases = []struct {
	key       string
	emissions []string
}{
	{"co2eq_100yr", []string{"co2eq_100yr"}},
	{"co2", []string{"co2_co2eq", "co2_mass"}},
	{"ch4", []string{"ch4_co2eq_100yr", "ch4_co2eq"}},
	{"n2o", []string{"n2o_co2eq_100yr", "n2o_co2eq"}},
}

// Datasources trims GET /api/v1/datasource/{inventoryId}. It accepts the REAL shape
// {"data": [{"source": {...}, "data": {...}}], "removedSources": [...], "failedSources": [...]} AND the seed's assumed shape
// {"data": {"successfulSources": [...], ...}} (entries either {source, data} or flat), returns
// {"data": [trimmed successful…], "count": N} where each trimmed entry has: datasourceName (falls back to datasetName.en or a
// string datasetName), sourceType, retrievalMethod, geographicalLocation, startYear, endYear, subSector (name),
// subCategory (name), referenceNumber (from subCategory or subSector), scope (name, from subCategory.scope.scopeName or
// scopes[0].scopeName), issue (when not null), scaleFactor, and "data": {co2eq_100yr, co2, ch4, n2o (numbers parsed from the
// strings under data.totals.emissions: co2_co2eq or co2_mass, ch4_co2eq_100yr, n2o_co2eq_100yr; also accept
// data.totals.co2eq_100yr flat), recordsCount, unavailableReason (when the source's issue is a notation key / there are no
// totals)}. No datasourceId, records, inventoryValues, publisher, description/methodology/transformation text, URLs.
// removedSources and failedSources are dropped. Unparseable pieces are skipped, never invented.
//
// Entries that are not objects are skipped, so count (a float64, like every
// number here) is the number of successful sources in the body. Any other body
// gives {"data": [], "count": 0}.
func Datasources(body map[string]any) map[string]any {
	var list []any
	switch d := body["data"].(type) {
	case []any:
		list = d
	case map[string]any:
		list, _ = d["successfulSources"].([]any)
	}
	out := make([]any, 0, len(list))
	for _, e := range list {
		if entry := object(e); entry != nil {
			out = append(out, datasource(entry))
		}
	}
	return map[string]any{"data": out, "count": float64(len(out))}
}

// datasource trims one successful entry, either {source, data} as the API
// sends it or flat (the source row at top level) as the seed assumed.
func datasource(entry map[string]any) map[string]any {
	src := entry
	if s := object(entry["source"]); s != nil {
		src = s
	}
	payload := object(entry["data"])
	// The API puts issue and scaleFactor in data; the seed expected them beside the source.
	attr := func(k string) any {
		if v, ok := payload[k]; ok && v != nil {
			return v
		}
		return entry[k]
	}

	t := map[string]any{}
	if name, ok := datasourceName(src); ok {
		t["datasourceName"] = name
	}
	for _, k := range []string{"sourceType", "retrievalMethod", "geographicalLocation"} {
		if s, ok := text(src[k]); ok {
			t[k] = s
		}
	}
	for _, k := range []string{"startYear", "endYear"} {
		if n, ok := number(src[k]); ok {
			t[k] = n
		}
	}

	// A source hangs off a subcategory or a subsector; the subcategory knows its subsector.
	subCategory := object(src["subCategory"])
	subSector := src["subSector"]
	if empty(subSector) {
		subSector = subCategory["subsector"]
	}
	if s, ok := name(subSector, "subsectorName"); ok {
		t["subSector"] = s
	}
	if s, ok := name(src["subCategory"], "subcategoryName"); ok {
		t["subCategory"] = s
	}
	if s, ok := first(subCategory["referenceNumber"], object(subSector)["referenceNumber"], src["referenceNumber"]); ok {
		t["referenceNumber"] = s
	}
	if s, ok := scope(src, subCategory); ok {
		t["scope"] = s
	}

	issue, hasIssue := text(attr("issue"))
	if hasIssue {
		t["issue"] = issue
	}
	if n, ok := number(attr("scaleFactor")); ok {
		t["scaleFactor"] = n
	}

	summary := map[string]any{}
	totals := object(payload["totals"])
	emissions := object(totals["emissions"])
	for _, g := range gases {
		for _, k := range g.emissions {
			if n, ok := number(emissions[k]); ok {
				summary[g.key] = n
				break
			}
		}
		if _, ok := summary[g.key]; !ok {
			if n, ok := number(totals[g.key]); ok {
				summary[g.key] = n
			}
		}
	}
	hasTotals := len(summary) > 0
	if records, ok := payload["records"].([]any); ok {
		summary["recordsCount"] = float64(len(records))
	} else if n, ok := number(payload["recordsCount"]); ok {
		summary["recordsCount"] = n
	}
	switch reason, ok := text(payload["unavailableReason"]); {
	case ok:
		summary["unavailableReason"] = reason
	case hasIssue && (notationKeys[issue] || !hasTotals):
		summary["unavailableReason"] = issue
	case !hasTotals:
		summary["unavailableReason"] = noTotals
	}
	t["data"] = summary
	return t
}

// datasourceName returns datasourceName, else the English or plain datasetName.
func datasourceName(src map[string]any) (string, bool) {
	if s, ok := text(src["datasourceName"]); ok {
		return s, true
	}
	if s, ok := text(object(src["datasetName"])["en"]); ok {
		return s, true
	}
	return text(src["datasetName"])
}

// name returns v itself when it is a string, else its field named key, else
// its "name" field (the seed's assumption).
func name(v any, key string) (string, bool) {
	if s, ok := text(v); ok {
		return s, true
	}
	m := object(v)
	return first(m[key], m["name"])
}

// scope returns the scope name of a source: the one of its subcategory, else
// the first of its scopes, else a flat scope field.
func scope(src, subCategory map[string]any) (string, bool) {
	if s, ok := name(subCategory["scope"], "scopeName"); ok {
		return s, true
	}
	if scopes, _ := src["scopes"].([]any); len(scopes) > 0 {
		if s, ok := name(scopes[0], "scopeName"); ok {
			return s, true
		}
	}
	return name(src["scope"], "scopeName")
}

// first returns the first non-empty string among vs.
func first(vs ...any) (string, bool) {
	for _, v := range vs {
		if s, ok := text(v); ok {
			return s, true
		}
	}
	return "", false
}
