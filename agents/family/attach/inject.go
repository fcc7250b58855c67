package attach

import (
	"fmt"
	"mime"
	"strings"
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
