// Package schema infers a JSON Schema from JSON values, as genson does.
//
// Infer describes one value; Merge combines two descriptions as if their
// instances had been inferred together, so a schema can be built over many
// documents one at a time. The output is the schema genson's SchemaBuilder
// writes, meant to show a model the shape of data it cannot see in full:
// "$schema" at the root, then "type", "properties", "required", "items" and
// "anyOf", nothing else. It carries no values from the data (no enum,
// const, examples, formats or lengths).
//
// genson's rules, followed here:
//   - "$schema" is http://json-schema.org/schema# at the root only.
//   - Scalar types seen at one place make one "type": a name, or a sorted list
//     of names (["null", "string"]).
//   - An object with properties or required keys, or an array with items,
//     is a schema of its own; mixed with other types it goes into "anyOf"
//     after the schema of the scalar types, in the order first seen
//     ({"anyOf": [{"type": "string"}, {"type": "object", "properties": …}]}).
//   - integer ⊂ number: a number is "integer" when every instance is an
//     integer literal, as Python's json reads one (digits, no fraction or
//     exponent: 2.0 and 1e3 are numbers), "number" otherwise. Values that
//     arrive as float64 have lost their literal: an integral float64 counts
//     as an integer. Decode with encoding/json's UseNumber to keep it.
//   - "required" lists, sorted, the keys present in every object instance;
//     an empty array has no "items".
//
// This package exists because no maintained Go library infers a schema from
// instances: github.com/invopop/jsonschema, github.com/swaggest/jsonschema-go
// and github.com/google/jsonschema-go reflect on Go types, and
// github.com/xeipuuv/gojsonschema validates; the instance-based inferrers on
// GitHub (go-jsonschemate, jtd-infer-go) are not on the module proxy, mark
// every key required or emit JSON Type Definition instead.
package schema

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
)

// URI is the "$schema" genson's SchemaBuilder writes by default.
const URI = "http://json-schema.org/schema#"

// Infer returns the schema of v, a value as encoding/json decodes it into an
// any (nil, bool, float64, json.Number, string, []any, map[string]any), with
// "$schema" at its root. A value of any other Go type is described by the
// empty schema. The result shares no memory with v, and marshals
// deterministically (encoding/json sorts map keys).
func Infer(v any) map[string]any {
	var n node
	n.add(v)
	return root(n.schema())
}

// Merge combines two schemas as if their instances had been inferred
// together: Merge(Infer(a), Infer(b)) equals the "items" of
// Infer([]any{a, b}), with "$schema" at the root. The empty schema {} is the
// identity.
//
// Merge reads what Infer writes: "type" (a string or a list of strings),
// "properties", "required", "items" (each only when its type is there) and
// "anyOf"; it accepts schemas decoded from JSON as well as ones built by
// Infer. Other keywords are dropped. Neither input is modified, and the
// result shares no memory with them.
func Merge(a, b map[string]any) map[string]any {
	n := parse(a)
	n.merge(parse(b))
	return root(n.schema())
}

// root adds "$schema" to a schema that says anything.
func root(s map[string]any) map[string]any {
	if len(s) > 0 {
		s["$schema"] = URI
	}
	return s
}

// node is a schema under construction.
type node struct {
	types    map[string]bool  // JSON Schema type names seen
	order    []string         // "object" and "array", as first seen
	props    map[string]*node // by key, over every object instance
	required map[string]bool  // keys in every object instance; meaningful when types["object"]
	items    *node            // over every array element; nil when no element was seen
}

func (n *node) addType(t string) {
	if n.types == nil {
		n.types = map[string]bool{}
	}
	if (t == "object" || t == "array") && !slices.Contains(n.order, t) {
		n.order = append(n.order, t)
	}
	n.types[t] = true
}

// add records one instance.
func (n *node) add(v any) {
	switch v := v.(type) {
	case nil:
		n.addType("null")
	case bool:
		n.addType("boolean")
	case string:
		n.addType("string")
	case float64:
		n.addType(numberType(v))
	case json.Number:
		f, err := v.Float64()
		if err != nil && !math.IsInf(f, 0) { // out of range still gives ±Inf: a number
			return
		}
		if strings.ContainsAny(string(v), ".eE") {
			n.addType("number") // Python's json reads a float
		} else {
			n.addType("integer")
		}
	case []any:
		n.addType("array")
		for _, e := range v {
			if n.items == nil {
				n.items = &node{}
			}
			n.items.add(e)
		}
	case map[string]any:
		keys := make(map[string]bool, len(v))
		for k, e := range v {
			keys[k] = true
			n.prop(k).add(e)
		}
		n.addObject(keys)
	}
}

// numberType is "integer" for a finite integral f, else "number".
func numberType(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return "number"
	}
	return "integer"
}

// prop returns the property node for k, creating it.
func (n *node) prop(k string) *node {
	if n.props == nil {
		n.props = map[string]*node{}
	}
	p, ok := n.props[k]
	if !ok {
		p = &node{}
		n.props[k] = p
	}
	return p
}

// addObject records object instances whose common keys are keys.
func (n *node) addObject(keys map[string]bool) {
	if !n.types["object"] {
		n.addType("object")
		n.required = keys
		return
	}
	for k := range n.required {
		if !keys[k] {
			delete(n.required, k)
		}
	}
}

// merge adds every instance o describes; o must not be used afterwards.
func (n *node) merge(o *node) {
	before := slices.Clone(n.order)
	if o.types["object"] {
		n.addObject(o.required)
	}
	// addObject may have added "object" ahead of an "array" o saw first.
	n.order = mergeOrder(before, o.order)
	for t := range o.types {
		n.addType(t)
	}
	for k, p := range o.props {
		n.prop(k).merge(p)
	}
	if o.items != nil {
		if n.items == nil {
			n.items = &node{}
		}
		n.items.merge(o.items)
	}
}

// mergeOrder is the first-seen order of "object" and "array" over the
// instances of mine, then of theirs.
func mergeOrder(mine, theirs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range slices.Concat(mine, theirs) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// schema renders n as a fresh map, without "$schema".
func (n *node) schema() map[string]any {
	var scalars []string
	for t := range n.types {
		if t == "integer" && n.types["number"] || t == "object" || t == "array" {
			continue
		}
		scalars = append(scalars, t)
	}
	var own []map[string]any // objects and arrays that say more than their type
	for _, t := range n.order {
		s := map[string]any{"type": t}
		if t == "object" {
			if len(n.props) > 0 {
				props := make(map[string]any, len(n.props))
				for k, p := range n.props {
					props[k] = p.schema()
				}
				s["properties"] = props
			}
			if len(n.required) > 0 {
				s["required"] = slices.Sorted(maps.Keys(n.required))
			}
		} else if n.items != nil {
			s["items"] = n.items.schema()
		}
		if len(s) == 1 {
			scalars = append(scalars, t)
		} else {
			own = append(own, s)
		}
	}
	slices.Sort(scalars)
	var alts []map[string]any
	switch len(scalars) {
	case 0:
	case 1:
		alts = append(alts, map[string]any{"type": scalars[0]})
	default:
		alts = append(alts, map[string]any{"type": scalars})
	}
	alts = append(alts, own...)
	switch len(alts) {
	case 0:
		return map[string]any{}
	case 1:
		return alts[0]
	}
	list := make([]any, len(alts))
	for i, a := range alts {
		list[i] = a
	}
	return map[string]any{"anyOf": list}
}

// parse reads a schema as Infer writes it, or as JSON decodes it.
func parse(s map[string]any) *node {
	n := parseType(s)
	var alts []any
	switch a := s["anyOf"].(type) {
	case []any:
		alts = a
	case []map[string]any:
		for _, e := range a {
			alts = append(alts, e)
		}
	}
	for _, a := range alts {
		if a, ok := a.(map[string]any); ok {
			n.merge(parse(a))
		}
	}
	return n
}

// parseType reads a schema's "type" and what goes with it.
func parseType(s map[string]any) *node {
	n := &node{}
	for _, t := range names(s["type"]) {
		n.addType(t)
	}
	if n.types["object"] {
		n.required = map[string]bool{}
		for _, k := range names(s["required"]) {
			n.required[k] = true
		}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			if p, ok := p.(map[string]any); ok {
				n.prop(k).merge(parse(p))
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok && n.types["array"] {
		n.items = parse(items)
	}
	return n
}

// names returns v as a list of strings: v itself when it is one, the string
// elements when it is a list.
func names(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
