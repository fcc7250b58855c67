package attach

// The summaries an attachment is injected as: a JSON schema, a CSV's columns, a text's start.

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/family/schema"
)

func jsonSchema(a Attachment) string {
	// The schema of the parsed value, which jq_query shares. Only a number
	// beyond float64 keeps valid JSON from parsing: that document is read
	// again with its numbers as json.Number, which Infer still types as
	// numbers.
	v, err := a.Value()
	if err != nil {
		if !a.ValidJSON() {
			var raw json.RawMessage
			err := json.Unmarshal(a.Data, &raw)
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				return textSummary(a, fmt.Sprintf("The content is not valid JSON (syntax error at byte %d), so the '%s' tool cannot read it.", syntax.Offset, QueryTool))
			}
			return textSummary(a, fmt.Sprintf("The content is not valid JSON, so the '%s' tool cannot read it.", QueryTool))
		}
		d := json.NewDecoder(bytes.NewReader(a.Data))
		d.UseNumber()
		if err := d.Decode(&v); err != nil { // cannot happen after json.Valid
			return textSummary(a, "")
		}
	}

	var b strings.Builder
	writeSchema(&b, schema.Infer(v), "")

	var m message
	m.header("Large data attachment from previous tool response", a, false)
	m.add("Data structure (JSON Schema):")
	m.add("%s", b.String())
	m.add("Note: Use the '%s' tool to query this data symbolically. Reference attachment ID %s in tool calls.", QueryTool, a.ID)
	return m.String()
}

// keyOrder is the order of schema keywords in an injection, genson's:
// "$schema", then the type, where a reader looks for it.
var keyOrder = map[string]int{"$schema": 1, "type": 2, "properties": 3, "required": 4, "items": 5, "anyOf": 6}

// writeSchema writes s, a schema as schema.Infer returns it, as JSON indented
// by two spaces: keywords in keyOrder, property names sorted, HTML characters
// not escaped.
func writeSchema(b *strings.Builder, s any, indent string) {
	inner := indent + "  "
	switch s := s.(type) {
	case map[string]any:
		if len(s) == 0 {
			b.WriteString("{}")
			return
		}
		keys := slices.Collect(maps.Keys(s))
		rank := func(k string) int {
			if r, ok := keyOrder[k]; ok {
				return r
			}
			return len(keyOrder) + 1 // property names, sorted after any keyword
		}
		slices.SortFunc(keys, func(x, y string) int {
			return cmp.Or(cmp.Compare(rank(x), rank(y)), cmp.Compare(x, y))
		})
		b.WriteString("{\n")
		for i, k := range keys {
			b.WriteString(inner + quote(k) + ": ")
			writeSchema(b, s[k], inner)
			if i < len(keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any: // anyOf's schemas
		b.WriteString("[\n")
		for i, e := range s {
			b.WriteString(inner)
			writeSchema(b, e, inner)
			if i < len(s)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case []string:
		b.WriteString("[\n")
		for i, e := range s {
			b.WriteString(inner + quote(e))
			if i < len(s)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		b.WriteString(quote(s))
	}
}

// quote writes s as a JSON string, leaving <, > and & as they are.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

const (
	sampleRows  = 5   // rows shown by csvSummary, besides the header
	sampleLines = 3   // lines shown by textSummary
	lineLimit   = 200 // characters kept of each row or line shown
)

func csvSummary(a Attachment) string {
	text := strings.TrimPrefix(strings.ToValidUTF8(string(a.Data), "\uFFFD"), "\ufeff")
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	records, err := r.ReadAll()
	if err != nil {
		return textSummary(a, fmt.Sprintf("The content could not be read as CSV (%v).", err))
	}
	if len(records) == 0 {
		return textSummary(a, "The content holds no CSV records.")
	}
	header, rows := records[0], records[1:]

	width := 0
	for _, rec := range records {
		width = max(width, len(rec))
	}
	var m message
	m.header("Large CSV file from previous tool response", a, false)
	m.add("Columns (%d):", width)
	for j := range width {
		col := ""
		if j < len(header) {
			col = oneLine(header[j])
		}
		if strings.TrimSpace(col) == "" {
			col = fmt.Sprintf("(column %d)", j+1)
		}
		m.add("- %s: %s", col, columnType(rows, j))
	}
	m.add("Rows: %d, not counting the header", len(rows))
	shown := records[:min(len(records), sampleRows+1)]
	m.add("Header and first %d rows:", len(shown)-1)
	for _, rec := range shown {
		var b strings.Builder
		w := csv.NewWriter(&b)
		_ = w.Write(rec) // a strings.Builder does not fail
		w.Flush()
		m.add("%s", cut(oneLine(strings.TrimSuffix(b.String(), "\n"))))
	}
	m.add("Content too large for inline display.")
	return m.String()
}

var (
	integerCell = regexp.MustCompile(`^[+-]?[0-9]+$`)
	numberCell  = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
)

// columnType names the type of column j over rows.
func columnType(rows [][]string, j int) string {
	seen := map[string]bool{}
	nullable := false
	for _, rec := range rows {
		cell := ""
		if j < len(rec) {
			cell = strings.TrimSpace(rec[j])
		}
		if cell == "" {
			nullable = true
			continue
		}
		seen[cellType(cell)] = true
	}
	if len(seen) == 0 {
		return "empty"
	}
	t := "string"
	switch types := slices.Sorted(maps.Keys(seen)); {
	case len(types) == 1:
		t = types[0]
	case slices.Equal(types, []string{"integer", "number"}):
		t = "number"
	}
	if nullable {
		t += ", nullable"
	}
	return t
}

func cellType(cell string) string {
	switch {
	case integerCell.MatchString(cell):
		return "integer"
	case numberCell.MatchString(cell):
		return "number"
	case strings.EqualFold(cell, "true"), strings.EqualFold(cell, "false"):
		return "boolean"
	}
	if _, err := time.Parse(time.RFC3339Nano, cell); err == nil {
		return "date-time"
	}
	if _, err := time.Parse(time.DateOnly, cell); err == nil {
		return "date-time"
	}
	return "string"
}

func textSummary(a Attachment, note string) string {
	text := strings.ToValidUTF8(string(a.Data), "\uFFFD")
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}

	var m message
	m.header("Large text file from previous tool response", a, true)
	if note != "" {
		m.add("%s", note)
	}
	m.add("Lines: %d", len(lines))
	shown := lines[:min(len(lines), sampleLines)]
	m.add("First %d lines:", len(shown))
	for _, l := range shown {
		m.add("%s", cut(strings.TrimRight(l, "\r\n")))
	}
	m.add("Content too large for inline display.")
	return m.String()
}

// cut keeps the first lineLimit characters of s, marking a cut with "…".
func cut(s string) string {
	if utf8.RuneCountInString(s) <= lineLimit {
		return s
	}
	n := 0
	for i := range s {
		if n == lineLimit {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// oneLine replaces line breaks in s by spaces, so that a name cannot break a
// header line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
