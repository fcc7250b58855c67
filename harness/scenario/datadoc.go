package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"

	"gopkg.in/yaml.v3"
)

// This file reads the data files that hold their rows as one document: a
// JSON array of objects (.json) and a YAML list of mappings (.yaml, .yml).
// Each row is numbered by the line it starts on, as a JSONL row is.

// readJSONArray reads a .json data file: an array of objects, one per case.
func readJSONArray(name string, data []byte) ([]row, []string, Errors, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, nil, nil, &Error{Path: name, Line: 1, Msg: "want an array of objects, one per case"}
	}
	var rows []row
	var errs Errors
	for dec.More() {
		line := lineAt(data, startOf(data, dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, errs, &Error{Path: name, Line: line, Msg: "not JSON: " + err.Error()}
		}
		var v map[string]any
		if !bytes.HasPrefix(raw, []byte("{")) || json.Unmarshal(raw, &v) != nil {
			errs = append(errs, &Error{Path: name, Line: line, Msg: "not an object: each case is a JSON object of its columns"})
			continue
		}
		rows = append(rows, row{line: line, values: plainNumbers(v).(map[string]any)})
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, errs, &Error{Path: name, Line: lineAt(data, int(dec.InputOffset())), Msg: "not JSON: " + err.Error()}
	}
	return rows, columnsOf(rows), errs, nil
}

// readYAMLList reads a .yaml or .yml data file: a list of mappings, one per
// case.
func readYAMLList(name string, data []byte) ([]row, []string, Errors, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil, nil // no rows, which the caller says
	}
	// Read as a suite file is: every syntax problem at its line.
	d := &decoder{path: name, typos: map[typo]bool{}}
	list := d.document(data)
	if list == nil {
		return nil, nil, d.errs, nil
	}
	if list = resolve(list); list.Kind != yaml.SequenceNode {
		return nil, nil, nil, &Error{Path: name, Line: list.Line, Msg: "want a list of mappings, one per case"}
	}
	var rows []row
	var errs Errors
	for _, item := range list.Content {
		v, ok := yamlValue(item).(map[string]any)
		if !ok {
			errs = append(errs, &Error{Path: name, Line: item.Line, Msg: "not an object: each case is a mapping of its columns"})
			continue
		}
		rows = append(rows, row{line: item.Line, values: v})
	}
	return rows, columnsOf(rows), errs, nil
}

// yamlValue is n as a JSONL row holds its values: a mapping a
// map[string]any, a list a []any, a scalar its value, but a date as
// written (2025-11-06, not a time.Time), since a case's cells are text
// to fill its templates with.
func yamlValue(n *yaml.Node) any {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[resolve(n.Content[i]).Value] = yamlValue(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			l = append(l, yamlValue(e))
		}
		return l
	case yaml.ScalarNode:
		if n.ShortTag() == "!!timestamp" {
			return n.Value
		}
		var v any
		if n.Decode(&v) != nil {
			return n.Value
		}
		return v
	}
	return nil
}

// columnsOf is every key of rows, sorted.
func columnsOf(rows []row) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		for k := range r.values {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// startOf is where the next value starts at or after offset: past white
// space and the comma between two values.
func startOf(data []byte, offset int64) int {
	i := int(offset)
	for i < len(data) && bytes.IndexByte([]byte(" \t\r\n,"), data[i]) >= 0 {
		i++
	}
	return i
}

// lineAt is the 1-based line of data that offset is on.
func lineAt(data []byte, offset int) int {
	return 1 + bytes.Count(data[:min(offset, len(data))], []byte("\n"))
}

// plainNumbers turns the json.Number values of v (decoded with UseNumber)
// into what json.Unmarshal gives a JSONL row: float64.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = plainNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = plainNumbers(e)
		}
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return v
}
