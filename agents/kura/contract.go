package kura

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Violation is one part of a delta that breaks the contract.
type Violation struct {
	Path    string // dotted, e.g. "context.weather"
	Problem string // "unknown field" or "is a string, want an object"
}

// String formats v as "path: problem".
func (v Violation) String() string { return v.Path + ": " + v.Problem }

// CheckDelta checks an Executor's delta against the world state contract
// (WorldState, as the real project's Pydantic WorldState and SpecialistOut
// have it) before DeepMerge. It returns the part of delta that fits, and
// what did not: an unknown field or a value of the wrong JSON type is left
// out, never merged. The delta itself is not changed.
func CheckDelta(delta map[string]any) (map[string]any, []Violation) {
	var out []Violation
	clean := checkObject(reflect.TypeFor[WorldState](), delta, "", &out)
	return clean, out
}

// checkObject keeps the fields of obj that t declares with a fitting value.
func checkObject(t reflect.Type, obj map[string]any, path string, out *[]Violation) map[string]any {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields[name] = f.Type
	}
	clean := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		p := join(path, k)
		ft, ok := fields[k]
		if !ok {
			*out = append(*out, Violation{Path: p, Problem: "unknown field"})
			continue
		}
		if v, ok := checkValue(ft, obj[k], p, out); ok {
			clean[k] = v
		}
	}
	return clean
}

// checkValue reports whether v fits t, with the fitting part of v.
func checkValue(t reflect.Type, v any, path string, out *[]Violation) (any, bool) {
	if v == nil {
		return nil, true // JSON null clears a field, as in Pydantic's Optional
	}
	want := ""
	switch t.Kind() {
	case reflect.Interface:
		return v, true
	case reflect.Struct:
		if m, ok := v.(map[string]any); ok {
			return checkObject(t, m, path, out), true
		}
		want = "an object"
	case reflect.Map:
		if _, ok := v.(map[string]any); ok {
			return v, true
		}
		want = "an object"
	case reflect.Slice:
		if list, ok := v.([]any); ok {
			if t.Elem().Kind() == reflect.String && slices.ContainsFunc(list, func(e any) bool { _, s := e.(string); return !s }) {
				want = "a list of strings"
				break
			}
			return v, true
		}
		want = "a list"
	case reflect.String:
		if _, ok := v.(string); ok {
			return v, true
		}
		want = "a string"
	}
	*out = append(*out, Violation{Path: path, Problem: fmt.Sprintf("is %s, want %s", jsonKind(v), want)})
	return nil, false
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
