package attach

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/family/schema"
)

// Threshold is the inline limit: a JSON, CSV or text attachment of at most
// this many bytes goes into the context whole.
const Threshold = 10 * 1024

// LargeResultThreshold is the size from which a tool result is saved as an
// attachment and the model sees Notice instead of the result.
const LargeResultThreshold = 100 * 1024

// QueryTool is the name of the tool that answers jq programs over a JSON
// attachment; injections and notices name it. (The seed's text said 'jq',
// a tool no profile had.)
const QueryTool = "jq_query"

// Mode says how attachments above Threshold are shown. Inject treats any other
// value, the empty one included, as ModeSchema.
type Mode string

const (
	// ModeSchema shows large JSON as its JSON Schema, large CSV as its columns
	// and first rows, and other large text as its first lines.
	ModeSchema Mode = "schema"
	// ModeInline shows every JSON, CSV and text attachment whole, whatever its size.
	ModeInline Mode = "inline"
	// ModePlaceholder shows large JSON, CSV and text as a placeholder that
	// hides both content and shape, as the seed did before its fix.
	ModePlaceholder Mode = "placeholder"
)

// Inject renders the message that puts a into a model's context. The
// rendering depends on a's MIME type and size and on mode, never on the model:
//
//   - JSON (application/json, text/json, */*+json), CSV (text/csv) and other
//     text (text/*, application/xml, */*+xml, application/yaml,
//     application/x-ndjson) up to Threshold, and all of them in ModeInline:
//     the whole content, after a header with the description (when there is
//     one), the id and the size;
//   - in ModePlaceholder, JSON, CSV and text above Threshold:
//     "[System: Attachment <id> (<name>, N bytes)]\nBinary content not accessible to model";
//   - in ModeSchema, JSON above Threshold: its JSON Schema (schema.Infer),
//     indented by two spaces with "type" first in every schema, as genson
//     writes it, and a note naming QueryTool;
//   - in ModeSchema, CSV above Threshold: the columns with their types
//     (integer, number, boolean, date-time for RFC 3339 timestamps and
//     YYYY-MM-DD dates, string; "nullable" when some cell is empty; "empty"
//     when all are), the row count and the header with the first 5 rows;
//   - in ModeSchema, other text above Threshold, and JSON or CSV above
//     Threshold that does not parse: the line count and the first 3 lines,
//     each cut at 200 characters;
//   - any other MIME type (images, binary): one line with id, name, MIME type and size.
//
// The result is valid UTF-8 whatever a holds. A stored attachment is
// rendered once per mode.
func Inject(a Attachment, mode Mode) string {
	m := a.memo
	if m == nil {
		return render(a, mode)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out, ok := m.rendered[mode]
	if !ok {
		out = render(a, mode)
		if m.rendered == nil {
			m.rendered = map[Mode]string{}
		}
		m.rendered[mode] = out
	}
	return out
}

// render is Inject without the memo.
func render(a Attachment, mode Mode) string {
	var out string
	switch k := kindOf(a.MIME); {
	case k == kindBinary:
		out = binary(a)
	case a.Size() <= Threshold || mode == ModeInline:
		out = inline(a)
	case mode == ModePlaceholder:
		out = placeholder(a)
	case k == kindJSON:
		out = jsonSchema(a)
	case k == kindCSV:
		out = csvSummary(a)
	default:
		out = textSummary(a, "")
	}
	return strings.ToValidUTF8(out, "\uFFFD")
}

// Notice is the short text a model sees for a tool result saved as attachment
// a: "Tool result from '<tool>' was too large (N bytes) and was saved as
// attachment <id>.", followed, when a is JSON that parses, by
// " Use the 'jq_query' tool to query it."
func Notice(tool string, a Attachment) string {
	s := fmt.Sprintf("Tool result from '%s' was too large (%d bytes) and was saved as attachment %s.", oneLine(tool), a.Size(), a.ID)
	if kindOf(a.MIME) == kindJSON && a.ValidJSON() {
		s += fmt.Sprintf(" Use the '%s' tool to query it.", QueryTool)
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// kind is how Inject treats a MIME type.
type kind int

const (
	kindBinary kind = iota
	kindJSON
	kindCSV
	kindText
)

func kindOf(mimeType string) kind {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		mt, _, _ = strings.Cut(mimeType, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	switch {
	case mt == "application/json", mt == "text/json", strings.HasSuffix(mt, "+json"):
		return kindJSON
	case mt == "text/csv", mt == "application/csv":
		return kindCSV
	case strings.HasPrefix(mt, "text/"), mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/yaml", mt == "application/x-ndjson":
		return kindText
	}
	return kindBinary
}

// message builds a rendering line by line.
type message struct{ lines []string }

func (m *message) add(format string, args ...any) {
	m.lines = append(m.lines, fmt.Sprintf(format, args...))
}

// header adds the bracketed header lines shared by every full rendering.
func (m *message) header(title string, a Attachment, mimeLine bool) {
	m.add("[System: %s]", title)
	if a.Description != "" {
		m.add("[Description: %s]", oneLine(a.Description))
	}
	m.add("[Attachment ID: %s]", a.ID)
	if mimeLine {
		m.add("[MIME type: %s]", oneLine(a.MIME))
	}
	m.add("[Size: %s]", size(a.Size()))
}

func (m *message) String() string { return strings.Join(m.lines, "\n") }

func size(n int) string {
	return fmt.Sprintf("%d bytes (%.1f KB)", n, float64(n)/1024)
}

func inline(a Attachment) string {
	var m message
	m.add("[System: File from previous tool response]")
	if a.Description != "" {
		m.add("[Description: %s]", oneLine(a.Description))
	}
	m.add("[Attachment ID: %s]", a.ID)
	m.add("[Content (%d bytes)]:", a.Size())
	m.lines = append(m.lines, string(a.Data))
	return m.String()
}

func placeholder(a Attachment) string {
	return fmt.Sprintf("[System: Attachment %s (%s, %d bytes)]\nBinary content not accessible to model", a.ID, name(a), a.Size())
}

func binary(a Attachment) string {
	mt := oneLine(a.MIME)
	if mt == "" {
		mt = "unknown type"
	}
	return fmt.Sprintf("[System: Attachment %s (%s, %s, %d bytes) is binary content and is not shown to the model]", a.ID, name(a), mt, a.Size())
}

func name(a Attachment) string {
	if a.Name == "" {
		return "unnamed"
	}
	return oneLine(a.Name)
}

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
