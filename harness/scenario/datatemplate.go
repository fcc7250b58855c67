package scenario

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file reads the expect template of a scenarios_from entry: the
// strings in it whose {column} placeholders take each row's values.
//
// A placeholder is a brace pair around a name: a letter or _, then letters,
// digits, _, . and -, words separated by single spaces ({mode},
// {expected tool}). "{{" is a literal "{", and the "}}" that closes it a
// literal "}", so {{mode}} is the text {mode}. Every other brace is text as
// written: a regular expression's count (\d{2}, a{1,3}) or Unicode class
// (\p{Han}), a jq object ({a, b}, {"k": .x}), JSON.

// placeholderName is what a column named in a template looks like.
var placeholderName = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_.-]*(?: [\p{L}\p{N}_.-]+)*$`)

// IsPlaceholder reports whether column can be named by a {column}
// placeholder in an expect template: a letter or _, then letters, digits,
// _, . and -, words separated by single spaces.
func IsPlaceholder(column string) bool { return placeholderName.MatchString(column) }

// piece is one part of a template string: text, or a placeholder naming a
// column.
type piece struct {
	text   string // the text, its escapes resolved; "" for a placeholder
	column string // the column a placeholder names; "" for text
	offset int    // where a placeholder starts in the template string
}

// parseTemplate splits s into text and placeholders; nil when s has
// neither a placeholder nor an escape, and is used as it is.
func parseTemplate(s string) []piece {
	if !strings.Contains(s, "{") {
		return nil
	}
	var out []piece
	var text strings.Builder
	escaped := false
	open := 0 // "{{" not yet closed by "}}"
	flush := func() {
		if text.Len() > 0 {
			out = append(out, piece{text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "{{"):
			text.WriteByte('{')
			open++
			escaped = true
			i += 2
		case strings.HasPrefix(s[i:], "}}") && open > 0:
			text.WriteByte('}')
			open--
			i += 2
		case s[i] == '{' && !unicodeClass(s, i):
			end := strings.IndexByte(s[i+1:], '}')
			if end >= 0 && placeholderName.MatchString(s[i+1:i+1+end]) {
				flush()
				out = append(out, piece{column: s[i+1 : i+1+end], offset: i})
				i += end + 2
				continue
			}
			text.WriteByte('{')
			i++
		default:
			text.WriteByte(s[i])
			i++
		}
	}
	flush()
	if !escaped && !slices.ContainsFunc(out, func(p piece) bool { return p.column != "" }) {
		return nil
	}
	return out
}

// unicodeClass reports whether the brace at s[i] opens a regular
// expression's Unicode class, \p{…} or \P{…}.
func unicodeClass(s string, i int) bool {
	return i >= 2 && s[i-2] == '\\' && (s[i-1] == 'p' || s[i-1] == 'P')
}

// expectTemplate is a scenarios_from entry's expect block with its strings
// parsed once, for every row.
type expectTemplate struct {
	root   *yaml.Node
	pieces map[*yaml.Node][]piece // by string node; none for one used as it is
}

// dataSource names a data file's columns for an unknown placeholder's
// message: its path, the line that shows them (a CSV's header, a JSON
// file's first row) and the columns.
type dataSource struct {
	path    string
	line    int
	header  bool
	columns []string
}

// expectTemplate parses the strings of an expect template (at at in the
// suite file) and reports each placeholder that names no column of src, at
// its own line.
func (d *decoder) expectTemplate(n *yaml.Node, at string, src dataSource) *expectTemplate {
	t := &expectTemplate{root: n, pieces: map[*yaml.Node][]piece{}}
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, at string)
	walk = func(n *yaml.Node, at string) {
		n = resolve(n)
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml.ScalarNode:
			ps := parseTemplate(n.Value)
			if ps == nil {
				return
			}
			for i, p := range ps {
				if p.column != "" && !slices.Contains(src.columns, p.column) {
					d.unknownPlaceholder(n, p, at, src)
					// The rows keep it as written: their scenarios are
					// not also refused for the key it would drop.
					ps[i] = piece{text: "{" + p.column + "}"}
				}
			}
			t.pieces[n] = ps
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], join(at, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				walk(item, index(at, i))
			}
		}
	}
	walk(n, at)
	return t
}

// unknownPlaceholder reports placeholder p of string n at the line it is
// on: its own line in a literal block (|), the string's otherwise.
func (d *decoder) unknownPlaceholder(n *yaml.Node, p piece, at string, src dataSource) {
	line := n.Line
	if n.Style == yaml.LiteralStyle {
		line += 1 + strings.Count(n.Value[:p.offset], "\n")
	}
	cols := strings.Join(src.columns, ", ")
	msg := fmt.Sprintf("unknown placeholder {%s}: no column %q in the header at %s:%d (%s)", p.column, p.column, src.path, src.line, cols)
	if !src.header {
		msg = fmt.Sprintf("unknown placeholder {%s}: no row of %s has a column %q (its rows, from %s:%d, have %s)", p.column, src.path, p.column, src.path, src.line, cols)
	}
	if s := suggest(p.column, src.columns); s != "" {
		msg += fmt.Sprintf("; did you mean {%s}?", s)
	}
	d.errorf(line, at, "%s; for the text {%s}, double its braces: {{%s}}", msg, p.column, p.column)
}
