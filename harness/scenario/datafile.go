package scenario

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/files"
)

// fromKeys are the keys of one scenarios_from entry.
var fromKeys = []string{"file", "id", "input", "criterion", "tags", "expect", "variants"}

// DataFile is one scenarios_from entry: a CSV, TSV or JSONL file whose
// rows are scenarios.
type DataFile struct {
	File string // relative to the suite file's folder
	Line int    // of the entry in the suite file
	Rows int    // scenarios read from it
}

// row is one record of a data file: its values by column, and its line.
type row struct {
	line   int
	values map[string]any // string, or a JSON value for JSONL
}

// scenariosFrom reads scenarios_from: one mapping or a list of them, each
// {file, id, input, criterion, tags, expect, variants} naming the columns
// a scenario's fields come from; expect is a template whose "{column}"
// strings take each row's values. Every problem of a file (a missing
// column, a bad row, a duplicate id) is reported as file:line, all at once.
func (d *decoder) scenariosFrom(v *yaml.Node) ([]DataFile, []Scenario) {
	const at = "scenarios_from"
	v = resolve(v)
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var srcs []DataFile
	var out []Scenario
	for i, item := range items {
		at := at
		if v.Kind == yaml.SequenceNode {
			at = index(at, i)
		}
		m, fs, ok := d.mapping(item, at, "a mapping with file, id, input and expect", fromKeys...)
		if !ok {
			continue
		}
		d.require(m, fs, at, "file", "id", "input")
		col := func(key string) string {
			if f, ok := fs[key]; ok {
				s, _ := d.str(f.val, join(at, key))
				return s
			}
			return ""
		}
		file, id, input := col("file"), col("id"), col("input")
		if file == "" || id == "" || input == "" {
			continue
		}
		if clean := path.Clean(file); strings.HasPrefix(file, "/") || clean == ".." || strings.HasPrefix(clean, "../") {
			d.errorf(resolve(fs["file"].val).Line, join(at, "file"), "%q must be a path inside the suite's folder, like cases/odbchat.jsonl", file)
			continue
		}
		full := filepath.Join(filepath.Dir(d.path), filepath.FromSlash(file))
		data, err := d.readInside(full)
		var outside *files.OutsideError
		if errors.As(err, &outside) {
			d.errorf(resolve(fs["file"].val).Line, join(at, "file"), "%s", outside.Refusal(strconv.Quote(file)))
			continue
		}
		var rows []row
		var columns []string
		var bad Errors
		if err == nil {
			rows, columns, bad, err = readRows(full, data)
		}
		d.errs = append(d.errs, bad...)
		if err != nil {
			var fe *Error
			switch {
			case errors.As(err, &fe):
				d.errs = append(d.errs, fe)
			default:
				d.errorf(resolve(fs["file"].val).Line, join(at, "file"), "%v", err)
			}
			continue
		}
		if len(rows) == 0 && len(columns) == 0 {
			// No row names a column: nothing to check the entry's columns
			// and placeholders against, and nothing to judge.
			d.errs = append(d.errs, &Error{Path: full, Line: 1, Msg: "no rows; add at least one case"})
			continue
		}
		var expect *expectTemplate
		if f, ok := fs["expect"]; ok {
			// Its placeholders are checked where they are written.
			ds := dataSource{path: full, line: 1, columns: columns}
			switch ext := strings.ToLower(filepath.Ext(full)); {
			case ext == ".csv" || ext == ".tsv":
				ds.header = true
			case len(rows) > 0:
				ds.line = rows[0].line
			}
			expect = d.expectTemplate(f.val, join(at, "expect"), ds)
		}
		src := DataFile{File: file, Line: m.Line}
		// Every column the entry names must be in the file.
		rd := &decoder{path: full, opts: d.opts, typos: map[typo]bool{}, variants: d.variants, known: d.known}
		for _, key := range []string{"id", "input", "criterion", "tags", "variants"} {
			if c := col(key); c != "" && !slices.Contains(columns, c) {
				rd.errorf(1, "", "no column %q (named by %s at %s:%d; columns: %s)", c, join(at, key), d.path, resolve(fs[key].val).Line, strings.Join(columns, ", "))
			}
		}
		{
			seq := &yaml.Node{Kind: yaml.SequenceNode, Line: 1}
			for _, r := range rows {
				if r.text(id) == "" || r.text(input) == "" {
					var empty []string
					for _, c := range [][2]string{{id, "the id"}, {input, "the input"}} {
						if r.text(c[0]) == "" {
							empty = append(empty, fmt.Sprintf("%q (%s)", c[0], c[1]))
						}
					}
					which := "column " + empty[0]
					if len(empty) == 2 {
						which = "columns " + empty[0] + " and " + empty[1]
					}
					rd.errorf(r.line, "", "no value in %s: every row needs an id and an input", which)
					continue
				}
				if !r.textCells(rd, [][2]string{{"id", id}, {"input", input}, {"criterion", col("criterion")}}) {
					continue
				}
				seq.Content = append(seq.Content, r.scenario(id, input, col("criterion"), col("tags"), col("variants"), expect, rd))
			}
			if len(seq.Content) == 0 {
				rd.errorf(1, "", "no rows; add at least one case")
			} else {
				scs := rd.scenarios(seq)
				for i := range scs {
					scs[i].File = full
				}
				src.Rows = len(scs)
				out = append(out, scs...)
			}
		}
		d.errs = append(d.errs, rd.errs...)
		srcs = append(srcs, src)
	}
	return srcs, out
}

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

// readInside reads the file at path, which must lie under the project
// root (the suite's folder when the loader has none) once symlinks are
// followed (readUnder).
func (d *decoder) readInside(path string) ([]byte, error) {
	return readUnder(cmp.Or(d.opts.Root, filepath.Dir(d.path)), path)
}

// readUnder reads the file at path, which must lie under root once
// symlinks are followed, through an os.Root of root (files.ReadIn): one
// that leads outside is an *files.OutsideError.
func readUnder(root, path string) ([]byte, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil {
		return nil, err
	}
	return files.ReadIn(absRoot, filepath.ToSlash(rel), files.MaxBytes)
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

// joinScenarios appends the data files' scenarios to the hand-written
// ones; an id both use is reported at the hand-written one, and an id two
// data files use (or use but for case: they would share a cassette where
// file names ignore case) at the later row, naming the first.
func (d *decoder) joinScenarios(hand, rows []Scenario) []Scenario {
	lines := map[string]int{}
	for _, sc := range hand {
		lines[strings.ToLower(sc.ID)] = sc.Line
	}
	first := make(map[string]int, len(rows)) // each row's id, lower case: its first row's index
	out := hand
	for i, sc := range rows {
		key := strings.ToLower(sc.ID)
		if line, dup := lines[key]; dup {
			d.errorf(line, "scenarios", "id %q is also a row of a scenarios_from file; rename one", sc.ID)
			continue
		}
		at, dup := first[key]
		other := &rows[at]
		switch {
		case !dup:
			first[key] = i
		case other.File == sc.File:
			// the file's own check said it
		case other.ID == sc.ID:
			d.errs = append(d.errs, &Error{Path: sc.File, Line: sc.Line, Msg: fmt.Sprintf("id %q is also a row of %s:%d; rename one", sc.ID, other.File, other.Line)})
			continue
		default:
			d.errs = append(d.errs, &Error{Path: sc.File, Line: sc.Line, Msg: fmt.Sprintf("id %q differs from %q (%s:%d) only in case, and would share its cassette where file names ignore case; rename one", sc.ID, other.ID, other.File, other.Line)})
			continue
		}
		out = append(out, sc)
	}
	return out
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
