package report

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// textWidth is the terminal width WriteText lays its tables out for.
const textWidth = 132

// minWrap is the narrowest a wrapped column gets, however wide the others.
const minWrap = 24

// WriteText writes r to w as terminal tables: per suite, one table per
// variant with a line for every failed check, then tables comparing the
// variants (outcome, cost, thresholds, input tokens by part, LLM calls by
// role), a routing confusion matrix per variant that has one, payload
// trimming by tool, and a closing PASS or FAIL line. The same Report gives
// the same bytes.
//
// Tables are kept within 132 columns by wrapping their free-text column
// (route, threshold detail, tool) as far as needed, down to 24 columns; a
// confusion matrix heads tool routes by the tool's name, or gives way to a
// list of the misrouted cells, when it would be wider. The lines under a
// table (failed checks, errors) are not wrapped, so that paths and URLs
// stay whole. Widths are measured by tablewriter with East Asian ambiguous
// characters (—, ✓, ═) counted narrow, whatever the locale and
// RUNEWIDTH_EASTASIAN say, so that a report reads the same everywhere.
func WriteText(w io.Writer, r *Report) error {
	d := layout(r, func(v string) string { return strings.ToUpper(v) })
	narrowWidths()
	var buf bytes.Buffer
	for i, s := range d.suites {
		if i > 0 {
			buf.WriteString("\n")
		}
		if err := textSuite(&buf, s); err != nil {
			return err
		}
	}
	if len(d.suites) > 0 {
		buf.WriteString("\n")
	}
	buf.WriteString(d.result + "\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// textSuite draws one suite's heading, sections, tables and notes.
func textSuite(buf *bytes.Buffer, s suiteBlock) error {
	var d drawer
	heading := s.title + " — " + s.about
	fmt.Fprintf(buf, "%s\n%s\n", heading, strings.Repeat("═", twwidth.Width(heading)))
	if s.prose != "" {
		fmt.Fprintf(buf, "%s\n", s.prose)
	}
	for _, sec := range s.sections {
		fmt.Fprintf(buf, "\n%s\n", sec.title)
		if len(sec.table.header) > 0 {
			if err := d.table(buf, sec.table); err != nil {
				return fmt.Errorf("write text report: %s: %s: %w", s.title, sec.title, err)
			}
		}
		for _, n := range sec.notes {
			text := strings.ReplaceAll(strings.TrimRight(n.text, "\n"), "\n", "\n    ")
			if n.mark == "" {
				fmt.Fprintf(buf, "  %s\n", text)
			} else {
				fmt.Fprintf(buf, "  %s %s\n", n.mark, text)
			}
		}
	}
	return nil
}

// drawer draws tables one after another with one tablewriter Table, reset
// and configured afresh for each: a new Table, and a reset one, allocate a
// stringer cache of 10,240 entries (tablewriter v1.1.5), which took a third
// of the time of drawing a full report's tables. The table is given a cache
// that keeps nothing instead: its cells are strings, so no stringer runs.
type drawer struct {
	buf bytes.Buffer
	tab *tablewriter.Table
}

// narrowWidths fixes tablewriter's process-wide East Asian setting, which
// it takes from the locale and RUNEWIDTH_EASTASIAN when the process starts,
// to narrow; the setting is taken under tablewriter's lock.
func narrowWidths() { twwidth.SetOptions(twwidth.Options{}) }

// noCache is a tablewriter stringer cache that keeps nothing.
type noCache struct{}

func (noCache) Add(reflect.Type, reflect.Value) bool   { return false }
func (noCache) Get(reflect.Type) (reflect.Value, bool) { return reflect.Value{}, false }
func (noCache) Purge()                                 {}

// table draws t with tablewriter, borderless: columns two spaces apart,
// a rule under the header, headers as given rather than upper-cased,
// numbers right-aligned, the columns marked in t.wrap wrapped to fit
// textWidth, and no trailing spaces.
func (d *drawer) table(w io.Writer, t table) error {
	narrowWidths()
	n := len(t.header)
	cells := make([][]string, len(t.rows))
	for i, row := range t.rows {
		cells[i] = make([]string, n)
		for j, c := range row {
			cells[i][j] = strings.ReplaceAll(c, "\n", " ")
		}
	}
	widths := tw.NewMapper[int, int]()
	for col, width := range wrapWidths(t.header, cells, t.wrap) {
		widths.Set(col, width)
		for _, row := range cells {
			row[col] = breakBeforeParen(row[col], width)
		}
	}

	align := make(tw.Alignment, n)
	padding := make([]tw.Padding, n)
	for i := range n {
		align[i] = tw.AlignLeft
		if i < len(t.right) && t.right[i] {
			align[i] = tw.AlignRight
		}
		padding[i] = tw.Padding{Right: "  ", Overwrite: true}
	}
	padding[n-1] = tw.PaddingNone

	opts := []tablewriter.Option{
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.On},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithTrimSpace(tw.Off), // keep the space that aligns a count with a ✓ one
		tablewriter.WithAlignment(align),
		tablewriter.WithHeaderPaddingPerColumn(padding),
		tablewriter.WithRowPaddingPerColumn(padding),
		tablewriter.WithStringerCacheCustom(noCache{}),
	}
	d.buf.Reset()
	if d.tab == nil {
		d.tab = tablewriter.NewTable(&d.buf, opts...)
	} else {
		d.tab.Reset()
		d.tab.Options(opts...)
	}
	tab := d.tab.Configure(func(cfg *tablewriter.Config) {
		cfg.Row.ColMaxWidths.PerColumn = widths
	})
	tab.Header(t.header)
	for _, row := range cells {
		if err := tab.Append(row); err != nil {
			return err
		}
	}
	if err := tab.Render(); err != nil {
		return err
	}
	for line := range strings.Lines(d.buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// wrapWidths returns, for each column marked in wrap whose content is too
// wide for the table to fit textWidth, the width to wrap it at: an equal
// share of what the other columns and the gaps leave, at least minWrap.
func wrapWidths(header []string, rows [][]string, wrap []bool) map[int]int {
	natural := naturalWidths(header, rows)
	total := 2 * (len(header) - 1)
	var wrapped []int
	for col, width := range natural {
		total += width
		if col < len(wrap) && wrap[col] {
			wrapped = append(wrapped, col)
		}
	}
	if total <= textWidth || len(wrapped) == 0 {
		return nil
	}
	left := textWidth - total
	for _, col := range wrapped {
		left += natural[col]
	}
	widths := map[int]int{}
	for _, col := range wrapped {
		widths[col] = max(left/len(wrapped), minWrap, twwidth.Width(header[col]))
	}
	return widths
}

// naturalWidths is the width of each column unwrapped: its widest cell.
func naturalWidths(header []string, rows [][]string) []int {
	natural := make([]int, len(header))
	for col, h := range header {
		natural[col] = twwidth.Width(h)
		for _, row := range rows {
			if col < len(row) {
				natural[col] = max(natural[col], twwidth.Width(row[col]))
			}
		}
	}
	return natural
}

// tableWidth is how wide textTable draws t when it wraps nothing.
func tableWidth(t table) int {
	width := 2 * (len(t.header) - 1)
	for _, w := range naturalWidths(t.header, t.rows) {
		width += w
	}
	return width
}

// breakBeforeParen puts a cell wider than width on two lines before its
// last parenthesis that leaves the first line within width, so that
// "observed ✗ (want expected)" wraps as a unit; tablewriter wraps the rest.
func breakBeforeParen(cell string, width int) string {
	if twwidth.Width(cell) <= width {
		return cell
	}
	for i := strings.LastIndex(cell, " ("); i > 0; i = strings.LastIndex(cell[:i], " (") {
		if twwidth.Width(cell[:i]) <= width {
			return cell[:i] + "\n" + cell[i+1:]
		}
	}
	return cell
}
