package scenario

import (
	"errors"
	"fmt"
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
