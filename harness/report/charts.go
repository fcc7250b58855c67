package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/trace"
)

// This file draws the charts of WriteHTML as inline SVG, generated here
// rather than by a JavaScript charting library: the page then needs no
// script at all (nothing to inline, nothing to fail in a console), and the
// same report gives the same bytes.

// Palette holds the colours of the chart series, in order. They are exported
// so that a browser test can look for them in a screenshot.
var Palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"}

// chart geometry, in SVG user units.
const (
	chartWidth = 760.0
	labelWidth = 170.0 // the row labels on the left
	rowHeight  = 26.0
	barHeight  = 16.0
	chartTop   = 30.0 // room for a legend or axis labels
)

// svg builds one <svg> element.
type svg struct {
	b strings.Builder
}

func newSVG(height float64, title string) *svg {
	s := &svg{}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s">`,
		chartWidth, height, chartWidth, height, html.EscapeString(title))
	return s
}

// rect draws a filled rectangle with a hover tip.
func (s *svg) rect(x, y, w, h float64, fill, tip string) {
	fmt.Fprintf(&s.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`,
		x, y, math.Max(w, 0), h, fill, html.EscapeString(tip))
}

func (s *svg) circle(x, y, r float64, fill, tip string) {
	fmt.Fprintf(&s.b, `<circle cx="%.1f" cy="%.1f" r="%g" fill="%s" fill-opacity="0.7"><title>%s</title></circle>`,
		x, y, r, fill, html.EscapeString(tip))
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string, dashed bool) {
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="4 3"`
	}
	fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"%s/>`, x1, y1, x2, y2, stroke, dash)
}

// text writes a label; anchor is start, middle or end.
func (s *svg) text(x, y float64, anchor, label string) {
	fmt.Fprintf(&s.b, `<text x="%.1f" y="%.1f" text-anchor="%s">%s</text>`, x, y, anchor, html.EscapeString(label))
}

// legend draws coloured keys along the top.
func (s *svg) legend(names []string) {
	x := labelWidth
	for i, n := range names {
		s.rect(x, 8, 10, 10, Palette[i%len(Palette)], n)
		s.text(x+14, 17, "start", n)
		x += 24 + 7*float64(len([]rune(n)))
	}
}

func (s *svg) html() template.HTML {
	s.b.WriteString("</svg>")
	return template.HTML(s.b.String()) // every label above went through html.EscapeString
}

// chart is a titled SVG figure.
type chart struct {
	Title string
	SVG   template.HTML
}

// suiteCharts draws the charts of suite s that have data.
func suiteCharts(s *Suite) []chart {
	order, _ := variantOrder(s)
	charts := []chart{tokenPartsChart(order), latencyChart(order, latencyBudget(order))}
	if c, ok := ttftChart(order); ok {
		charts = append(charts, c)
	}
	if c, ok := roleLatencyChart(order); ok {
		charts = append(charts, c)
	}
	if c, ok := trimmingChart(order); ok {
		charts = append(charts, c)
	}
	for _, v := range order {
		if len(v.Confusion) > 0 {
			charts = append(charts, confusionChart(v))
		}
	}
	return charts
}

// scale maps [0, max] onto the plot width right of the labels.
func scale(max float64) func(float64) float64 {
	if max <= 0 {
		max = 1
	}
	plot := chartWidth - labelWidth - 70 // room for the value after a bar
	return func(v float64) float64 { return labelWidth + v/max*plot }
}

// tokenPartsChart stacks the mean input tokens per scenario by part, one bar
// per variant, over the runs that were measured.
func tokenPartsChart(order []*Variant) chart {
	parts := []string{"system", "tools", "history", "tool_results", "user", "overhead"}
	means := make([][]float64, len(order))
	max := 0.0
	for i, v := range order {
		var sum trace.Parts
		measured := measuredRuns(v)
		for _, run := range measured {
			sum = sum.Add(run.Metrics.Input)
		}
		n := math.Max(float64(len(measured)), 1)
		means[i] = []float64{float64(sum.System) / n, float64(sum.Tools) / n, float64(sum.History) / n,
			float64(sum.ToolResults) / n, float64(sum.User) / n, float64(sum.Overhead) / n}
		max = math.Max(max, float64(sum.Total())/n)
	}
	return stackedChart("input tokens by part (mean per scenario)", order, parts, max, means,
		func(i, k int) string {
			return fmt.Sprintf("%s · %s: %.0f tokens", order[i].Name, parts[k], means[i][k])
		},
		func(total float64) string { return strconv.FormatFloat(total, 'f', 0, 64) })
}

// stackedChart draws one stacked bar per variant of order, on a scale up to
// max: values[i][k] is segment k of variant i, coloured as legend entry k,
// with tip(i, k) as its tooltip; label gives the text after a bar from its
// length.
func stackedChart(title string, order []*Variant, legend []string, max float64, values [][]float64,
	tip func(i, k int) string, label func(total float64) string) chart {
	s := newSVG(chartTop+rowHeight*float64(len(order))+10, title)
	s.legend(legend)
	x := scale(max)
	for i, v := range order {
		y := chartTop + rowHeight*float64(i)
		s.text(labelWidth-6, y+12, "end", v.Name)
		at := 0.0
		for k, m := range values[i] {
			s.rect(x(at), y, x(at+m)-x(at), barHeight, Palette[k%len(Palette)], tip(i, k))
			at += m
		}
		s.text(x(at)+4, y+12, "start", label(at))
	}
	return chart{title, s.html()}
}

// latencyBudget is the target of the first latency threshold of any
// variant, in milliseconds, or 0.
func latencyBudget(order []*Variant) float64 {
	for _, v := range order {
		for _, t := range v.Thresholds {
			if !t.NotEvaluated && strings.Contains(strings.ToLower(metricName(t.Source)), "latency") {
				return t.Target
			}
		}
	}
	return 0
}

// latencyChart plots each scenario's replayed latency as a dot, one row per
// variant, with the p50 and p95 marked and the budget as a dashed line.
func latencyChart(order []*Variant, budget float64) chart {
	rows := make([]dotRow, len(order))
	for i, v := range order {
		rows[i] = dotRow{name: v.Name, p50: v.Summary.LatencyP50, p95: v.Summary.LatencyP95}
		for _, sc := range v.Scenarios {
			if !sc.Measured() {
				continue // a stale or errored run's latency was not measured: no dot at 0 ms
			}
			rows[i].dots = append(rows[i].dots, dot{msOf(sc.Metrics.Latency), fmt.Sprintf("%s · %s: %s", v.Name, sc.ID, ms(sc.Metrics.Latency))})
		}
	}
	return dotChart("replayed latency per scenario (dots), p50 and p95 (ticks)", rows, budget)
}

// dotRow is one row of a dot chart: a variant's values in milliseconds,
// with its p50 and p95.
type dotRow struct {
	name     string
	dots     []dot
	p50, p95 float64
}

type dot struct {
	v   float64 // milliseconds
	tip string
}

// dotChart plots each row's values as dots on one time axis, with the p50
// and p95 as ticks and the budget (ms, 0 for none) as a dashed line.
func dotChart(title string, rows []dotRow, budget float64) chart {
	max := budget
	for _, r := range rows {
		for _, d := range r.dots {
			max = math.Max(max, d.v)
		}
	}
	const row = rowHeight * 1.5 // room for the tick labels
	height := chartTop + row*float64(len(rows)) + 24
	s := newSVG(height, title)
	x := scale(max * 1.05)
	for i, r := range rows {
		y := chartTop + row*float64(i)
		s.text(labelWidth-6, y+12, "end", r.name)
		s.line(labelWidth, y+barHeight/2, chartWidth-20, y+barHeight/2, "#ddd", false)
		for _, d := range r.dots {
			s.circle(x(d.v), y+barHeight/2, 4, Palette[i%len(Palette)], d.tip)
		}
		for _, q := range []struct {
			name string
			v    float64
		}{{"p50", r.p50}, {"p95", r.p95}} {
			s.line(x(q.v), y-2, x(q.v), y+barHeight+2, "#333", false)
			s.text(x(q.v), y-3, "middle", q.name)
		}
	}
	axis := height - 8
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		s.text(x(f*max), axis, "middle", strconv.FormatFloat(f*max/1000, 'f', 1, 64)+" s")
	}
	if budget > 0 {
		s.line(x(budget), chartTop-10, x(budget), height-22, "#d62728", true)
		s.text(x(budget), chartTop-12, "middle", "budget "+strconv.FormatFloat(budget/1000, 'f', 1, 64)+" s")
	}
	return chart{title, s.html()}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// roleLatencyChart stacks the replayed LLM latency by role, one bar per
// variant, over the runs that were measured; only for suites with more than
// one role.
func roleLatencyChart(order []*Variant) (chart, bool) {
	totals := make([]map[string]time.Duration, len(order))
	var roles []string
	for i, v := range order {
		totals[i] = map[string]time.Duration{}
		for _, run := range measuredRuns(v) {
			for name, r := range run.Metrics.Roles {
				totals[i][name] += r.Latency
				if !slices.Contains(roles, name) {
					roles = append(roles, name)
				}
			}
		}
	}
	if len(roles) < 2 {
		return chart{}, false
	}
	sort.Strings(roles)
	max := 0.0
	for _, t := range totals {
		sum := 0.0
		for _, d := range t {
			sum += msOf(d)
		}
		max = math.Max(max, sum)
	}
	values := make([][]float64, len(order))
	for i := range order {
		for _, name := range roles {
			values[i] = append(values[i], msOf(totals[i][name]))
		}
	}
	return stackedChart("LLM latency by role (total over the suite)", order, roles, max, values,
		func(i, k int) string {
			return fmt.Sprintf("%s · %s: %s", order[i].Name, roles[k], ms(totals[i][roles[k]]))
		},
		func(total float64) string { return strconv.FormatFloat(total/1000, 'f', 1, 64) + " s" }), true
}

// trimmingChart draws the token reduction of each tool's payloads, a bar per
// variant and tool.
func trimmingChart(order []*Variant) (chart, bool) {
	type bar struct {
		variant int
		t       ToolTrim
	}
	var bars []bar
	for i, v := range order {
		for _, t := range v.Trimming {
			if t.Reduction != 0 {
				bars = append(bars, bar{i, t})
			}
		}
	}
	if len(bars) == 0 {
		return chart{}, false
	}
	sort.SliceStable(bars, func(a, b int) bool { return bars[a].t.Tool < bars[b].t.Tool })
	title := "payload token reduction by tool (raw upstream → model context; tools whose payloads shrank)"
	s := newSVG(chartTop+rowHeight*float64(len(bars))+10, title)
	var names []string
	for _, v := range order {
		names = append(names, v.Name)
	}
	s.legend(names)
	x := scale(1)
	for j, b := range bars {
		y := chartTop + rowHeight*float64(j)
		if j == 0 || bars[j-1].t.Tool != b.t.Tool {
			s.text(labelWidth-6, y+12, "end", b.t.Tool)
		}
		s.rect(x(0), y, x(math.Max(b.t.Reduction, 0))-x(0), barHeight, Palette[b.variant%len(Palette)],
			fmt.Sprintf("%s · %s: %d → %d tokens over %s", order[b.variant].Name, b.t.Tool, b.t.RawTokens, b.t.ContextTokens, Count(b.t.Calls, "call")))
		s.text(x(math.Max(b.t.Reduction, 0))+4, y+12, "start", percent(b.t.Reduction))
	}
	return chart{title, s.html()}, true
}

// confusionChart draws v's routing confusion matrix as a heat map: rows are
// expected routes, columns observed ones, the shade the share of the row;
// right cells in green, wrong ones in red.
func confusionChart(v *Variant) chart {
	var expected, observed []string
	counts := map[[2]string]int{}
	rowTotal := map[string]int{}
	for _, c := range v.Confusion {
		if !slices.Contains(expected, c.Expected) {
			expected = append(expected, c.Expected)
		}
		if !slices.Contains(observed, c.Observed) {
			observed = append(observed, c.Observed)
		}
		counts[[2]string{c.Expected, c.Observed}] += c.Count
		rowTotal[c.Expected] += c.Count
	}
	sort.Strings(expected)
	sort.Strings(observed)
	const cell, top, left = 34.0, 150.0, 260.0
	title := "routing confusion, variant " + v.Name
	height := top + cell*float64(len(expected)) + 10
	s := &svg{}
	width := math.Max(chartWidth, left+cell*float64(len(observed))+top) // rotated labels lean right
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s">`,
		width, height, width, height, html.EscapeString(title))
	for j, o := range observed {
		cx := left + cell*float64(j) + cell/2
		fmt.Fprintf(&s.b, `<text transform="translate(%.1f %.1f) rotate(-45)" text-anchor="start">%s</text>`, cx, top-6, html.EscapeString(routeOrNone(o)))
	}
	for i, e := range expected {
		y := top + cell*float64(i)
		s.text(left-6, y+cell/2+4, "end", routeOrNone(e))
		for j, o := range observed {
			n := counts[[2]string{e, o}]
			share := float64(n) / math.Max(float64(rowTotal[e]), 1)
			fill := "#f4f4f4"
			if n > 0 {
				hue := "89, 161, 79" // green
				if !correctRoute(e, o) {
					hue = "225, 87, 89" // red
				}
				fill = fmt.Sprintf("rgba(%s, %.2f)", hue, 0.25+0.75*share)
			}
			x := left + cell*float64(j)
			s.rect(x, y, cell-2, cell-2, fill, fmt.Sprintf("expected %s, observed %s: %d", routeOrNone(e), routeOrNone(o), n))
			if n > 0 {
				s.text(x+cell/2-1, y+cell/2+4, "middle", strconv.Itoa(n))
			}
		}
	}
	return chart{title, s.html()}
}
