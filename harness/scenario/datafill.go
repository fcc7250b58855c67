package scenario

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file builds the scenario of a data file's row as YAML nodes, every
// one at the row's line, with the row's values in the expect template's
// placeholders, for the decoder to read as it reads a hand-written one.

// scenario builds the YAML of one row's scenario, every node at the row's
// line, so that the decoder reports a bad value as file:line.
func (r row) scenario(id, input, criterion, tags, variants string, expect *expectTemplate, d *decoder) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: r.line}
	add := func(key string, val *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: r.line}, val)
	}
	str := func(v string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: r.line}
	}
	add("id", str(r.text(id)))
	add("input", str(r.text(input)))
	if criterion != "" && r.text(criterion) != "" {
		add("criterion", str(r.text(criterion)))
	}
	if tags != "" && r.tagCell(d, tags) {
		if ts := r.list(tags); len(ts) > 0 {
			seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: r.line}
			for _, t := range ts {
				seq.Content = append(seq.Content, str(t))
			}
			add("tags", seq)
		}
	}
	if expect != nil {
		if e := r.fill(d, expect, expect.root, "expect"); e != nil {
			add("expect", e)
		}
	}
	if variants != "" {
		if text := r.text(variants); text != "" {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
				d.errorf(r.line, "variants", "column %q is not a mapping of variant names to expectations: %s", variants, text)
			} else {
				atLine(doc.Content[0], r.line)
				add("variants", doc.Content[0])
			}
		}
	}
	return m
}

// fill copies node n of template t (at at) with the row's values in its
// placeholders: a string that is one placeholder takes the value as YAML
// reads it (a number stays a number, an object is a mapping and a list a
// list); an empty value drops the key it is under. An object or a list
// inside other text is a problem of the row, reported to d.
func (r row) fill(d *decoder, t *expectTemplate, n *yaml.Node, at string) *yaml.Node {
	n = resolve(n)
	c := *n
	c.Line = r.line
	c.Anchor = ""
	switch n.Kind {
	case yaml.ScalarNode:
		ps := t.pieces[n]
		if ps == nil {
			return &c
		}
		if len(ps) == 1 && ps[0].column != "" {
			col := ps[0].column
			switch x := r.values[col].(type) {
			case map[string]any, []any:
				return d.cell(x, col, r.line)
			}
			v := r.text(col)
			if v == "" {
				return nil
			}
			c.Value, c.Tag, c.Style = v, "", 0
			if _, isString := r.values[col].(string); isString && !looksNumeric(v) {
				c.Tag = "!!str"
			}
			d.markCell(&c, col)
			return &c
		}
		var b strings.Builder
		for _, p := range ps {
			switch {
			case p.column == "":
				b.WriteString(p.text)
			case compound(r.values[p.column]) != "":
				d.errorf(r.line, at, "column %q holds %s, which cannot stand inside other text (%q); only a string, a number or a boolean can", p.column, compound(r.values[p.column]), n.Value)
			case strings.TrimSpace(r.text(p.column)) == "":
				d.errorf(r.line, at, "column %q is empty in this row, and %s writes it inside other text (%q), which would check that text without it, not what the row means; give the row a value, or write the string as {%s} alone, which an empty cell drops", p.column, at, n.Value, p.column)
			default:
				b.WriteString(r.text(p.column))
			}
		}
		c.Value = b.String()
		return &c
	case yaml.MappingNode:
		c.Content = nil
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := r.fill(d, t, n.Content[i+1], join(at, n.Content[i].Value)); v != nil {
				k := *n.Content[i]
				k.Line = r.line
				c.Content = append(c.Content, &k, v)
			}
		}
		if len(c.Content) == 0 {
			return nil
		}
		return &c
	case yaml.SequenceNode:
		c.Content = nil
		for i, item := range n.Content {
			if v := r.fill(d, t, item, index(at, i)); v != nil {
				c.Content = append(c.Content, v)
			}
		}
		return &c
	}
	return &c
}

func looksNumeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// atLine puts every node under n at line.
func atLine(n *yaml.Node, line int) {
	n.Line = line
	for _, c := range n.Content {
		atLine(c, line)
	}
}
