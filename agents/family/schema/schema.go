// Package schema infers a JSON Schema from JSON values, as genson does.
//
// Infer describes one value; Merge combines two descriptions as if their
// instances had been inferred together, so a schema can be built over many
// documents one at a time. The output is a small draft-07-style schema meant
// to show a model the shape of data it cannot see in full: "type",
// "properties", "required" and "items", nothing else. It carries no values
// from the data (no enum, const, examples, formats or lengths) and no
// "$schema" keyword, and it uses a list of types where genson would write
// anyOf (an object mixed with strings is {"type": ["object", "string"],
// "properties": …}).
//
// Numbers follow genson's rule that integer ⊂ number: a number is "integer"
// when every instance is integral, "number" otherwise. Because values arrive
// as float64, 1.0 counts as integral here, where genson, seeing a Python
// float, would say "number".
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
	"math"
	"slices"
)

// Infer returns the schema of v, a value as encoding/json decodes it into an
// any (nil, bool, float64, json.Number, string, []any, map[string]any).
//
// "type" is one type name, or a sorted list of them when instances differ
// (["null", "string"]). Objects get "properties", merged over every instance,
// and "required", the sorted keys present in every instance; arrays get
// "items", the merged schema of all their elements, absent for an empty array.
// Empty properties and required lists are left out. A value of any other Go
// type is described by the empty schema {}. The result shares no memory with
// v, and marshals deterministically (encoding/json sorts map keys).
func Infer(v any) map[string]any {
	var n node
	n.add(v)
	return n.schema()
}

// Merge combines two schemas as if their instances had been inferred
// together: Merge(Infer(a), Infer(b)) equals the "items" of
// Infer([]any{a, b}). The empty schema {} is the identity.
//
// Merge reads only what Infer writes: "type" (a string or a list of strings),
// "properties", "required" and "items" (each only when "type" includes
// "object" or "array"); it accepts schemas decoded from JSON as well as ones
// built by Infer. Other keywords are dropped. Neither input is modified, and
// the result shares no memory with them.
func Merge(a, b map[string]any) map[string]any {
	n := parse(a)
	n.merge(parse(b))
	return n.schema()
}

// node is a schema under construction.
type node struct {
	types    map[string]bool  // JSON Schema type names seen
	props    map[string]*node // by key, over every object instance
	required map[string]bool  // keys in every object instance; meaningful when types["object"]
	items    *node            // over every array element; nil when no element was seen
}

func (n *node) addType(t string) {
	if n.types == nil {
		n.types = map[string]bool{}
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
		n.addType(numberType(f))
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
	if o.types["object"] {
		n.addObject(o.required)
	}
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

// schema renders n as a fresh map.
func (n *node) schema() map[string]any {
	s := map[string]any{}
	var types []string
	for t := range n.types {
		if t == "integer" && n.types["number"] {
			continue
		}
		types = append(types, t)
	}
	slices.Sort(types)
	switch len(types) {
	case 0:
		return s
	case 1:
		s["type"] = types[0]
	default:
		s["type"] = types
	}
	if n.types["object"] {
		if len(n.props) > 0 {
			props := make(map[string]any, len(n.props))
			for k, p := range n.props {
				props[k] = p.schema()
			}
			s["properties"] = props
		}
		if len(n.required) > 0 {
			req := make([]string, 0, len(n.required))
			for k := range n.required {
				req = append(req, k)
			}
			slices.Sort(req)
			s["required"] = req
		}
	}
	if n.types["array"] && n.items != nil {
		s["items"] = n.items.schema()
	}
	return s
}

// parse reads a schema as Infer writes it, or as JSON decodes it.
func parse(s map[string]any) *node {
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
