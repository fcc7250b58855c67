package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// This file renders comparisons (compare.go builds them): their sections,
// which the text and HTML outputs draw, and the JSON.

// CompareFilter picks the rows a rendering shows.
type CompareFilter struct {
	Changed     bool // only rows that changed
	Regressions bool // only rows that regressed
}

func (f CompareFilter) keep(r Compared) bool {
	return (!f.Changed || r.Changed) && (!f.Regressions || r.Regressed)
}

// arrow shows a value that may have changed: "a" or "a → b".
func arrow(a, b string) string {
	if a == b {
		return a
	}
	return a + " → " + b
}

// delta shows a figure's change, both sides in format, then the
// difference and its percentage of a: "975 → 1170 (+195, +20.0%)".
func delta(a, b float64, format string) string {
	if a == b {
		return fmt.Sprintf(format, a)
	}
	s := fmt.Sprintf(format+" → "+format+" ("+withSign(format), a, b, b-a)
	if a != 0 {
		s += fmt.Sprintf(", %+.1f%%", (b-a)/a*100)
	}
	return s + ")"
}

// withSign is format writing its number with a sign always.
func withSign(format string) string { return strings.Replace(format, "%", "%+", 1) }

// callsFormat is how a row writes its LLM calls: whole for single runs,
// to two decimals, as the summary's mean, when a side was sampled.
func (r Compared) callsFormat() string {
	if r.Base.Samples > 0 || r.Head.Samples > 0 {
		return "%.2f"
	}
	return "%.0f"
}

func deltaMS(a, b float64) string {
	if a == b {
		return fmt.Sprintf("%.0f ms", a)
	}
	s := fmt.Sprintf("%.0f → %.0f ms", a, b)
	if a != 0 {
		s += fmt.Sprintf(" (%+.1f%%)", (b-a)/a*100)
	}
	return s
}

// comparisonSections lays out one comparison.
func comparisonSections(c Comparison, f CompareFilter) []section {
	b, h := c.BaseSummary, c.HeadSummary
	title := fmt.Sprintf("%s: %s → %s (%d scenarios both ran)", c.Suite, c.Base, c.Head, len(c.Rows))
	if c.Prices != "" {
		title += ", both priced with " + c.Prices
	}
	sum := section{title: title, table: table{
		header: []string{"metric", "base", "head", "change"},
		right:  []bool{false, true, true, true},
	}}
	if len(c.Noise) > 0 {
		sum.table.header = append(sum.table.header, "noise (95%)")
		sum.table.right = append(sum.table.right, false)
	}
	rowF := func(name, metric string, x, y float64, format string, pct bool) {
		ch := fmt.Sprintf(format, y-x)
		if pct && x != 0 {
			ch += fmt.Sprintf(" (%+.1f%%)", (y-x)/x*100)
		}
		if x == y {
			ch = "="
		}
		plain := strings.Replace(format, "%+", "%", 1)
		row := []string{name, fmt.Sprintf(plain, x), fmt.Sprintf(plain, y), ch}
		if len(c.Noise) > 0 {
			row = append(row, noiseText(c.Noise, metric, plain))
		}
		sum.table.rows = append(sum.table.rows, row)
	}
	// A figure over the runs' calls, tokens or latency is set against the
	// other side's only when both measured every run (Unmeasured).
	unmeasured := Unmeasured(b, h)
	runF := func(name, metric string, x, y float64, format string, pct bool) {
		if unmeasured == "" {
			rowF(name, metric, x, y, format, pct)
			return
		}
		plain := strings.Replace(format, "%+", "%", 1)
		figure := func(s Summary, v float64) string {
			if s.Measured() <= 0 {
				return "—"
			}
			return fmt.Sprintf(plain, v)
		}
		row := []string{name, figure(b, x), figure(h, y), "— (not comparable)"}
		if len(c.Noise) > 0 {
			row = append(row, "")
		}
		sum.table.rows = append(sum.table.rows, row)
	}
	rowF("pass rate (%)", "", b.PassRate*100, h.PassRate*100, "%+.1f", false)
	if b.Runs > 0 || h.Runs > 0 {
		rowF("samples passed (%)", "", b.RunPassRate*100, h.RunPassRate*100, "%+.1f", false)
		if b.K == h.K {
			rowF(fmt.Sprintf("pass^%d (%%)", b.K), "", b.PassHatK*100, h.PassHatK*100, "%+.1f", false)
		}
	}
	if b.Routed > 0 || h.Routed > 0 {
		rowF("routing accuracy (%)", "", b.RoutingAccuracy*100, h.RoutingAccuracy*100, "%+.1f", false)
	}
	runF("LLM calls (mean)", MetricLLMCalls, b.LLMCallsMean, h.LLMCallsMean, "%+.2f", true)
	runF("input tokens (mean)", MetricInputTokens, b.InputTokensMean, h.InputTokensMean, "%+.0f", true)
	runF("output tokens (mean)", MetricOutputTokens, b.OutputTokensMean, h.OutputTokensMean, "%+.0f", true)
	// A token reduction is a figure of a side whose tools passed a payload
	// (as the report's tables say): "—" for a side that has none, and no
	// row when neither has, as no routing row when neither routed.
	switch bp, hp := c.payloads(0), c.payloads(1); {
	case bp && hp:
		runF("token reduction (%)", "", b.TokenReduction*100, h.TokenReduction*100, "%+.1f", false)
	case bp || hp:
		figure := func(ok bool, v float64) string {
			if !ok {
				return "—"
			}
			return fmt.Sprintf("%.1f", v*100)
		}
		row := []string{"token reduction (%)", figure(bp, b.TokenReduction), figure(hp, h.TokenReduction), "—"}
		if len(c.Noise) > 0 {
			row = append(row, "")
		}
		sum.table.rows = append(sum.table.rows, row)
	}
	runF("latency mean (ms)", MetricLatencyMS, b.LatencyMean, h.LatencyMean, "%+.0f", true)
	runF("latency p95 (ms)", "", b.LatencyP95, h.LatencyP95, "%+.0f", true)
	costRow := func(name string, x, y float64) {
		row := []string{name, b.Cost.Short(), h.Cost.Short(), "—"}
		if b.Cost.Evaluated() && h.Cost.Evaluated() {
			row[1], row[2], row[3] = b.Cost.Format(x), h.Cost.Format(y), "="
			if x != y {
				row[3] = costDelta(x, y)
			}
		}
		// As for the other figures: no change between costs that left
		// calls or runs out (Spend.Whole).
		if !b.Cost.Whole() || !h.Cost.Whole() {
			row[3] = "—"
			if why := apart(b.Cost, h.Cost); why != "" {
				row[3] += " (" + why + ")"
			}
		}
		if len(c.Noise) > 0 {
			row = append(row, "")
		}
		sum.table.rows = append(sum.table.rows, row)
	}
	costRow("cost per run mean (USD)", b.Cost.Mean, h.Cost.Mean)
	costRow("cost per run p95 (USD)", b.Cost.P95, h.Cost.P95)
	costRow("cost total (USD)", b.Cost.Total, h.Cost.Total)
	if b.Cost.EmbedCalls > 0 || h.Cost.EmbedCalls > 0 {
		costRow("of it, embeddings (USD)", b.Cost.Embed, h.Cost.Embed)
	}
	if bs, hs := b.Streaming, h.Streaming; bs != nil && hs != nil {
		rowF("time to first token mean (ms)", MetricTTFTMS, bs.TTFTMean, hs.TTFTMean, "%+.0f", true)
		rowF("time to first token p95 (ms)", "", bs.TTFTP95, hs.TTFTP95, "%+.0f", true)
		rowF("gap between tokens p95 (ms)", "", bs.GapP95, hs.GapP95, "%+.0f", true)
		rowF("output tokens per second", "", bs.TokensPerSecond, hs.TokensPerSecond, "%+.1f", true)
		if bs.Goodput != nil || hs.Goodput != nil {
			rowF("goodput (%)", "", ptrOr(bs.Goodput)*100, ptrOr(hs.Goodput)*100, "%+.1f", false)
		}
	} else if bs != nil || hs != nil {
		// One side streamed no call: its figures were not measured, not 0.
		side := func(st *Streaming, v func(*Streaming) float64, format string) string {
			if st == nil {
				return "— (not streamed)"
			}
			return fmt.Sprintf(format, v(st))
		}
		for _, r := range []struct {
			name, format string
			v            func(*Streaming) float64
		}{
			{"time to first token mean (ms)", "%.0f", func(s *Streaming) float64 { return s.TTFTMean }},
			{"time to first token p95 (ms)", "%.0f", func(s *Streaming) float64 { return s.TTFTP95 }},
			{"gap between tokens p95 (ms)", "%.0f", func(s *Streaming) float64 { return s.GapP95 }},
			{"output tokens per second", "%.1f", func(s *Streaming) float64 { return s.TokensPerSecond }},
		} {
			row := []string{r.name, side(bs, r.v, r.format), side(hs, r.v, r.format), "—"}
			if len(c.Noise) > 0 {
				row = append(row, "")
			}
			sum.table.rows = append(sum.table.rows, row)
		}
	}
	if len(c.Noise) > 0 {
		sum.notes = append(sum.notes, note{text: "noise: the 95% interval of the difference from the samples' own variation; " +
			"a difference beyond it is larger than the noise"})
	}
	if unmeasured != "" {
		sum.notes = append(sum.notes, note{mark: "⚠", text: "not comparable: " + unmeasured +
			"; the calls, tokens, latency and cost are over the measured runs only, so no change is given for them"})
	}

	rows := section{title: "per scenario", table: table{
		header: []string{"scenario", "verdict", "route", "tools", "in tok", "ctx tok", "LLM", "latency"},
		right:  []bool{false, false, false, false, true, true, true, true},
		wrap:   []bool{false, false, true, true, false, false, false, false},
	}}
	shown := 0
	for _, r := range c.Rows {
		if !f.keep(r) {
			continue
		}
		shown++
		tools := "="
		if !slices.Equal(r.Base.Tools, r.Head.Tools) {
			tools = strings.Join(r.Base.Tools, ",") + " → " + strings.Join(r.Head.Tools, ",")
		}
		id := r.ID
		if r.Regressed {
			id = "▲ " + id
		}
		rows.table.rows = append(rows.table.rows, append([]string{id,
			arrow(strings.ToUpper(r.Base.Verdict), strings.ToUpper(r.Head.Verdict)), arrow(r.Base.Route, r.Head.Route), tools},
			r.figures()...))
		if r.AnswerDiff != "" {
			rows.notes = append(rows.notes, note{text: r.ID + " answer " + r.AnswerDiff})
		}
		if why := r.unmeasured(); why != "" {
			rows.notes = append(rows.notes, note{text: r.ID + ": " + why + ", so its tokens, calls and latency are not compared"})
		}
		var noisy []string
		for _, n := range r.Noise {
			if n.Delta != 0 {
				noisy = append(noisy, fmt.Sprintf("%s %+.1f %s", strings.ReplaceAll(n.Metric, "_", " "), n.Delta, noiseText(r.Noise, n.Metric, "%.1f")))
			}
		}
		if len(noisy) > 0 {
			rows.notes = append(rows.notes, note{text: fmt.Sprintf("%s (%d → %d samples): %s", r.ID, max(1, r.Base.Samples), max(1, r.Head.Samples), strings.Join(noisy, "; "))})
		}
	}
	if shown == 0 {
		rows.table.header = nil
		rows.notes = []note{{text: "no scenario matches the filter"}}
	}
	rows.notes = append([]note{{text: "▲ marks a regression: a verdict no longer passing, a route gone wrong, or more LLM calls, input tokens or latency"}}, rows.notes...)
	if c.Pairwise != nil {
		return []section{sum, rows, pairwiseSection(c.Base, c.Head, c.Pairwise)}
	}
	return []section{sum, rows}
}

// figures are the row's input tokens, context tokens, LLM calls and
// latency, base → head with the change when both sides measured every
// run, and without it otherwise ("—" for a side that measured none).
func (r Compared) figures() []string {
	b, h := r.Base, r.Head
	calls := r.callsFormat()
	if b.measured() && h.measured() {
		return []string{delta(b.InputTokens, h.InputTokens, "%.0f"), delta(float64(b.ContextTokens), float64(h.ContextTokens), "%.0f"),
			delta(b.LLMCalls, h.LLMCalls, calls), deltaMS(b.LatencyMS, h.LatencyMS)}
	}
	pair := func(format string, x, y float64) string {
		return b.figure(fmt.Sprintf(format, x)) + " → " + h.figure(fmt.Sprintf(format, y))
	}
	return []string{pair("%.0f", b.InputTokens, h.InputTokens), pair("%.0f", float64(b.ContextTokens), float64(h.ContextTokens)),
		pair(calls, b.LLMCalls, h.LLMCalls), pair("%.0f ms", b.LatencyMS, h.LatencyMS)}
}

// unmeasured says which side of the row left runs out of its figures
// ("head's run was stale or errored"), or "".
func (r Compared) unmeasured() string {
	var parts []string
	for _, s := range []struct {
		name string
		side Side
	}{{"base", r.Base}, {"head", r.Head}} {
		switch {
		case s.side.measured():
		case s.side.Samples > 1:
			parts = append(parts, fmt.Sprintf("%s: %d of %d samples stale or errored", s.name, s.side.Unmeasured, s.side.Samples))
		default:
			parts = append(parts, s.name+"'s run was "+s.side.Verdict)
		}
	}
	return strings.Join(parts, "; ")
}

// payloads reports whether a measured run of side i of c's rows (0 the
// base, 1 the head) had a tool payload: only then is that side's token
// reduction, 1 − context/raw, a figure.
func (c Comparison) payloads(i int) bool {
	for _, r := range c.Rows {
		for _, run := range r.runs[i].Runs() {
			if run.Measured() && run.Metrics.RawTokens > 0 {
				return true
			}
		}
	}
	return false
}

// noiseText says whether a metric's difference is beyond the noise, with
// the interval's half-width in format.
func noiseText(ns []Noise, metric, format string) string {
	for _, n := range ns {
		if n.Metric != metric {
			continue
		}
		verdict := "within noise"
		if n.Beyond {
			verdict = "beyond noise"
		}
		return "±" + fmt.Sprintf(format, n.HalfWidth) + " " + verdict
	}
	return ""
}

// WriteComparisonText renders comparisons as terminal tables.
func WriteComparisonText(w io.Writer, cs []Comparison, f CompareFilter) error {
	var buf bytes.Buffer
	var d drawer
	for i, c := range cs {
		if i > 0 {
			buf.WriteString("\n")
		}
		for _, sec := range comparisonSections(c, f) {
			fmt.Fprintf(&buf, "%s\n", sec.title)
			if len(sec.table.header) > 0 {
				if err := d.table(&buf, sec.table); err != nil {
					return err
				}
			}
			for _, n := range sec.notes {
				fmt.Fprintf(&buf, "  %s\n", n.text)
			}
			buf.WriteString("\n")
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteComparisonJSON renders comparisons as indented JSON, with only the
// rows the filter keeps.
func WriteComparisonJSON(w io.Writer, cs []Comparison, f CompareFilter) error {
	out := make([]Comparison, len(cs))
	for i, c := range cs {
		out[i] = c
		out[i].Rows = []Compared{}
		for _, r := range c.Rows {
			if f.keep(r) {
				out[i].Rows = append(out[i].Rows, r)
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"schemaVersion": SchemaVersion, "comparisons": out})
}

// ptrOr is *p, or 0 for nil.
func ptrOr(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
