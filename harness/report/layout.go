package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// This file lays a Report out as headings, tables and notes, once, so that
// WriteText and WriteMarkdown show the same content and differ only in how
// they draw it.

// document is a Report laid out for reading.
type document struct {
	suites []suiteBlock
	result string // the closing PASS/FAIL line
}

// suiteBlock is one suite: a heading, a line about it, and its sections.
type suiteBlock struct {
	title    string
	about    string
	prose    string // what the suite's figures measure (its about:), or ""
	sections []section
}

// section is a titled table with notes below it. A section without a
// table header has notes only.
type section struct {
	title string
	table table
	notes []note
}

// note is a line below a table. Text may span several lines (a stale
// cassette's diff, for instance).
type note struct {
	mark string // "✗", "⚠" or ""
	text string
}

// table is a grid of cells. right marks the columns that hold numbers, wrap
// the column of free text that WriteText wraps to keep the table narrow. A
// number may end in a space where others in its column end in a mark
// ("1 " beside "2✓"), so that the digits line up.
type table struct {
	header []string
	right  []bool
	wrap   []bool
	rows   [][]string
}

// verdictStyle turns a Verdict into the cell shown for it.
type verdictStyle func(verdict string) string

// Verdict is the report's closing line: PASS when every scenario and
// threshold of the gating suites passed, no cassette went unused and none
// was stale, naming the suites, variants, runs and model calls it judged;
// else FAIL with the counts, and FAIL when nothing was judged.
func (r *Report) Verdict() string {
	return layout(r, func(v string) string { return v }).result
}

// layout builds the document for r.
func layout(r *Report, verdict verdictStyle) document {
	var d document
	var checks, judged int
	var gating, apart tally // apart: suites with gating: false, counted apart
	for i := range r.Suites {
		s := &r.Suites[i]
		d.suites = append(d.suites, layoutSuite(s, r.Mode, verdict))
		for _, v := range s.Variants {
			if strings.Contains(v.Provenance, "stand-in") {
				checks, judged = checks+v.Summary.Checks, judged+v.Summary.Judged
			}
			if s.NotGating {
				apart.add(s.Name, v)
			} else {
				gating.add(s.Name, v)
			}
		}
	}
	if sec, ok := faultsByAgent(r); ok {
		d.suites = append(d.suites, suiteBlock{title: "faults", about: "per agent, over every suite and variant", sections: []section{sec}})
	}
	unused := 0
	if rp := r.Replay; rp != nil {
		unused = len(rp.UnusedCassettes)
		sec := section{title: "replay", notes: []note{{text: fmt.Sprintf("%s live calls; %s of %s recorded interactions replayed; %s%s",
			Grouped(int64(rp.LiveCalls)), Grouped(int64(rp.Replayed)), Grouped(int64(rp.Recorded)), Count(unused, "unused cassette"), rp.isolation())}}}
		for _, c := range rp.UnusedCassettes {
			sec.notes = append(sec.notes, note{mark: "✗", text: c + " belongs to no scenario of its suite: delete it or add the scenario back"})
		}
		d.suites = append(d.suites, suiteBlock{title: "replay", about: "hermeticity", sections: []section{sec}})
	}
	d.result = result(r, gating, apart, unused)
	if judged > 0 {
		d.result += fmt.Sprintf(" (%s of %s checks judged model behaviour against a stand-in)", Grouped(int64(judged)), Grouped(int64(checks)))
	}
	if g := r.Gate; g != nil {
		d.suites = append(d.suites, suiteBlock{title: "regression gate", about: "against " + g.Baseline, sections: []section{gateSection(g)}})
	}
	d.result = withGate(d.result, r.Gate)
	return d
}

// result is the verdict line: PASS when the gating suites' scenarios and
// thresholds passed, no cassette went unused and none was stale or missing
// (gating or not: a cassette's fault is never a finding kept on purpose),
// naming what each part judged; FAIL with the counts otherwise, and when
// nothing at all was judged.
func result(r *Report, gating, apart tally, unused int) string {
	if gating.scenarios+apart.scenarios == 0 {
		return "FAIL: nothing was judged: no scenario ran"
	}
	var line string
	pass := gating.scenariosFailed == 0 && gating.thresholdsFailed == 0 && unused == 0 && apart.stale == 0
	switch {
	case pass && gating.scenarios == 0:
		line = "PASS: no gating suite ran"
	case pass && len(r.KnownFailures) > 0:
		line = fmt.Sprintf("PASS: %d of %s and %d of %s passed", gating.scenarios-countKnown(r, true), Count(gating.scenarios, "scenario"),
			gating.thresholds-countKnown(r, false), Count(gating.thresholds, "threshold"))
	case pass:
		line = fmt.Sprintf("PASS: all %s and %s passed", Count(gating.scenarios, "scenario"), Count(gating.thresholds, "threshold"))
	case gating.scenarios == 0:
		line = "FAIL: no gating suite ran"
	default:
		line = fmt.Sprintf("FAIL: %d of %s, %d of %s failed", gating.scenariosFailed, Count(gating.scenarios, "scenario"), gating.thresholdsFailed, Count(gating.thresholds, "threshold"))
	}
	line += gating.judged()
	if unused > 0 {
		line += "; " + Count(unused, "unused cassette")
	}
	if apart.scenarios+apart.thresholds > 0 {
		parts := []string{fmt.Sprintf("%d of %s", apart.scenariosFailed, Count(apart.scenarios, "scenario"))}
		if apart.thresholds > 0 {
			parts = append(parts, fmt.Sprintf("%d of %s", apart.thresholdsFailed, Count(apart.thresholds, "threshold")))
		}
		line += "; not gating: " + strings.Join(parts, ", ") + " failed"
		if apart.stale > 0 {
			line += fmt.Sprintf(" (%s, which fail the run)", Count(apart.stale, "stale or missing cassette"))
		}
		line += apart.judged()
	}
	if k := knownNote(r); k != "" {
		line += " (" + k + ")"
	}
	return line
}

// tally counts the suites, variants, scenario runs (samples included) and
// model calls of variants, their scenarios and thresholds, and their
// failures; stale counts the scenarios whose cassettes were stale, missing
// or unreadable.
type tally struct {
	scenarios, scenariosFailed, thresholds, thresholdsFailed, stale int
	suites                                                          map[string]bool
	variants, runs, calls                                           int
}

// judged names what the tally judged, as ", judging 1 suite, 2 variants,
// 4 runs and 9 model calls", or "" when it judged no scenario.
func (t *tally) judged() string {
	if t.scenarios == 0 {
		return ""
	}
	return fmt.Sprintf(", judging %s, %s, %s and %s", Count(len(t.suites), "suite"), Count(t.variants, "variant"),
		countGrouped(t.runs, "run"), countGrouped(t.calls, "model call"))
}

// countGrouped is Count with the number's thousands grouped.
func countGrouped(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Grouped(int64(n)) + " " + noun + "s"
}

// add counts the scenarios and thresholds of v, a variant of suite.
func (t *tally) add(suite string, v Variant) {
	if t.suites == nil {
		t.suites = map[string]bool{}
	}
	if len(v.Scenarios) > 0 {
		t.suites[suite] = true
		t.variants++
	}
	for _, sc := range v.Scenarios {
		t.scenarios++
		if sc.Verdict != VerdictPass && !sc.Known {
			t.scenariosFailed++
		}
		if sc.Verdict == VerdictStale || sc.Unreadable {
			t.stale++
		}
		for _, r := range sc.Runs() {
			t.runs++
			t.calls += r.Metrics.LLMCalls
		}
	}
	for _, th := range v.Thresholds {
		t.thresholds++
		if !th.Pass && !th.Known {
			t.thresholdsFailed++
		}
	}
}

func layoutSuite(s *Suite, mode string, verdict verdictStyle) suiteBlock {
	b := suiteBlock{title: "suite " + s.Name}
	about := []string{"agent " + s.Agent, "tokenizer " + s.Tokenizer}
	if s.NotGating {
		b.title += " (not gating)"
		about = append(about, "not gating: its failures and thresholds never fail the run")
	}
	if s.Baseline != "" {
		about = append(about, "baseline "+s.Baseline)
	}
	if mode != "" {
		about = append(about, "mode "+mode)
	}
	b.about = strings.Join(about, " · ")
	b.prose = s.About

	order, base := variantOrder(s)
	for _, v := range order {
		b.sections = append(b.sections, variantSection(v, verdict))
	}
	b.sections = append(b.sections, outcomeSection(order), costSection(order, base), spendSection(order, base, s.Prices))
	if t, ok := samplingSection(order); ok {
		b.sections = append(b.sections, t)
	}
	if t, ok := faultSection(order); ok {
		b.sections = append(b.sections, t)
	}
	if t, ok := thresholdSection(order); ok {
		b.sections = append(b.sections, t)
	}
	if t, ok := gradingSection(order); ok {
		b.sections = append(b.sections, t)
	}
	b.sections = append(b.sections, tokenSection(order, s.Tokenizer))
	if t, ok := roleSection(order); ok {
		b.sections = append(b.sections, t)
	}
	if t, ok := streamingSection(order); ok {
		b.sections = append(b.sections, t)
	}
	for _, v := range order {
		if len(v.Confusion) > 0 {
			b.sections = append(b.sections, confusionSection(v))
		}
	}
	if t, ok := trimmingSection(order, base, s.ReductionWithout); ok {
		b.sections = append(b.sections, t)
	}
	return b
}

// variantOrder returns the suite's variants with the baseline first and the
// others in file order, and the baseline (nil when the suite names none that
// it ran).
func variantOrder(s *Suite) (order []*Variant, base *Variant) {
	for i := range s.Variants {
		if s.Variants[i].Name == s.Baseline && base == nil {
			base = &s.Variants[i]
		}
	}
	if base != nil {
		order = append(order, base)
	}
	for i := range s.Variants {
		if v := &s.Variants[i]; v != base {
			order = append(order, v)
		}
	}
	return order, base
}

func variantSection(v *Variant, verdict verdictStyle) section {
	title := "variant " + v.Name
	if v.Description != "" {
		title += " — " + v.Description
	}
	if v.Provenance != "" {
		title += " (" + v.Provenance + ")"
	}
	sec := section{title: title, table: table{
		header: []string{"scenario", "criterion", "verdict", "route", "LLM", "in tok", "out tok", "latency", "cost"},
		right:  []bool{false, false, false, false, true, true, true, true, true},
		wrap:   []bool{false, false, false, true, false, false, false, false, false},
	}}
	unmeasured := 0
	for _, sc := range v.Scenarios {
		m := sc.Metrics
		figures := []string{strconv.Itoa(m.LLMCalls), strconv.Itoa(m.InputTokens), strconv.Itoa(m.OutputTokens), ms(m.Latency)}
		if !sc.Measured() {
			unmeasured++
			figures = []string{"—", "—", "—", "—"}
		}
		sec.table.rows = append(sec.table.rows, append(append([]string{sc.ID, sc.Criterion, verdictCell(sc, verdict), route(sc)},
			figures...), scenarioCost(sc)))
	}
	for _, sc := range v.Scenarios {
		if sc.Verdict != VerdictPass {
			for _, c := range sc.Checks {
				if c.Pass {
					continue
				}
				text := sc.ID + " " + c.Label()
				if c.Detail != "" {
					text += ": " + c.Detail
				}
				sec.notes = append(sec.notes, note{mark: "✗", text: text})
			}
			if sc.Error != "" {
				sec.notes = append(sec.notes, note{mark: "✗", text: sc.ID + " " + sc.Verdict + ": " + sc.Error})
			}
		}
		if sc.Unplayed > 0 {
			sec.notes = append(sec.notes, note{mark: "⚠", text: fmt.Sprintf("%s: %s not replayed",
				sc.ID, Count(sc.Unplayed, "recorded interaction"))})
		}
	}
	if unmeasured > 0 {
		sec.notes = append(sec.notes, note{mark: "⚠", text: fmt.Sprintf("—: not measured; %d of %s stale or errored, stopped before their calls, tokens, latency and cost were whole",
			unmeasured, Count(len(v.Scenarios), "run"))})
	}
	if n := v.Summary.Judged; n > 0 && strings.Contains(v.Provenance, "stand-in") {
		sec.notes = append(sec.notes, note{text: fmt.Sprintf("%s of %s checks are about model behaviour and were judged against the stand-in: they show what its documented rules do with these prompts, not what a model would",
			Grouped(int64(n)), Grouped(int64(v.Summary.Checks)))})
	}
	return sec
}

// scenarioCost is the cost cell: the run's, or over samples their mean
// and p95.
func scenarioCost(sc Scenario) string {
	c := sc.Cost()
	if sc.Sampling != nil && c.Evaluated() {
		return c.Short() + " (p95 " + USD(c.P95) + ")"
	}
	return c.Short()
}

// route is the route cell: the observed route, checked against the
// expected one (as RouteCorrect does) when the scenario has one.
func route(sc Scenario) string {
	observed := sc.Route
	if observed == "" && sc.ExpectedRoute != "" {
		observed = "—"
	}
	switch {
	case sc.ExpectedRoute == "":
		return observed
	case sc.RouteCorrect():
		return observed + " ✓"
	default:
		return observed + " ✗ (want " + sc.ExpectedRoute + ")"
	}
}

// ms formats a duration in whole milliseconds, rounded.
func ms(d time.Duration) string {
	return strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10) + " ms"
}

// percent formats a fraction as a percentage with one decimal.
func percent(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// signed formats a change with an explicit sign: "+0.10", "−0.62", "±0.00".
func signed(f float64, decimals int, unit string) string {
	s := strconv.FormatFloat(math.Abs(f), 'f', decimals, 64)
	switch {
	case strings.Trim(s, "0.") == "":
		return "±" + s + unit
	case f < 0:
		return "−" + s + unit
	default:
		return "+" + s + unit
	}
}

// Count is n followed by noun, in the plural (an s added) unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// verdictCell is a scenario's verdict, marked when it is a known failure.
func verdictCell(sc Scenario, verdict verdictStyle) string {
	if sc.Known {
		return verdict(sc.Verdict) + " (known)"
	}
	return verdict(sc.Verdict)
}
