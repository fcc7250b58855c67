package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// WriteMarkdown writes r to w as GitHub-flavoured markdown with the content
// of WriteText, opening with the verdict and a line per suite and variant:
// a "##" heading per suite, a "###" heading per table, pipe
// tables (verdicts as ✅ and ❌), and the lines under a table (failed
// checks, misrouted cells) as list items. Text from the report is escaped
// so that it renders as written.
func WriteMarkdown(w io.Writer, r *Report) error {
	d := layout(r, func(v string) string {
		if v == VerdictPass {
			return "✅ " + strings.ToUpper(v)
		}
		return "❌ " + strings.ToUpper(v)
	})
	var buf bytes.Buffer
	// The verdict and a line per suite and variant first, so that the top
	// of the file is what a pull-request comment needs.
	overview, _, _ := headline(r)
	fmt.Fprintf(&buf, "**%s**\n\n", mdText(d.result))
	mdTable(&buf, overview)
	buf.WriteString("\n")
	for _, s := range d.suites {
		fmt.Fprintf(&buf, "## %s\n\n%s\n", mdText(s.title), mdText(s.about))
		if s.prose != "" {
			fmt.Fprintf(&buf, "\n%s\n", mdText(s.prose))
		}
		for _, sec := range s.sections {
			fmt.Fprintf(&buf, "\n### %s\n\n", mdText(sec.title))
			if len(sec.table.header) > 0 {
				mdTable(&buf, sec.table)
				if len(sec.notes) > 0 {
					buf.WriteString("\n")
				}
			}
			for _, n := range sec.notes {
				first, rest, _ := strings.Cut(strings.TrimRight(n.text, "\n"), "\n")
				if n.mark != "" {
					first = n.mark + " " + first
				}
				fmt.Fprintf(&buf, "- %s\n", mdText(first))
				if rest != "" {
					fence := "```"
					for strings.Contains(rest, fence) {
						fence += "`"
					}
					fmt.Fprintf(&buf, "\n  %s\n  %s\n  %s\n", fence, strings.ReplaceAll(rest, "\n", "\n  "), fence)
				}
			}
		}
		buf.WriteString("\n")
	}
	fmt.Fprintf(&buf, "**%s**\n", d.result)
	_, err := w.Write(buf.Bytes())
	return err
}

// mdTable writes t as a pipe table, numbers right-aligned.
func mdTable(buf *bytes.Buffer, t table) {
	buf.WriteString(mdRow(t.header))
	buf.WriteString("|")
	for _, right := range t.right {
		if right {
			buf.WriteString(" ---: |")
		} else {
			buf.WriteString(" --- |")
		}
	}
	buf.WriteString("\n")
	for _, r := range t.rows {
		buf.WriteString(mdRow(r))
	}
}

// mdRow is one row of a pipe table, its cells escaped.
func mdRow(cells []string) string {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + mdCell(c) + " |")
	}
	b.WriteString("\n")
	return b.String()
}

// mdCell is s trimmed and escaped for a table cell, line breaks as <br>.
func mdCell(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = mdText(l)
	}
	return strings.Join(lines, "<br>")
}

// mdText escapes the characters of s that markdown would otherwise read as
// markup: backslash, code, emphasis, links, HTML, strikethrough and the
// table pipe. An underscore inside a word (tool_results) is left alone, as
// GitHub does not read it as emphasis.
func mdText(s string) string {
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		switch r {
		case '\\', '`', '*', '[', ']', '<', '|', '~':
			b.WriteRune('\\')
		case '_':
			inWord := i > 0 && i < len(runes)-1 && isWordRune(runes[i-1]) && isWordRune(runes[i+1])
			if !inWord {
				b.WriteRune('\\')
			}
		case '\n':
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
