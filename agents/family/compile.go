package family

import (
	"net/url"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// definitions is where a draft-07 schema keeps its named subschemas, as a
// $ref names them.
const definitions = "#/definitions/"

// refSiblingsIgnored are the drafts in which a $ref's sibling keywords are
// not checked, so a root that is a $ref is its target.
var refSiblingsIgnored = map[string]bool{
	"http://json-schema.org/draft-04/schema#": true, "http://json-schema.org/draft-04/schema": true,
	"http://json-schema.org/draft-06/schema#": true, "http://json-schema.org/draft-06/schema": true,
	"http://json-schema.org/draft-07/schema#": true, "http://json-schema.org/draft-07/schema": true,
}

// compileSchema compiles doc, added as the resource loc, to the schema that
// jsonschema's Compile(loc) makes, definition by definition.
//
// One Compile queues every subschema it reaches and looks each one it
// meets up in that queue by a linear search: quadratic in the subschemas a
// compile reaches (8,061 for Vega-Lite's schema, all from its root).
// Subschemas an earlier Compile of the same Compiler made are looked up in
// a map instead. So, where the root is only a $ref into the definitions
// (which draft-04 to draft-07 check alone, its siblings ignored), the
// definitions its target reaches are compiled one strongly connected group
// of $refs at a time, those a definition refers to before it, each with a
// short queue; the target is then compiled last, out of those. The root
// itself is added without its $ref, or its compile would reach everything
// at once. Each subschema is compiled from the same place in the same
// document as one Compile would, so validation gives the same verdicts and
// errors. Any other schema is compiled with one Compile.
func compileSchema(loc string, doc any) (*jsonschema.Schema, error) {
	root, _ := doc.(map[string]any)
	draft, _ := root["$schema"].(string)
	target, _ := root["$ref"].(string)
	_, id := root["$id"]
	_, oldID := root["id"]
	defs, _ := root["definitions"].(map[string]any)
	start, isDef := definitionOf(target)
	c := jsonschema.NewCompiler()
	if !refSiblingsIgnored[draft] || id || oldID || !isDef || defs[start] == nil {
		if err := c.AddResource(loc, doc); err != nil {
			return nil, err
		}
		return c.Compile(loc)
	}
	rest := make(map[string]any, len(root))
	for k, v := range root {
		if k != "$ref" {
			rest[k] = v
		}
	}
	if err := c.AddResource(loc, rest); err != nil {
		return nil, err
	}
	for _, name := range refOrder(defs, start) {
		// A definition that does not compile is left to the last Compile,
		// which reports it if the target reaches it (a $ref-like string in
		// an enum reaches nothing).
		_, _ = c.Compile(loc + definitions + url.PathEscape(escapeToken(name)))
	}
	return c.Compile(loc + target)
}

// definitionOf returns the definition a local $ref points into, and
// whether it points into one.
func definitionOf(ref string) (string, bool) {
	rest, ok := strings.CutPrefix(ref, definitions)
	if !ok {
		return "", false
	}
	rest, err := url.PathUnescape(rest)
	if err != nil {
		return "", false
	}
	token, _, _ := strings.Cut(rest, "/")
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(token), true
}

// escapeToken writes a definition's name as a JSON pointer token.
func escapeToken(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

// refOrder lists the definitions reachable from start by $refs, each after
// every definition it refers to outside its own cycle (Tarjan's strongly
// connected components, which come out in that order).
func refOrder(defs map[string]any, start string) []string {
	var (
		order   []string
		stack   []string
		index   = map[string]int{}
		low     = map[string]int{}
		onStack = map[string]bool{}
		visit   func(name string)
	)
	visit = func(name string) {
		index[name], low[name] = len(index), len(index)
		stack = append(stack, name)
		onStack[name] = true
		for _, next := range refsIn(defs[name], defs) {
			if _, seen := index[next]; !seen {
				visit(next)
				low[name] = min(low[name], low[next])
			} else if onStack[next] {
				low[name] = min(low[name], index[next])
			}
		}
		if low[name] == index[name] {
			for {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[top] = false
				order = append(order, top)
				if top == name {
					break
				}
			}
		}
	}
	visit(start)
	return order
}

// refsIn lists the definitions that the $refs inside v point into, each
// once, sorted.
func refsIn(v any, defs map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					if name, ok := definitionOf(s); ok && defs[name] != nil && !seen[name] {
						seen[name] = true
						out = append(out, name)
					}
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	slices.Sort(out)
	return out
}
