package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

// WriteHTML writes r as one self-contained HTML page: per suite the charts
// (input tokens by part, replayed latency against the budget, latency by
// role, trimming by tool, routing confusion heat maps), the tables of
// WriteText, and each scenario's trace in an expandable block. The page
// loads nothing and runs no script; the same report gives the same bytes.
func WriteHTML(w io.Writer, r *Report) error {
	d := layout(r, func(v string) string { return strings.ToUpper(v) })
	page := htmlPage{Result: d.result, Pass: r.Passed()}
	if r.Replay != nil {
		page.Replay = fmt.Sprintf("replay: %s live calls, %s of %s recorded interactions replayed, %d unused cassettes",
			Grouped(int64(r.Replay.LiveCalls)), Grouped(int64(r.Replay.Replayed)), Grouped(int64(r.Replay.Recorded)), len(r.Replay.UnusedCassettes))
	}
	if sec, ok := faultsByAgent(r); ok {
		page.Overview = append(page.Overview, htmlSectionOf(sec))
	}
	for i := range r.Suites {
		s := &r.Suites[i]
		hs := htmlSuite{Title: d.suites[i].title, About: d.suites[i].about, Prose: d.suites[i].prose, Charts: suiteCharts(s)}
		for _, sec := range d.suites[i].sections {
			hs.Sections = append(hs.Sections, htmlSectionOf(sec))
		}
		order, _ := variantOrder(s)
		for _, v := range order {
			hv := htmlVariant{Name: v.Name}
			for _, sc := range v.Scenarios {
				hv.Scenarios = append(hv.Scenarios, htmlTraceOf(sc))
			}
			hs.Traces = append(hs.Traces, hv)
		}
		page.Suites = append(page.Suites, hs)
	}
	return pageTemplate.Execute(w, page)
}

type htmlPage struct {
	// Overview holds the tables over the whole report (faults by agent).
	Overview []htmlSection
	Suites   []htmlSuite
	Replay   string
	Result   string
	Pass     bool
}

type htmlSuite struct {
	Title, About string
	Prose        string // what the suite's figures measure
	Charts       []chart
	Sections     []htmlSection
	Traces       []htmlVariant
}

type htmlSection struct {
	Title  string
	Header []string
	Right  []bool
	Rows   [][]string
	Notes  []htmlNote
}

type htmlNote struct{ Mark, Text string }

func htmlSectionOf(sec section) htmlSection {
	h := htmlSection{Title: sec.title, Header: sec.table.header, Right: sec.table.right, Rows: sec.table.rows}
	for _, n := range sec.notes {
		h.Notes = append(h.Notes, htmlNote{n.mark, n.text})
	}
	return h
}

type htmlVariant struct {
	Name      string
	Scenarios []htmlTrace
}

// htmlTrace is one scenario's trace: a summary line and a row per event.
type htmlTrace struct {
	ID, Verdict, Summary string
	Timeline             template.HTML // the run on its replayed clock
	Answer               []string
	Events               [][]string // at, turn, kind, what, tokens, duration, detail
}

func htmlTraceOf(sc Scenario) htmlTrace {
	m := sc.Metrics
	t := htmlTrace{ID: sc.ID, Verdict: sc.Verdict, Answer: sc.Answer,
		Summary: fmt.Sprintf("%s · %d LLM, %d tool calls · %d in / %d out tokens · %s",
			strings.ToUpper(sc.Verdict), m.LLMCalls, m.ToolCalls, m.InputTokens, m.OutputTokens, ms(m.Latency)),
		Timeline: timeline(sc.Events)}
	for _, e := range sc.Events {
		row := []string{ms(e.At), strconv.Itoa(e.Turn), string(e.Kind), "", "", "", ""}
		switch e.Kind {
		case trace.KindLLM:
			c := e.LLM
			row[3] = c.Role + " " + c.Model
			row[4] = fmt.Sprintf("%d in / %d out", c.Input.Total(), c.Output)
			row[5] = ms(c.Duration)
			var calls []string
			for _, tc := range c.ToolCalls {
				calls = append(calls, tc.Name+string(tc.Arguments))
			}
			row[6] = firstOf(c.Error, strings.Join(calls, "; "), c.Text)
		case trace.KindTool:
			c := e.Tool
			row[3] = c.Name
			row[4] = fmt.Sprintf("%d raw → %d context", c.RawTokens, c.ContextTokens)
			row[6] = firstOf(c.Error, string(c.Args))
		case trace.KindHTTP:
			c := e.HTTP
			row[3] = c.Method + " " + c.URL
			row[4] = strconv.Itoa(c.Status)
			row[5] = ms(c.Duration)
			row[6] = c.Error
			if c.Rule != "" {
				row[6] = firstOf(c.Error, "stand-in rule "+c.Rule)
			}
		case trace.KindNote:
			row[3] = e.Note.Key
			row[6] = fmt.Sprint(e.Note.Decoded())
		}
		row[6] = clip(row[6], 240)
		t.Events = append(t.Events, row)
	}
	return t
}

// firstOf returns the first non-empty string.
func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>testbed report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; } h2 { margin-top: 40px; border-bottom: 2px solid #4e79a7; } h3 { font-size: 15px; margin: 18px 0 6px; }
.about, .replay { color: #555; }
.result { font-weight: bold; padding: 6px 10px; display: inline-block; border-radius: 4px; }
.pass { background: #e3f1df; color: #256029; } .fail { background: #fbe3e4; color: #8a1f22; }
.charts { display: flex; flex-wrap: wrap; gap: 12px 24px; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
svg.chart { font: 11px system-ui, sans-serif; background: #fff; }
table { border-collapse: collapse; margin: 4px 0 8px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f5f8; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
ul.notes { margin: 4px 0; } pre { white-space: pre-wrap; margin: 2px 0; }
details { margin: 4px 0; } summary { cursor: pointer; }
details.variant > summary { font-weight: 600; }
td.detail { max-width: 520px; overflow-wrap: anywhere; font-family: ui-monospace, monospace; font-size: 12px; }
.verdict-pass { color: #256029; } .verdict-fail, .verdict-error, .verdict-stale { color: #8a1f22; font-weight: 600; }
</style>
</head>
<body>
<h1>testbed report</h1>
<p class="result {{if .Pass}}pass{{else}}fail{{end}}">{{.Result}}</p>
{{with .Replay}}<p class="replay">{{.}}</p>{{end}}{{range .Overview}}{{template "section" .}}{{end}}
{{range .Suites}}
<section class="suite">
<h2>{{.Title}}</h2>
<p class="about">{{.About}}</p>
{{if .Prose}}<p class="prose">{{.Prose}}</p>{{end}}
<div class="charts">
{{range .Charts}}<figure><figcaption>{{.Title}}</figcaption>{{.SVG}}</figure>
{{end}}</div>
{{range .Sections}}{{template "section" .}}{{end}}
<h3>traces</h3>
{{range .Traces}}<details class="variant"><summary>variant {{.Name}} ({{len .Scenarios}} scenarios)</summary>
{{range .Scenarios}}<details><summary><span class="verdict-{{.Verdict}}">{{.ID}}</span> — {{.Summary}}</summary>
{{.Timeline}}
<table>
<tr><th>at</th><th>turn</th><th>kind</th><th>what</th><th>tokens / status</th><th>duration</th><th>detail</th></tr>
{{range .Events}}<tr>{{range $i, $c := .}}<td{{if eq $i 6}} class="detail"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{range .Answer}}<p><b>answer:</b> {{.}}</p>{{end}}
</details>
{{end}}</details>
{{end}}
</section>
{{end}}
</body>
</html>
{{define "section"}}
<h3>{{.Title}}</h3>
{{if .Header}}{{$right := .Right}}<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if index $right $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.Mark}} <pre>{{.Text}}</pre></li>{{end}}</ul>{{end}}
{{end}}`))
