package schema_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentreplay/testbed/agents/family/schema"
)

// FuzzInfer checks that Infer never panics on any JSON, that its schema
// marshals, keeps required within properties, is a fixed point of Merge with
// itself, and that for an array "items" is the Merge of its elements' schemas.
// The seed corpus is testdata/fuzz/FuzzInfer.
func FuzzInfer(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		s := schema.Infer(v)
		got, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("schema does not marshal: %v", err)
		}
		checkRequired(t, s)

		again, _ := json.Marshal(schema.Merge(s, s))
		if !bytes.Equal(got, again) {
			t.Errorf("Merge(s, s) differs from s:\n%s\n%s", got, again)
		}

		if list, ok := v.([]any); ok {
			items := map[string]any{}
			for _, e := range list {
				items = schema.Merge(items, schema.Infer(e))
			}
			delete(items, "$schema") // items are no root
			// The order of anyOf's alternatives is the order first seen,
			// which a bare "array" or "object" in a type list does not keep.
			want, _ := json.Marshal(unordered(items))
			have := []byte("{}")
			if s["items"] != nil {
				have, _ = json.Marshal(unordered(s["items"]))
			}
			if !bytes.Equal(want, have) {
				t.Errorf("items differ from the merged elements:\n%s\n%s", have, want)
			}
		}
	})
}

// checkRequired fails when some "required" key of s, at any depth, is not
// among its "properties".
func checkRequired(t *testing.T, s map[string]any) {
	t.Helper()
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]string)
	if !slices.IsSorted(req) {
		t.Errorf("required %q is not sorted", req)
	}
	for _, k := range req {
		if _, ok := props[k]; !ok {
			t.Errorf("required %q is not a property of %v", k, s)
		}
	}
	for _, p := range props {
		checkRequired(t, p.(map[string]any))
	}
	if items, ok := s["items"].(map[string]any); ok {
		checkRequired(t, items)
	}
}

// unordered is s with every anyOf's alternatives sorted by their JSON.
func unordered(s any) any {
	switch s := s.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, v := range s {
			out[k] = unordered(v)
		}
		if alts, ok := out["anyOf"].([]any); ok {
			slices.SortFunc(alts, func(a, b any) int {
				x, _ := json.Marshal(a)
				y, _ := json.Marshal(b)
				return bytes.Compare(x, y)
			})
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = unordered(v)
		}
		return out
	}
	return s
}
