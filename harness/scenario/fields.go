package scenario

import "gopkg.in/yaml.v3"

// mergedFields is what fields returns for one mapping.
type mergedFields struct {
	list  []field
	byKey fields
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
