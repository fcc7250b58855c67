// Package trim slims CityCatalyst tool payloads before they reach the model.
//
// The Climate Advisor tools return CityCatalyst API bodies (user inventories,
// one inventory, the data sources of an inventory) and knowledge-base matches.
// Most of those bytes are GeoJSON, timestamps, auxiliary ids, long
// descriptions and raw records that never change an answer. Each function here
// takes a body as decoded by encoding/json (map[string]any, []any, float64
// numbers) and returns a new, smaller value holding only what the model needs.
//
// The functions never mutate their input and never share memory with it, so a
// caller may keep the original body (for a cassette, a diff or a token count)
// next to the trimmed one. Output is deterministic. Nothing here fetches,
// serializes or validates: a field that is missing, null or of an unexpected
// type is left out, never invented, and nothing panics on odd input.
//
// SeedDatasources keeps the seed project's datasource trimmer as it was,
// including its shape mismatch with the real API, so that suites can replay
// the behaviour the seed shipped next to the intended one (Datasources).
package trim

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// clone returns a deep copy of a decoded JSON value.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = clone(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = clone(e)
		}
		return s
	default:
		return v
	}
}

// empty reports whether v carries nothing worth a token: null, "", {} or [].
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	default:
		return false
	}
}

// keep copies the non-empty values of keys from src into dst.
func keep(dst, src map[string]any, keys ...string) {
	for _, k := range keys {
		if v, ok := src[k]; ok && !empty(v) {
			dst[k] = clone(v)
		}
	}
}

// object returns v as a JSON object, or nil.
func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// text returns v when it is a non-empty string.
func text(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok && s != ""
}

// number returns v as a finite float64. It accepts JSON numbers and strings
// holding one (the Global API sends every number as a string).
func number(v any) (float64, bool) {
	var f float64
	switch v := v.(type) {
	case float64:
		f = v
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
