package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/wI2L/jsondiff"
)

// WriteComparisonHTML renders comparisons as one self-contained page: per
// comparison the summary with its noise column and the per-scenario table
// that WriteComparisonText draws, then each scenario the filter keeps with
// base and head side by side: its metric deltas with their noise, its
// steps (model calls, tool calls, failed exchanges) aligned, tool
// arguments diffed as JSON, a cassette miss at the step where it happened,
// and the answers diffed line by line. Regressions are open; the rest are
// folded.
func WriteComparisonHTML(w io.Writer, cs []Comparison, f CompareFilter) error {
	page := cmpPage{Style: pageStyle}
	anchors := anchorSet{}
	for _, c := range cs {
		secs := comparisonSections(c, f)
		cp := cmpSuite{Anchor: anchors.add(c.Suite, c.Base, c.Head), Title: secs[0].title,
			Summary: htmlSectionOf(section{title: "summary", table: secs[0].table, notes: secs[0].notes}), Rows: htmlSectionOf(secs[1])}
		if len(secs) > 2 {
			pw := htmlSectionOf(secs[2])
			cp.Pairwise = &pw
		}
		for _, r := range c.Rows {
			if f.keep(r) {
				cp.Scenarios = append(cp.Scenarios, cmpScenarioOf(r, anchors.add(c.Suite, c.Base, c.Head, r.ID)))
			}
		}
		page.Comparisons = append(page.Comparisons, cp)
	}
	return compareTemplate.Execute(w, page)
}

var compareTemplate = template.Must(template.New("compare.tmpl").ParseFS(pageFiles, "page/compare.tmpl", "page/report.tmpl"))

type cmpPage struct {
	Style       template.CSS
	Comparisons []cmpSuite
}

type cmpSuite struct {
	Anchor, Title string
	Summary, Rows htmlSection
	// Pairwise is compare --judge's verdict: the scenarios head did not
	// win, both answers side by side; nil when not asked.
	Pairwise  *htmlSection
	Scenarios []cmpScenario
}

// cmpScenario is one scenario under base and head.
type cmpScenario struct {
	Anchor, ID       string
	Regressed, Open  bool
	Verdict, Route   string
	Metrics          [][]string // metric, base, head, change, noise
	Steps            []cmpStep
	Answer           []cmpLine
	BaseRan, HeadRan bool // the side's report kept its trace
}

// cmpStep is one step of the run on either side, aligned: Class is
// "same", "changed" (same step, other arguments or answer), "base" (only
// in base), "head" (only in head) or "miss" (a cassette miss on a side).
type cmpStep struct {
	N          int // from 1
	Class      string
	Base, Head *step
	Args       [][3]string // JSON path, base value, head value
}

// step is one model call, tool call or failed exchange of a run.
type step struct {
	key    string // what aligns it with the other side's
	Label  string
	Detail string
	args   json.RawMessage
	Miss   bool
	// at and exchange mark a failed exchange, which the model call it
	// carried, ending next at the same start, takes over.
	at       time.Duration
	exchange bool
}

// cmpLine is one line of the answers, aligned: Class is "same", "base"
// or "head".
type cmpLine struct{ Class, Base, Head string }

func cmpScenarioOf(r Compared, anchor string) cmpScenario {
	b, h := r.runs[0], r.runs[1]
	s := cmpScenario{Anchor: anchor, ID: r.ID, Regressed: r.Regressed, Open: r.Regressed,
		Verdict: arrow(strings.ToUpper(r.Base.Verdict), strings.ToUpper(r.Head.Verdict)), Route: arrow(r.Base.Route, r.Head.Route),
		BaseRan: len(b.Events) > 0, HeadRan: len(h.Events) > 0}
	// Each figure is the side's, unrounded (a sampled side's mean), in
	// format, and the change its difference, as the noise beside it: not a
	// difference of rounded figures.
	metric := func(name, key string, a, b float64, format string) {
		base, head, change := fmt.Sprintf(format, a), fmt.Sprintf(format, b), htmlChange(a, b, format)
		noise := noiseText(r.Noise, key, "%.1f")
		if noise == "" {
			noise = "—"
		}
		if !r.Base.measured() || !r.Head.measured() {
			// a stale or errored run's figures are set against nothing
			base, head, change = r.Base.figure(base), r.Head.figure(head), "— (not comparable)"
		}
		s.Metrics = append(s.Metrics, []string{name, base, head, change, noise})
	}
	metric("LLM calls", MetricLLMCalls, r.Base.LLMCalls, r.Head.LLMCalls, r.callsFormat())
	metric("input tokens", MetricInputTokens, r.Base.InputTokens, r.Head.InputTokens, "%.0f")
	metric("output tokens", MetricOutputTokens, r.Base.OutputTokens, r.Head.OutputTokens, "%.0f")
	metric("context tokens", "", float64(r.Base.ContextTokens), float64(r.Head.ContextTokens), "%.0f")
	metric("latency (ms)", MetricLatencyMS, r.Base.LatencyMS, r.Head.LatencyMS, "%.0f")

	bs, hs := steps(b), steps(h)
	for _, p := range pairUp(align(bs, hs, func(x, y step) bool { return x.key == y.key })) {
		st := cmpStep{N: len(s.Steps) + 1}
		switch {
		case p[0] < 0:
			st.Class, st.Head = "head", &hs[p[1]]
		case p[1] < 0:
			st.Class, st.Base = "base", &bs[p[0]]
		case bs[p[0]].key != hs[p[1]].key:
			st.Class, st.Base, st.Head = "changed", &bs[p[0]], &hs[p[1]]
		default:
			st.Base, st.Head = &bs[p[0]], &hs[p[1]]
			st.Args = argsDiff(st.Base.args, st.Head.args)
			st.Class = "same"
			if len(st.Args) > 0 || st.Base.Detail != st.Head.Detail {
				st.Class = "changed"
			}
		}
		if st.Base != nil && st.Base.Miss || st.Head != nil && st.Head.Miss {
			st.Class = "miss"
		}
		s.Steps = append(s.Steps, st)
	}
	bl, hl := lines(r.Base.Answer), lines(r.Head.Answer)
	for _, p := range align(bl, hl, func(x, y string) bool { return x == y }) {
		switch {
		case p[0] < 0:
			s.Answer = append(s.Answer, cmpLine{Class: "head", Head: hl[p[1]]})
		case p[1] < 0:
			s.Answer = append(s.Answer, cmpLine{Class: "base", Base: bl[p[0]]})
		default:
			s.Answer = append(s.Answer, cmpLine{Class: "same", Base: bl[p[0]], Head: hl[p[1]]})
		}
	}
	return s
}

// lines splits an answer into its lines; none for no answer.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// pairUp puts side by side the steps that only one side took at the same
// place: a run of base-only pairs followed by head-only ones becomes pairs
// of both, so that "asked for A" sits beside "asked for B".
func pairUp(pairs [][2]int) [][2]int {
	var out [][2]int
	for i := 0; i < len(pairs); {
		var bs, hs []int
		for ; i < len(pairs) && pairs[i][1] < 0; i++ {
			bs = append(bs, pairs[i][0])
		}
		for ; i < len(pairs) && pairs[i][0] < 0; i++ {
			hs = append(hs, pairs[i][1])
		}
		for k := range max(len(bs), len(hs)) {
			p := [2]int{-1, -1}
			if k < len(bs) {
				p[0] = bs[k]
			}
			if k < len(hs) {
				p[1] = hs[k]
			}
			out = append(out, p)
		}
		if len(bs)+len(hs) == 0 {
			out = append(out, pairs[i])
			i++
		}
	}
	return out
}

// htmlChange is b's difference from a in format, with its percentage of
// a, or "=" when they are equal.
func htmlChange(a, b float64, format string) string {
	if a == b {
		return "="
	}
	s := fmt.Sprintf(withSign(format), b-a)
	if a != 0 {
		s += fmt.Sprintf(" (%+.1f%%)", (b-a)/a*100)
	}
	return s
}

// steps lists a run's model calls, tool calls and failed exchanges in
// the order they ended; in a stale run, a failed exchange is the cassette
// miss. A model call that failed is shown on one step with the exchange
// that carried it, which ended first.
func steps(sc Scenario) []step {
	var out []step
	stale := sc.Verdict == VerdictStale
	for _, e := range sc.Events {
		switch {
		case e.LLM != nil:
			c := e.LLM
			st := step{key: "model " + c.Role, Label: fmt.Sprintf("model call %s (%s) · %d in / %d out", orNone(c.Role), c.Model, c.Input.Total(), c.Output),
				Detail: clip(answerOf(c), 600)}
			if n := len(out); n > 0 && c.Error != "" && out[n-1].exchange && out[n-1].at == e.At {
				st.Label += " — " + out[n-1].Label
				st.Detail, st.Miss = out[n-1].Detail, out[n-1].Miss
				out = out[:n-1]
			}
			out = append(out, st)
		case e.Tool != nil:
			t := e.Tool
			out = append(out, step{key: "tool " + t.Name, Label: "tool " + t.Name, Detail: clip(firstOf(t.Error, string(t.Args)), 600), args: t.Args})
		case e.HTTP != nil && e.HTTP.Error != "":
			x := e.HTTP
			what := "failed exchange "
			if stale {
				what = "cassette miss: "
			}
			out = append(out, step{key: "miss " + x.Method + " " + x.URL, Label: what + x.Method + " " + clip(x.URL, 120),
				Detail: clip(x.Error, 600), Miss: stale, at: e.At, exchange: true})
		}
	}
	if len(out) == 0 && stale && sc.Error != "" {
		out = append(out, step{key: "miss", Label: "cassette miss before the first step", Detail: clip(sc.Error, 600), Miss: true})
	}
	return out
}

// argsDiff lists how head's tool arguments differ from base's: a row per
// JSON path with both values, "(absent)" for a value one side lacks.
func argsDiff(base, head json.RawMessage) [][3]string {
	if len(base) == 0 && len(head) == 0 || string(base) == string(head) {
		return nil
	}
	patch, err := jsondiff.CompareJSON(orNull(base), orNull(head))
	if err != nil {
		return [][3]string{{"/", string(base), string(head)}}
	}
	var out [][3]string
	for _, op := range patch {
		path := cmpOr(op.Path, "/")
		switch op.Type {
		case jsondiff.OperationAdd:
			out = append(out, [3]string{path, "(absent)", compactJSON(op.Value)})
		case jsondiff.OperationRemove:
			out = append(out, [3]string{path, compactJSON(op.OldValue), "(absent)"})
		default:
			out = append(out, [3]string{path, compactJSON(op.OldValue), compactJSON(op.Value)})
		}
	}
	return out
}

func orNull(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	return raw
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 200)
}

// align pairs the elements of a and b along a longest common subsequence
// of equal ones: each pair holds an index into a and one into b, or -1
// where only the other side has the element; of two such runs at one
// place, a's comes first.
func align[T any](a, b []T, eq func(T, T) bool) [][2]int {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if eq(a[i], b[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out [][2]int
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && eq(a[i], b[j]):
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] > lcs[i+1][j]):
			out = append(out, [2]int{-1, j})
			j++
		default:
			out = append(out, [2]int{i, -1})
			i++
		}
	}
	return slices.Clip(out)
}
