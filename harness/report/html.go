package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

// WriteHTML writes r as one self-contained HTML page: a table of contents,
// the failing scenario runs linked from the verdict, per suite the charts
// (input tokens by part, replayed latency against the budget, latency by
// role, trimming by tool, routing confusion heat maps), the tables of
// WriteText, and each scenario's trace in an expandable block with what the
// model saw when the report kept it. An inlined script filters the traces
// by verdict, route changed, budget violated and text; the page loads
// nothing, and the same report gives the same bytes.
func WriteHTML(w io.Writer, r *Report) error {
	d := layout(r, func(v string) string { return strings.ToUpper(v) })
	page := htmlPage{Result: d.result, Pass: r.Passed(), Style: pageStyle, Script: pageScript}
	anchors := anchorSet{}
	seen := newSeenIndex(anchors)
	if r.Replay != nil {
		page.Replay = fmt.Sprintf("replay: %s live calls, %s of %s recorded interactions replayed, %d unused cassettes%s",
			Grouped(int64(r.Replay.LiveCalls)), Grouped(int64(r.Replay.Replayed)), Grouped(int64(r.Replay.Recorded)), len(r.Replay.UnusedCassettes), r.Replay.isolation())
	}
	if sec, ok := faultsByAgent(r); ok {
		page.Overview = append(page.Overview, htmlSectionOf(sec))
	}
	if g := r.Gate; g != nil {
		sec := gateSection(g)
		sec.title = "regression gate against " + g.Baseline + ": " + sec.title
		page.Overview = append(page.Overview, htmlSectionOf(sec))
	}
	for i := range r.Suites {
		s := &r.Suites[i]
		hs := htmlSuite{Title: d.suites[i].title, About: d.suites[i].about, Prose: d.suites[i].prose, Charts: suiteCharts(s),
			Anchor: anchors.add("suite", s.Name)}
		for _, sec := range d.suites[i].sections {
			hs.Sections = append(hs.Sections, htmlSectionOf(sec))
		}
		order, base := variantOrder(s)
		budget := latencyBudget(order)
		for _, v := range order {
			hv := htmlVariant{Name: v.Name}
			for _, sc := range v.Scenarios {
				t := htmlTraceOf(sc)
				t.Anchor = anchors.add(s.Name, v.Name, sc.ID)
				t.Seen = modelSaw(sc.Events, seen, s.Name+"/"+v.Name+"/"+sc.ID, t.Anchor)
				t.SeenData, t.SeenIDs = seenData(t.Seen), seenIDs(t.Seen)
				t.RouteChanged = routeChanged(sc, base, v)
				t.OverBudget = overBudget(sc, budget)
				if sc.Verdict != VerdictPass {
					page.Failures = append(page.Failures, htmlLink{Anchor: t.Anchor, Label: s.Name + "/" + v.Name + "/" + sc.ID, Verdict: sc.Verdict})
				}
				hv.Scenarios = append(hv.Scenarios, t)
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
	// Failures links to every scenario run that did not pass.
	Failures []htmlLink
	Style    template.CSS
	Script   template.JS
	Suites   []htmlSuite
	Replay   string
	Result   string
	Pass     bool
}

type htmlSuite struct {
	Title, About string
	Anchor       string
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
	Anchor               string
	// RouteChanged and OverBudget are what the page's filters test.
	RouteChanged, OverBudget bool
	Seen                     []seenCall    // what the model saw, when the report kept it
	SeenData                 template.JS   // the same, for the script to draw
	SeenIDs                  string        // the anchors in it
	Timeline                 template.HTML // the run on its replayed clock
	Answer                   []string
	// Grades are the rubric checks with the grader's score and reason.
	Grades []string
	Events [][]string // at, turn, kind, what, tokens, duration, detail
}

func htmlTraceOf(sc Scenario) htmlTrace {
	m := sc.Metrics
	t := htmlTrace{ID: sc.ID, Verdict: sc.Verdict, Answer: sc.Answer,
		Summary: fmt.Sprintf("%s · %d LLM, %d tool calls · %d in / %d out tokens · %s",
			strings.ToUpper(sc.Verdict), m.LLMCalls, m.ToolCalls, m.InputTokens, m.OutputTokens, ms(m.Latency)),
		Timeline: timeline(sc.Events), Grades: grades(sc)}
	if !sc.Measured() {
		t.Summary = strings.ToUpper(sc.Verdict) + " · calls, tokens and latency not measured (the run stopped early; its events are what it did until then)"
	}
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
		case trace.KindEmbed:
			c := e.Embed
			row[3] = "embeddings " + c.Model
			row[4] = fmt.Sprintf("%d in (%s)", c.Tokens(), Count(c.Texts, "text"))
			row[5] = ms(c.Duration)
			row[6] = firstOf(c.Error, embedCost(c.Cost))
		}
		row[6] = clip(row[6], 240)
		t.Events = append(t.Events, row)
	}
	return t
}

// embedCost is an embeddings call's price and what it was priced from.
func embedCost(c *trace.Cost) string {
	if c == nil {
		return "unpriced"
	}
	return USD(c.USD) + " (" + c.From + ")"
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

var pageTemplate = template.Must(template.New("report.tmpl").ParseFS(pageFiles, "page/report.tmpl"))
