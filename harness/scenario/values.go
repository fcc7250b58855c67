package scenario

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// mapping checks that v is a mapping whose keys are all in allowed, and
// returns it, resolved, with its fields.
func (d *decoder) mapping(v *yaml.Node, at, want string, allowed ...string) (*yaml.Node, fields, bool) {
	v = resolve(v)
	if !d.present(v, at) {
		return nil, nil, false
	}
	if v.Kind != yaml.MappingNode {
		d.want(v, at, want)
		return nil, nil, false
	}
	list, byKey := d.fields(v, at)
	byKey = maps.Clone(byKey) // the memo's stays whole
	for _, f := range list {
		if !slices.Contains(allowed, f.key.Value) {
			msg := fmt.Sprintf("unknown key %q (allowed: %s)", f.key.Value, strings.Join(allowed, ", "))
			if s := suggest(f.key.Value, allowed); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
				d.typos[typo{v, s}] = true
			}
			d.errorf(f.key.Line, at, "%s", msg)
			delete(byKey, f.key.Value)
		}
	}
	return v, byKey, true
}

// nonEmpty records a problem if mapping m has no fields.
func (d *decoder) nonEmpty(m *yaml.Node, fs fields, at string, allowed ...string) bool {
	if len(fs) > 0 {
		return true
	}
	d.errorf(m.Line, at, "empty mapping; set at least one of %s, or remove it", strings.Join(allowed, ", "))
	return false
}

// require records a problem for every key missing from mapping m, unless
// an unknown key in m was taken for it.
func (d *decoder) require(m *yaml.Node, fs fields, at string, keys ...string) {
	for _, k := range keys {
		if _, ok := fs[k]; !ok && !d.typos[typo{m, k}] {
			d.errorf(m.Line, at, "missing required key %q", k)
		}
	}
}

// str returns a non-empty scalar as written.
func (d *decoder) str(v *yaml.Node, at string) (string, bool) {
	v = resolve(v)
	if !d.present(v, at) {
		return "", false
	}
	if v.Kind != yaml.ScalarNode {
		d.want(v, at, "a string")
		return "", false
	}
	return v.Value, true
}

// enum returns a string that must be one of allowed.
func (d *decoder) enum(v *yaml.Node, at string, allowed ...string) (string, bool) {
	s, ok := d.str(v, at)
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, s) {
		d.errorf(resolve(v).Line, at, "want one of %s, got %q%s", strings.Join(allowed, ", "), s, d.ofColumn(resolve(v)))
		return "", false
	}
	return s, true
}

// strs returns a list of non-empty strings; with single, one string is
// taken as a list of one.
func (d *decoder) strs(v *yaml.Node, at string, single bool) ([]string, bool) {
	v = resolve(v)
	want := "a list of strings"
	if single {
		want = "a string or a list of strings"
	}
	switch {
	case isNull(v):
		d.present(v, at)
		return nil, false
	case v.Kind == yaml.ScalarNode && single:
		s, ok := d.str(v, at)
		return []string{s}, ok
	case v.Kind != yaml.SequenceNode:
		d.want(v, at, want)
		return nil, false
	}
	out := make([]string, 0, len(v.Content))
	ok := true
	for i, item := range v.Content {
		s, good := d.str(item, index(at, i))
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

// integer returns an integer no less than lowest.
func (d *decoder) integer(v *yaml.Node, at string, lowest int) (int, bool) {
	v = resolve(v)
	if !d.present(v, at) {
		return 0, false
	}
	var i int
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" {
		d.want(v, at, "an integer")
		return 0, false
	}
	if err := v.Decode(&i); err != nil {
		d.errorf(v.Line, at, "integer %s is out of range", v.Value)
		return 0, false
	}
	if i < lowest {
		d.errorf(v.Line, at, "want %d or more, got %d", lowest, i)
		return 0, false
	}
	return i, true
}

// number returns a finite number.
func (d *decoder) number(v *yaml.Node, at string) (float64, bool) {
	v = resolve(v)
	if !d.present(v, at) {
		return 0, false
	}
	var f float64
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" && v.ShortTag() != "!!float" || v.Decode(&f) != nil {
		d.want(v, at, "a number")
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		d.errorf(v.Line, at, "want a finite number, got %s", v.Value)
		return 0, false
	}
	return f, true
}

// anyMap decodes a mapping of anything into plain Go values: maps with
// string keys, []any, string, int, float64, bool and nil.
func (d *decoder) anyMap(v *yaml.Node, at string) (map[string]any, bool) {
	v = resolve(v)
	if !d.present(v, at) {
		return nil, false
	}
	if v.Kind != yaml.MappingNode {
		d.want(v, at, "a mapping")
		return nil, false
	}
	before := len(d.errs)
	d.checkKeys(v, at, map[*yaml.Node]bool{})
	if len(d.errs) > before {
		return nil, false
	}
	var m any
	if err := v.Decode(&m); err != nil {
		d.errorf(v.Line, at, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		return nil, false
	}
	out, _ := plain(m).(map[string]any)
	return out, true
}

// checkKeys reports keys that are not strings, repeated keys and bad merges
// in the mappings in v, visiting each node once.
func (d *decoder) checkKeys(v *yaml.Node, at string, seen map[*yaml.Node]bool) {
	v = resolve(v)
	if v == nil || seen[v] {
		return
	}
	seen[v] = true
	switch v.Kind {
	case yaml.MappingNode:
		list, _ := d.fields(v, at)
		for _, f := range list {
			d.checkKeys(f.val, join(at, f.key.Value), seen)
		}
	case yaml.SequenceNode:
		for i, item := range v.Content {
			d.checkKeys(item, index(at, i), seen)
		}
	}
}

// plain turns the map[any]any that yaml makes for non-string keys into
// map[string]any, all the way down.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = plain(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = plain(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = plain(e)
		}
		return x
	}
	return v
}

// mappings calls each for every item of a list of mappings with the
// allowed keys (want names them for messages, as "file, mime and
// description"), after checking the required ones.
func (d *decoder) mappings(v *yaml.Node, at, want string, allowed, required []string, each func(at string, m *yaml.Node, fs fields)) {
	r := resolve(v)
	if r.Kind != yaml.SequenceNode {
		d.want(v, at, "a list of {"+strings.Join(allowed, ", ")+"}")
		return
	}
	for i, item := range r.Content {
		at := index(at, i)
		m, fs, ok := d.mapping(item, at, "a mapping with "+want, allowed...)
		if !ok {
			continue
		}
		d.require(m, fs, at, required...)
		each(at, m, fs)
	}
}
