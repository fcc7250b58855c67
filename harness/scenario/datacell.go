package scenario

import (
	"fmt"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"
)

// This file checks the cells of a data file's rows against what a
// scenario takes: text where it wants text. A number or a boolean is taken
// as its text (1.0 is "1", true is "true"); an object or a list, from a
// JSON, JSONL or YAML file, is no text.

// compound names a cell's value that is no scalar: "an object" or "a
// list"; "" for text, a number, a boolean or nothing.
func compound(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return ""
}

// textCells reports each of cols ({key, column}) whose cell in r is an
// object or a list, where the scenario's key takes text; false if any is.
func (r row) textCells(d *decoder, cols [][2]string) bool {
	ok := true
	for _, kc := range cols {
		if kind := compound(r.values[kc[1]]); kc[1] != "" && kind != "" {
			d.errorf(r.line, "", "column %q holds %s, but a scenario's %s is text; write it as a string", kc[1], kind, kc[0])
			ok = false
		}
	}
	return ok
}

// tagCell reports a tags cell that is an object, or a list with an item
// that is not text, a number or a boolean; false if it is one.
func (r row) tagCell(d *decoder, col string) bool {
	v := r.values[col]
	if kind := compound(v); kind == "an object" {
		d.errorf(r.line, "", "column %q holds an object; tags are a list of strings, or text split at , or ;", col)
		return false
	}
	list, _ := v.([]any)
	if i := slices.IndexFunc(list, func(x any) bool { return compound(x) != "" }); i >= 0 {
		d.errorf(r.line, "", "column %q: tag %d is %s; tags are a list of strings", col, i+1, compound(list[i]))
		return false
	}
	return true
}

// cell is the YAML of an object or list cell of column col, every node at
// line and known to d as the column's, so that a field that takes no
// mapping or list names the column.
func (d *decoder) cell(v any, col string, line int) *yaml.Node {
	var n *yaml.Node
	switch x := v.(type) {
	case map[string]any:
		n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: line}, d.cell(x[k], col, line))
		}
	case []any:
		n = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x {
			n.Content = append(n.Content, d.cell(e, col, line))
		}
	case nil:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case string:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}
	case bool:
		n = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}
	default:
		// A number: as YAML reads its text, an integer or a float.
		n = &yaml.Node{Kind: yaml.ScalarNode, Value: cellText(x)}
	}
	n.Line = line
	d.markCell(n, col)
	return n
}

// markCell notes that node n holds a cell of column col.
func (d *decoder) markCell(n *yaml.Node, col string) {
	if d.cells == nil {
		d.cells = map[*yaml.Node]string{}
	}
	d.cells[n] = col
}

// ofColumn is " (column "col")" when n holds a cell of a data file's
// column col, for a message about n's value; "" otherwise.
func (d *decoder) ofColumn(n *yaml.Node) string {
	if col, ok := d.cells[n]; ok {
		return fmt.Sprintf(" (column %q)", col)
	}
	return ""
}
