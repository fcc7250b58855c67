package cassette

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// tool is one function a model request declares, by name, and where.
type tool struct {
	name string
	decl map[string]any // name, description, parameters (or input_schema …)
}

// toolsOf reads the tools of a model request in any of the wire formats:
// OpenAI Chat Completions ({type, function: {name, description,
// parameters}}, or a custom tool's {type: custom, custom: {name,
// description, format}}), OpenAI Responses ({type, name, description, parameters}),
// Anthropic ({name, description, input_schema}), Gemini
// ({functionDeclarations: [{name, description, parameters}]}, or
// function_declarations); a built-in
// tool without a name ({type: web_search}, {googleSearch: {}}) is named by
// its type or key. False when there are no tools or two share a name.
func toolsOf(v any) ([]tool, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	var out []tool
	add := func(name string, decl map[string]any) {
		out = append(out, tool{name: name, decl: decl})
	}
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		fds, ok := m["functionDeclarations"].([]any)
		if !ok {
			fds, ok = m["function_declarations"].([]any)
		}
		if ok {
			for _, fd := range fds {
				d, ok := fd.(map[string]any)
				if !ok {
					return nil, false
				}
				name, _ := d["name"].(string)
				add(name, d)
			}
			continue
		}
		wrapper := "function"
		f, ok := m[wrapper].(map[string]any)
		if !ok {
			wrapper = "custom"
			f, ok = m[wrapper].(map[string]any)
		}
		if ok {
			// Chat Completions: the function (or custom tool), and
			// whatever the wrapper adds beside type (which names the
			// wrapper).
			d := maps.Clone(f)
			for k, v := range m {
				if _, clash := d[k]; !clash && k != wrapper && k != "type" {
					d[k] = v
				}
			}
			name, _ := f["name"].(string)
			add(name, d)
			continue
		}
		name, _ := m["name"].(string)
		if name == "" {
			name, _ = m["type"].(string)
		}
		if name == "" && len(m) == 1 {
			for k := range m {
				name = k
			}
		}
		add(name, m)
	}
	seen := map[string]bool{}
	for _, t := range out {
		if t.name == "" || seen[t.name] {
			return nil, false
		}
		seen[t.name] = true
	}
	return out, true
}

// toolsDiff compares the tools of two model requests by name; false when
// either has none it can read that way (then "tools" is compared by JSON
// pointer with the rest).
func toolsDiff(recorded, live map[string]any) ([]string, bool) {
	_, rhas := recorded["tools"]
	_, lhas := live["tools"]
	if !rhas && !lhas {
		return nil, false
	}
	rt, rok := toolsOf(recorded["tools"])
	lt, lok := toolsOf(live["tools"])
	switch {
	case !rhas && lok:
		rt, rok = nil, true
	case !lhas && rok:
		lt, lok = nil, true
	}
	if !rok || !lok {
		return nil, false
	}
	byName := func(ts []tool) map[string]tool {
		m := map[string]tool{}
		for _, t := range ts {
			m[t.name] = t
		}
		return m
	}
	rn, ln := byName(rt), byName(lt)
	var out []string
	var rOrder, lOrder []string
	for _, t := range rt {
		if _, ok := ln[t.name]; !ok {
			out = append(out, "tool removed: "+t.name)
		} else {
			rOrder = append(rOrder, t.name)
		}
	}
	for _, t := range lt {
		if _, ok := rn[t.name]; !ok {
			line := "tool added: " + t.name
			if d, ok := t.decl["description"].(string); ok && d != "" {
				line += fmt.Sprintf(" (%s)", clip(compactJSON(d)))
			}
			out = append(out, line)
		} else {
			lOrder = append(lOrder, t.name)
		}
	}
	if !slices.Equal(rOrder, lOrder) {
		out = append(out, fmt.Sprintf("tools reordered: %s → %s", strings.Join(rOrder, ", "), strings.Join(lOrder, ", ")))
	}
	for _, name := range lOrder {
		out = append(out, declDiff(name, rn[name].decl, ln[name].decl)...)
	}
	return out, true
}

// schemaKeys are the keys that hold a tool's parameters, by wire format.
var schemaKeys = []string{"parameters", "input_schema", "parametersJsonSchema", "inputSchema"}

// declDiff is how one tool's declaration changed: its description, each
// parameter (added, removed, its type or anything else), which are
// required, and anything else by JSON pointer.
func declDiff(name string, recorded, live map[string]any) []string {
	recorded, live = maps.Clone(recorded), maps.Clone(live)
	at := "tool " + name + ": "
	var out []string
	if rd, ld := recorded["description"], live["description"]; !equalJSON(rd, ld) {
		a, b := clipPair(jsonOrAbsent(rd), jsonOrAbsent(ld))
		out = append(out, fmt.Sprintf("%sdescription changed: %s → %s", at, a, b))
	}
	delete(recorded, "description")
	delete(live, "description")
	for _, key := range schemaKeys {
		rs, rok := recorded[key].(map[string]any)
		ls, lok := live[key].(map[string]any)
		if !rok || !lok {
			continue
		}
		out = append(out, schemaDiff(at, "/"+key, rs, ls)...)
		delete(recorded, key)
		delete(live, key)
	}
	d, _ := pointerDiff("", recorded, live)
	for _, line := range d {
		out = append(out, at+line)
	}
	return out
}

// schemaDiff compares two JSON schemas of a tool's parameters: each
// property by name, then required, then the rest by JSON pointer.
func schemaDiff(at, key string, recorded, live map[string]any) []string {
	recorded, live = maps.Clone(recorded), maps.Clone(live)
	var out []string
	rp, rok := recorded["properties"].(map[string]any)
	lp, lok := live["properties"].(map[string]any)
	if rok && lok {
		for _, p := range slices.Sorted(maps.Keys(rp)) {
			if _, ok := lp[p]; !ok {
				out = append(out, fmt.Sprintf("%sparameter removed: %s", at, p))
			}
		}
		for _, p := range slices.Sorted(maps.Keys(lp)) {
			r, ok := rp[p]
			if !ok {
				out = append(out, fmt.Sprintf("%sparameter added: %s %s", at, p, clip(compactJSON(lp[p]))))
				continue
			}
			out = append(out, paramDiff(at+"parameter "+p+": ", r, lp[p])...)
		}
		delete(recorded, "properties")
		delete(live, "properties")
	}
	rr, rok := stringSet(recorded["required"])
	lr, lok := stringSet(live["required"])
	if rok && lok {
		for _, p := range slices.Sorted(maps.Keys(lr)) {
			if !rr[p] {
				out = append(out, fmt.Sprintf("%sparameter %s is now required", at, p))
			}
		}
		for _, p := range slices.Sorted(maps.Keys(rr)) {
			if !lr[p] {
				out = append(out, fmt.Sprintf("%sparameter %s is no longer required", at, p))
			}
		}
		delete(recorded, "required")
		delete(live, "required")
	}
	d, _ := pointerDiff(key, recorded, live)
	for _, line := range d {
		out = append(out, at+line)
	}
	return out
}

// paramDiff is how one parameter's schema changed: its type, its
// description, and the rest by JSON pointer.
func paramDiff(at string, recorded, live any) []string {
	rm, rok := recorded.(map[string]any)
	lm, lok := live.(map[string]any)
	if !rok || !lok {
		d, _ := pointerDiff("", recorded, live)
		return prefixed(at, d)
	}
	rm, lm = maps.Clone(rm), maps.Clone(lm)
	var out []string
	for _, k := range []string{"type", "description"} {
		if r, l := rm[k], lm[k]; !equalJSON(r, l) {
			a, b := clipPair(jsonOrAbsent(r), jsonOrAbsent(l))
			out = append(out, fmt.Sprintf("%s%s changed: %s → %s", at, k, a, b))
		}
		delete(rm, k)
		delete(lm, k)
	}
	d, _ := pointerDiff("", rm, lm)
	return append(out, prefixed(at, d)...)
}

// stringSet reads a list of strings; false when v is not one (absent is an
// empty set).
func stringSet(v any) (map[string]bool, bool) {
	out := map[string]bool{}
	if v == nil {
		return out, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out[s] = true
	}
	return out, true
}
