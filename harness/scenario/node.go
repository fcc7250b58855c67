package scenario

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder walks a suite file's YAML nodes and collects every problem it finds.
type decoder struct {
	path string
	opts LoadOptions
	errs Errors

	// variants are the suite's variant names in file order; known is false
	// when the variants key is missing or broken, so that names are not
	// checked against it.
	variants []string
	known    bool

	// headRead is true when the agent and the variants were read without
	// problems, so that LoadOptions.Check can build the agent under each.
	headRead bool

	// dirLine is the line of agent.dir, for paths.
	dirLine int

	// typos are the keys that unknown keys were taken for, so that they are
	// not also reported as missing.
	typos map[typo]bool

	// cells are the nodes a data file's row put in a scenario, by the
	// column they came from, for messages about their values.
	cells map[*yaml.Node]string

	// merged memoises fields per mapping: a mapping merged many times
	// (anchors merging anchors, nine times per level) is expanded once, and
	// its problems are reported once, so the work stays linear in the file.
	merged map[*yaml.Node]mergedFields
}

// mergedFields is what fields returns for one mapping.
type mergedFields struct {
	list  []field
	byKey fields
}

// typo is a key that an unknown key in a mapping was taken for.
type typo struct {
	mapping *yaml.Node
	key     string
}

// field is one key and its value in a mapping.
type field struct {
	key, val *yaml.Node
}

// fields is a mapping's fields by key.
type fields map[string]field

// errorf records a problem at line; at is the dotted path of the node, such
// as "scenarios[3].expect", and prefixes the message unless empty.
func (d *decoder) errorf(line int, at, format string, args ...any) {
	// One problem per line, whatever the message quotes.
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	if at != "" {
		msg = at + ": " + msg
	}
	d.errs = append(d.errs, &Error{Path: d.path, Line: max(line, 1), Msg: msg})
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]*$`)

// join returns the path of key under at: at.key, or at["key"] when key has
// other characters.
func join(at, key string) string {
	switch {
	case !plainKey.MatchString(key):
		return fmt.Sprintf("%s[%q]", at, key)
	case at == "":
		return key
	}
	return at + "." + key
}

// index returns the path of the i-th item under at.
func index(at string, i int) string { return fmt.Sprintf("%s[%d]", at, i) }

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names the kind of a node for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!timestamp":
			return "a timestamp"
		}
		return "a scalar"
	}
	return "an alias"
}

func lineOf(n *yaml.Node) int {
	if n == nil {
		return 1
	}
	return n.Line
}

// present reports whether v has a value, and records a problem if not.
func (d *decoder) present(v *yaml.Node, at string) bool {
	if isNull(v) || v.Kind == yaml.ScalarNode && v.Value == "" {
		d.errorf(lineOf(v), at, "empty value; fill it in or remove it")
		return false
	}
	return true
}

// want records that v is not the kind of value expected at at.
func (d *decoder) want(v *yaml.Node, at, want string) {
	d.errorf(lineOf(v), at, "want %s, got %s%s", want, describe(v), d.ofColumn(v))
}

// fields returns the fields of mapping m, with merge keys (<<) expanded: keys
// written in m win over merged ones, and earlier merged mappings over later
// ones. It reports repeated keys and keys that are not scalars.
func (d *decoder) fields(m *yaml.Node, at string) ([]field, fields) {
	if got, ok := d.merged[m]; ok {
		return got.list, got.byKey
	}
	list, byKey := d.expand(m, at)
	if d.merged == nil {
		d.merged = map[*yaml.Node]mergedFields{}
	}
	d.merged[m] = mergedFields{list, byKey}
	return list, byKey
}

// expand is fields without the memo.
func (d *decoder) expand(m *yaml.Node, at string) ([]field, fields) {
	var list []field
	byKey := fields{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), m.Content[i+1]
		if k == nil {
			continue
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.errorf(k.Line, at, "want a string key, got %s", describe(k))
			continue
		}
		if prev, ok := byKey[k.Value]; ok {
			d.errorf(k.Line, at, "key %q repeats the one at line %d; remove one", k.Value, prev.key.Line)
			continue
		}
		f := field{k, v}
		list = append(list, f)
		byKey[k.Value] = f
	}
	for _, v := range merges {
		for _, src := range d.mergeSources(v, at) {
			srcList, _ := d.fields(src, at)
			for _, f := range srcList {
				if _, ok := byKey[f.key.Value]; !ok {
					list = append(list, f)
					byKey[f.key.Value] = f
				}
			}
		}
	}
	return list, byKey
}

// mergeSources returns the mappings a merge key's value names: one mapping
// or a list of them. A merged mapping that contains itself is reported.
func (d *decoder) mergeSources(v *yaml.Node, at string) []*yaml.Node {
	v = resolve(v)
	var srcs []*yaml.Node
	switch {
	case v != nil && v.Kind == yaml.MappingNode:
		srcs = []*yaml.Node{v}
	case v != nil && v.Kind == yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolve(item)
			if item == nil || item.Kind != yaml.MappingNode {
				d.want(item, join(at, "<<"), "a mapping to merge")
				continue
			}
			srcs = append(srcs, item)
		}
	default:
		d.want(v, join(at, "<<"), "a mapping or a list of mappings to merge")
	}
	var ok []*yaml.Node
	for _, src := range srcs {
		if contains(src, src, map[*yaml.Node]bool{}) {
			d.errorf(src.Line, join(at, "<<"), "merged mapping contains itself; merge a different anchor")
			continue
		}
		ok = append(ok, src)
	}
	return ok
}

// contains reports whether n refers back to target through merge keys.
func contains(n, target *yaml.Node, seen map[*yaml.Node]bool) bool {
	if seen[n] {
		return false
	}
	seen[n] = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].ShortTag() != "!!merge" {
			continue
		}
		v := resolve(n.Content[i+1])
		if v == nil {
			continue
		}
		cands := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			cands = v.Content
		}
		for _, c := range cands {
			c = resolve(c)
			if c == target || c != nil && c.Kind == yaml.MappingNode && contains(c, target, seen) {
				return true
			}
		}
	}
	return false
}

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

// suggest returns the allowed key that key is most likely a typo of, or "".
func suggest(key string, allowed []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	best, bestDist := "", 3
	for _, a := range allowed {
		if norm(a) == norm(key) {
			return a
		}
		if dist := distance(key, a); dist < bestDist && dist < len(key) {
			best, bestDist = a, dist
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
