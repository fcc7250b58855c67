package scenario

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/files"
)

// This file reads the rows of a data file by its extension (readRows): a
// table (.csv, .tsv) and JSONL, line by line, here; a JSON array or a YAML
// list in datadoc.go. A row's cells are read as text or as a list.

// row is one record of a data file: its values by column, and its line.
type row struct {
	line   int
	values map[string]any // string, or a JSON value for JSONL
}

// text is a column's value as text ("" when absent).
func (r row) text(col string) string { return cellText(r.values[col]) }

// cellText is a cell's value as text: a number its shortest form (1.0 is
// "1"), an object or a list its JSON.
func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// list is a column's values: a JSON list, or text split at commas or
// semicolons.
func (r row) list(col string) []string {
	if l, ok := r.values[col].([]any); ok {
		var out []string
		for _, x := range l {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	var out []string
	for _, t := range strings.FieldsFunc(r.text(col), func(c rune) bool { return c == ',' || c == ';' }) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// readRows reads a data file by its extension: .csv, .tsv, .jsonl, .json or .yaml. It
// returns the rows and the columns: a CSV or TSV file's header, or every
// key some JSONL row has. A row that cannot be read is an
// *Error at its line, each one in the Errors beside the rows that could be.
func readRows(name string, data []byte) ([]row, []string, Errors, error) {
	// A UTF-8 byte-order mark, as editors and spreadsheets on Windows
	// write one, is no part of the first row.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".csv", ".tsv":
		return readTable(name, data, map[string]rune{".csv": ',', ".tsv": '\t'}[ext])
	case ".jsonl", ".ndjson":
		return readJSONL(name, data)
	case ".json":
		return readJSONArray(name, data)
	case ".yaml", ".yml":
		return readYAMLList(name, data)
	default:
		return nil, nil, nil, fmt.Errorf("%s: want a .csv, .tsv, .jsonl, .json or .yaml file", name)
	}
}

func readTable(name string, data []byte, comma rune) ([]row, []string, Errors, error) {
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	cr.Comma, cr.FieldsPerRecord, cr.ReuseRecord = comma, -1, false
	if comma == '\t' {
		cr.LazyQuotes = true
	}
	header, err := cr.Read()
	switch {
	case err == io.EOF:
		return nil, nil, nil, &Error{Path: name, Line: 1, Msg: "the file is empty; write a header row of column names, then a row per case"}
	case err != nil:
		return nil, nil, nil, &Error{Path: name, Line: 1, Msg: "no header row of column names: " + err.Error()}
	}
	var rows []row
	var errs Errors
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			errs = append(errs, &Error{Path: name, Line: line, Msg: "unreadable row: " + err.Error()})
			continue
		}
		if len(rec) != len(header) {
			errs = append(errs, &Error{Path: name, Line: line, Msg: fmt.Sprintf("%d fields, the header has %d", len(rec), len(header))})
			continue
		}
		r := row{line: line, values: make(map[string]any, len(header))}
		for i, h := range header {
			r.values[h] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows, header, errs, nil
}

func readJSONL(name string, data []byte) ([]row, []string, Errors, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), int(files.MaxBytes))
	var rows []row
	var errs Errors
	var columns []string
	seen := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(text, &v); err != nil {
			errs = append(errs, &Error{Path: name, Line: line, Msg: "not a JSON object: " + err.Error()})
			continue
		}
		for k := range v {
			if !seen[k] {
				seen[k] = true
				columns = append(columns, k)
			}
		}
		rows = append(rows, row{line: line, values: v})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, errs, err
	}
	slices.Sort(columns)
	return rows, columns, errs, nil
}

// Columns reads the columns of a data file (.csv, .tsv, .jsonl, .json or .yaml): a
// header's, or every key of a JSONL file's rows; and how many rows it has.
// The file is name, a slash-separated path under dir, read as files.ReadIn
// reads it: one that leads outside dir, by a symlink too, is an
// *files.OutsideError.
func Columns(dir, name string) (columns []string, rows int, err error) {
	data, err := files.ReadIn(dir, name, files.MaxBytes)
	if err != nil {
		return nil, 0, err
	}
	rs, cols, bad, err := readRows(filepath.Join(dir, filepath.FromSlash(name)), data)
	if err != nil {
		return nil, 0, err
	}
	if len(bad) > 0 {
		return nil, 0, bad
	}
	return cols, len(rs), nil
}
