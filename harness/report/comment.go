package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// CommentLimit is the most characters a GitHub pull-request comment holds.
// The markdown meant to be posted as one (WriteMarkdownBrief,
// WriteComparisonMarkdown) is kept within it, counted in bytes, which are
// never fewer than characters.
const CommentLimit = 65536

// maxItem is the most bytes one failure or regression shows in a comment;
// the rest of it is in the full report.
const maxItem = 2000

// WriteMarkdownBrief writes r as markdown sized for a pull-request comment
// (at most CommentLimit bytes): the verdict, the line per suite and variant
// of WriteMarkdown, every failure, failed threshold and regression against
// the blessed baseline (each clipped to 2,000 bytes, and as many as fit, the count of the rest said), and a link
// to full, the file with every table (WriteMarkdown).
func WriteMarkdownBrief(w io.Writer, r *Report, full string) error {
	overview, failures, thresholds := headline(r)
	var head bytes.Buffer
	fmt.Fprintf(&head, "**%s**\n\n", mdText(r.Verdict()))
	mdTable(&head, overview)
	if lines := unmeasuredLines(r); len(lines) > 0 {
		head.WriteString("\n")
		for _, l := range lines {
			head.WriteString(mdItem("⚠ " + l))
		}
	}
	link := fmt.Sprintf("\nEvery table (per scenario, cost, tokens by part, LLM calls by role, routing, trimming) is in [%s](%s).\n", mdText(full), full)
	var items []commentItem
	for _, f := range failures {
		items = append(items, commentItem{heading: "\n### Failures\n\n", text: mdItem(f)})
	}
	for _, t := range thresholds {
		items = append(items, commentItem{heading: "\n### Thresholds that failed\n\n", text: mdItem(t)})
	}
	if r.Gate != nil {
		heading := fmt.Sprintf("\n### Regressions against %s\n\n", mdText(r.Gate.Baseline))
		for _, g := range r.Gate.Regressions {
			items = append(items, commentItem{heading: heading, text: mdItem(g.String())})
		}
	}
	_, err := io.WriteString(w, fitComment(head.String(), items, link, fmt.Sprintf("[%s](%s)", mdText(full), full)))
	return err
}

// Latest is the files a run writes, by name, each a function writing it:
// latest.md (WriteMarkdownBrief, sized for a pull-request comment, linking
// the next), latest-full.md (WriteMarkdown, every table) and latest.json
// (WriteJSON).
func Latest(r *Report) map[string]func(io.Writer) error {
	return map[string]func(io.Writer) error{
		"latest.md":      func(w io.Writer) error { return WriteMarkdownBrief(w, r, "latest-full.md") },
		"latest-full.md": func(w io.Writer) error { return WriteMarkdown(w, r) },
		"latest.json":    func(w io.Writer) error { return WriteJSON(w, r) },
	}
}

// commentItem is one item of a comment (a list item, a table row) and the
// markdown written before the first item of its group (a heading, a table's
// header).
type commentItem struct{ heading, text string }

// fitComment is head, then as many items as fit (each heading once, before
// its first item), a line counting the items left out (more, markdown, says
// where they are), and tail: at most CommentLimit bytes, head and tail always whole.
func fitComment(head string, items []commentItem, tail, more string) string {
	var b strings.Builder
	b.WriteString(head)
	room := CommentLimit - len(head) - len(tail) - len(more) - 40 // and the line that counts what is left out
	heading := ""
	for i, it := range items {
		add := ""
		if it.heading != heading {
			add = it.heading
		}
		add += it.text
		if b.Len()-len(head)+len(add) > room {
			fmt.Fprintf(&b, "\n… and %d more in %s.\n", len(items)-i, more)
			break
		}
		b.WriteString(add)
		heading = it.heading
	}
	b.WriteString(tail)
	return b.String()
}

// mdItem is s as a list item: its first line escaped, the rest (a
// multi-line diagnosis) in a fenced block under it, clipped to maxItem bytes.
func mdItem(s string) string {
	s = clipBytes(strings.TrimRight(s, "\n"), maxItem)
	first, rest, _ := strings.Cut(s, "\n")
	out := "- " + mdText(first) + "\n"
	if rest == "" {
		return out
	}
	rest = strings.TrimPrefix(strings.ReplaceAll(rest, "\n    ", "\n"), "    ") // briefFailures' indent
	fence := "```"
	for strings.Contains(rest, fence) {
		fence += "`"
	}
	return out + fmt.Sprintf("\n  %s\n  %s\n  %s\n", fence, strings.ReplaceAll(rest, "\n", "\n  "), fence)
}

// clipBytes is s cut to at most n bytes at a rune boundary, marked with "…"
// when cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// WriteComparisonMarkdown writes comparisons as markdown sized for a
// pull-request comment (at most CommentLimit bytes): a line per comparison
// (pass rate, routing accuracy, mean input tokens and latency, base → head,
// and the scenarios that regressed), then a table of each comparison's
// regressed scenarios (as many rows as fit), and a link to details, the
// full report, when given.
func WriteComparisonMarkdown(w io.Writer, cs []Comparison, details string) error {
	regressed, unmeasured := 0, 0
	for _, c := range cs {
		for _, r := range c.Rows {
			if r.Regressed {
				regressed++
			}
			if r.unmeasured() != "" {
				unmeasured++
			}
		}
	}
	var head bytes.Buffer
	verdict := "no scenario regressed"
	if regressed > 0 {
		verdict = fmt.Sprintf("%d scenarios regressed", regressed)
	}
	if unmeasured > 0 {
		// Its figures were not measured: no saving, and no regression of
		// tokens or latency, can be read from it.
		verdict += fmt.Sprintf(", but %d scenarios were stale or errored on a side and their tokens and latency not compared", unmeasured)
	}
	fmt.Fprintf(&head, "**testbed compare: %s in %d comparisons**\n\n", verdict, len(cs))
	overview := table{
		header: []string{"suite: base → head", "scenarios", "pass rate", "routing", "in tok (mean)", "latency mean", "regressed"},
		right:  []bool{false, true, true, true, true, true, true},
	}
	var items []commentItem
	var calm [][]string // the summary rows of comparisons that did not regress
	for _, c := range cs {
		b, h := c.BaseSummary, c.HeadSummary
		routing := "—"
		if b.Routed > 0 || h.Routed > 0 {
			routing = percent(b.RoutingAccuracy) + " → " + percent(h.RoutingAccuracy)
		}
		var rows []string
		for _, r := range c.Rows {
			if !r.Regressed {
				continue
			}
			tools := "="
			if strings.Join(r.Base.Tools, ",") != strings.Join(r.Head.Tools, ",") {
				tools = strings.Join(r.Base.Tools, ",") + " → " + strings.Join(r.Head.Tools, ",")
			}
			f := r.figures()
			rows = append(rows, mdRow([]string{r.ID, arrow(strings.ToUpper(r.Base.Verdict), strings.ToUpper(r.Head.Verdict)),
				arrow(r.Base.Route, r.Head.Route), clipBytes(tools, 200), f[0], f[2], f[3]}))
		}
		name := fmt.Sprintf("%s: %s → %s", c.Suite, c.Base, c.Head)
		in, latency := means(b, h, b.InputTokensMean, h.InputTokensMean, ""), means(b, h, b.LatencyMean, h.LatencyMean, " ms")
		if why := Unmeasured(b, h); why != "" {
			// means over other runs, or over none: no change to read
			in, latency = in+" (not comparable: "+why+")", latency+" (not comparable)"
		} else {
			in, latency = in+percentChange(b.InputTokensMean, h.InputTokensMean), latency+percentChange(b.LatencyMean, h.LatencyMean)
		}
		row := []string{name, Grouped(int64(len(c.Rows))),
			percent(b.PassRate) + " → " + percent(h.PassRate), routing, in, latency, Grouped(int64(len(rows)))}
		if len(rows) == 0 {
			calm = append(calm, row)
			continue
		}
		overview.rows = append(overview.rows, row)
		var t bytes.Buffer
		mdTable(&t, table{header: []string{"scenario", "verdict", "route", "tools", "in tok", "LLM", "latency"},
			right: []bool{false, false, false, false, true, true, true}})
		heading := fmt.Sprintf("\n### %s: regressed (%d)\n\n%s", mdText(name), len(rows), t.String())
		for _, r := range rows {
			items = append(items, commentItem{heading: heading, text: r})
		}
	}
	// The comparisons that regressed, then as many others as keep the
	// summary to maxSummaryRows; the regressions below need the room.
	keep := max(0, min(len(calm), maxSummaryRows-len(overview.rows)))
	overview.rows = append(overview.rows, calm[:keep]...)
	mdTable(&head, overview)
	if left := len(calm) - keep; left > 0 {
		fmt.Fprintf(&head, "\n… and %d more comparisons, none regressed.\n", left)
	}
	tail, more := "", "the output of testbed compare"
	if details != "" {
		more = fmt.Sprintf("[the full report](%s)", details)
		tail = fmt.Sprintf("\nThe full report, its HTML page and JUnit: [%s](%s).\n", mdText(details), details)
	}
	_, err := io.WriteString(w, fitComment(head.String(), items, tail, more))
	return err
}

// maxSummaryRows is how many comparisons a comment's summary table lists:
// every one that regressed, then others up to this many.
const maxSummaryRows = 40

// means is "a → b" for two means of the summaries bs and hs, grouped,
// with unit after each, and "—" for a side that measured no run.
func means(bs, hs Summary, a, b float64, unit string) string {
	figure := func(s Summary, v float64) string {
		if s.Measured() <= 0 {
			return "—"
		}
		return Grouped(int64(math.Round(v))) + unit
	}
	return figure(bs, a) + " → " + figure(hs, b)
}

// percentChange is " (+x%)", the change from a to b, or "" when there is
// none or a is 0.
func percentChange(a, b float64) string {
	if a == 0 || a == b {
		return ""
	}
	return fmt.Sprintf(" (%+.1f%%)", (b-a)/a*100)
}
