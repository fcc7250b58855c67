package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/trace"
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

// layout builds the document for r.
// Verdict is the report's closing line: PASS when every scenario and
// threshold passed and no cassette went unused, else FAIL with the counts.
func (r *Report) Verdict() string {
	return layout(r, func(v string) string { return v }).result
}

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
				apart.add(v)
			} else {
				gating.add(v)
			}
		}
	}
	scenarios, scenariosFailed, thresholds, thresholdsFailed := gating.scenarios, gating.scenariosFailed, gating.thresholds, gating.thresholdsFailed
	if sec, ok := faultsByAgent(r); ok {
		d.suites = append(d.suites, suiteBlock{title: "faults", about: "per agent, over every suite and variant", sections: []section{sec}})
	}
	unused := 0
	if rp := r.Replay; rp != nil {
		unused = len(rp.UnusedCassettes)
		sec := section{title: "replay", notes: []note{{text: fmt.Sprintf("%s live calls; %s of %s recorded interactions replayed; %s",
			Grouped(int64(rp.LiveCalls)), Grouped(int64(rp.Replayed)), Grouped(int64(rp.Recorded)), count(unused, "unused cassette"))}}}
		for _, c := range rp.UnusedCassettes {
			sec.notes = append(sec.notes, note{mark: "✗", text: c + " belongs to no scenario of its suite: delete it or add the scenario back"})
		}
		d.suites = append(d.suites, suiteBlock{title: "replay", about: "hermeticity", sections: []section{sec}})
	}
	switch {
	case scenariosFailed == 0 && thresholdsFailed == 0 && unused == 0:
		d.result = fmt.Sprintf("PASS: all %s and %s passed",
			count(scenarios, "scenario"), count(thresholds, "threshold"))
	case unused > 0:
		d.result = fmt.Sprintf("FAIL: %d of %s, %d of %s failed; %s",
			scenariosFailed, count(scenarios, "scenario"), thresholdsFailed, count(thresholds, "threshold"), count(unused, "unused cassette"))
	default:
		d.result = fmt.Sprintf("FAIL: %d of %s, %d of %s failed",
			scenariosFailed, count(scenarios, "scenario"), thresholdsFailed, count(thresholds, "threshold"))
	}
	if apart.scenarios+apart.thresholds > 0 {
		d.result += fmt.Sprintf("; not gating: %d of %s, %d of %s failed", apart.scenariosFailed, count(apart.scenarios, "scenario"),
			apart.thresholdsFailed, count(apart.thresholds, "threshold"))
	}
	if judged > 0 {
		d.result += fmt.Sprintf(" (%s of %s checks judged model behaviour against a stand-in)", Grouped(int64(judged)), Grouped(int64(checks)))
	}
	return d
}

// tally counts the scenarios and thresholds of variants, and their failures.
type tally struct {
	scenarios, scenariosFailed, thresholds, thresholdsFailed int
}

// add counts the scenarios and thresholds of v.
func (t *tally) add(v Variant) {
	for _, sc := range v.Scenarios {
		t.scenarios++
		if sc.Verdict != VerdictPass {
			t.scenariosFailed++
		}
	}
	for _, th := range v.Thresholds {
		t.thresholds++
		if !th.Pass {
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
	b.sections = append(b.sections, outcomeSection(order), costSection(order, base))
	if t, ok := samplingSection(order); ok {
		b.sections = append(b.sections, t)
	}
	if t, ok := faultSection(order); ok {
		b.sections = append(b.sections, t)
	}
	if t, ok := thresholdSection(order); ok {
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
	if t, ok := trimmingSection(order, s.ReductionWithout); ok {
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
		header: []string{"scenario", "criterion", "verdict", "route", "LLM", "in tok", "out tok", "latency"},
		right:  []bool{false, false, false, false, true, true, true, true},
		wrap:   []bool{false, false, false, true, false, false, false, false},
	}}
	for _, sc := range v.Scenarios {
		m := sc.Metrics
		sec.table.rows = append(sec.table.rows, []string{
			sc.ID, sc.Criterion, verdict(sc.Verdict), route(sc),
			strconv.Itoa(m.LLMCalls), strconv.Itoa(m.InputTokens), strconv.Itoa(m.OutputTokens),
			ms(m.Latency),
		})
	}
	for _, sc := range v.Scenarios {
		if sc.Verdict != VerdictPass {
			for _, c := range sc.Checks {
				if c.Pass {
					continue
				}
				text := fmt.Sprintf("%s turn %d %s", sc.ID, c.Turn, c.Name)
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
				sc.ID, count(sc.Unplayed, "recorded interaction"))})
		}
	}
	if n := v.Summary.Judged; n > 0 && strings.Contains(v.Provenance, "stand-in") {
		sec.notes = append(sec.notes, note{text: fmt.Sprintf("%s of %s checks are about model behaviour and were judged against the stand-in: they show what its documented rules do with these prompts, not what a model would",
			Grouped(int64(n)), Grouped(int64(v.Summary.Checks)))})
	}
	return sec
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

// outcomeSection compares what the variants got right.
func outcomeSection(order []*Variant) section {
	sec := section{title: "summary", table: table{
		header: []string{"variant", "scenarios", "pass rate", "routing acc.", "token reduction"},
		right:  []bool{false, true, true, true, true},
	}}
	for _, v := range order {
		s := v.Summary
		routing := "—"
		if s.Routed > 0 {
			right := int(math.Round(s.RoutingAccuracy * float64(s.Routed)))
			routing = fmt.Sprintf("%s (%d/%d)", percent(s.RoutingAccuracy), right, s.Routed)
		}
		reduction := "—"
		if s.TokenReduction != 0 {
			reduction = percent(s.TokenReduction)
		}
		sec.table.rows = append(sec.table.rows, []string{
			v.Name, strconv.Itoa(s.Scenarios),
			fmt.Sprintf("%d/%d %s", s.Passed, s.Scenarios, percent(s.PassRate)),
			routing, reduction, strconv.Itoa(s.Artifacts),
		})
	}
	// The artifacts column only for suites whose agents produce any.
	if !slices.ContainsFunc(order, func(v *Variant) bool { return v.Summary.Artifacts > 0 }) {
		for i := range sec.table.rows {
			sec.table.rows[i] = sec.table.rows[i][:5]
		}
	} else {
		sec.table.header = append(sec.table.header, "artifacts")
		sec.table.right = append(sec.table.right, true)
	}
	return sec
}

// costSection compares what the variants spent, per scenario on average,
// with the change against the baseline.
func costSection(order []*Variant, base *Variant) section {
	sec := section{title: "cost per scenario (mean)", table: table{
		header: []string{"variant", "LLM calls", "in tok", "out tok", "latency mean", "p95"},
		right:  []bool{false, true, true, true, true, true},
	}}
	for _, v := range order {
		s := v.Summary
		calls := strconv.FormatFloat(s.LLMCallsMean, 'f', 2, 64)
		in := strconv.FormatFloat(s.InputTokensMean, 'f', 0, 64)
		latency := strconv.FormatFloat(s.LatencyMean, 'f', 0, 64) + " ms"
		if base != nil && v != base {
			b := base.Summary
			calls += " (" + signed(s.LLMCallsMean-b.LLMCallsMean, 2, "") + ")"
			if b.InputTokensMean != 0 {
				in += " (" + signed((s.InputTokensMean/b.InputTokensMean-1)*100, 1, "%") + ")"
			}
			if b.LatencyMean != 0 {
				latency += " (" + signed((s.LatencyMean/b.LatencyMean-1)*100, 1, "%") + ")"
			}
		}
		sec.table.rows = append(sec.table.rows, []string{
			v.Name, calls, in, strconv.FormatFloat(s.OutputTokensMean, 'f', 0, 64),
			latency, strconv.FormatFloat(s.LatencyP95, 'f', 0, 64) + " ms",
		})
	}
	return sec
}

func thresholdSection(order []*Variant) (section, bool) {
	sec := section{title: "thresholds", table: table{
		header: []string{"variant", "threshold", "observed", "target", "result"},
		right:  []bool{false, false, true, true, false},
	}}
	detail := false
	for _, v := range order {
		for _, t := range v.Thresholds {
			detail = detail || t.Detail != ""
		}
	}
	if detail {
		sec.table.header = append(sec.table.header, "detail")
		sec.table.right = append(sec.table.right, false)
		sec.table.wrap = []bool{false, false, false, false, false, true}
	}
	for _, v := range order {
		for _, t := range v.Thresholds {
			metric := metricName(t.Source)
			result := "✓"
			if !t.Pass {
				result = "✗"
			}
			row := []string{v.Name, t.Source, metricValue(metric, t.Observed), metricValue(metric, t.Target), result}
			if t.NotEvaluated {
				row[2], row[3] = "—", "—"
			}
			if detail {
				row = append(row, t.Detail)
			}
			sec.table.rows = append(sec.table.rows, row)
		}
	}
	return sec, len(sec.table.rows) > 0
}

// faultSection lays out, per variant, the faults the stand-ins injected,
// how many were handled (in runs that passed) and the crashes, with the
// kinds seen.
func faultSection(order []*Variant) (section, bool) {
	sec := section{title: "injected faults", table: table{
		header: []string{"variant", "injected", "handled", "crashes", "kinds"},
		right:  []bool{false, true, true, true, false},
		wrap:   []bool{false, false, false, false, true},
	}}
	for _, v := range order {
		s := v.Summary
		if s.Faults == 0 && s.Crashes == 0 {
			continue
		}
		kinds := map[string]int{}
		for _, sc := range v.Scenarios {
			for _, e := range sc.Events {
				if e.Kind == trace.KindHTTP && e.HTTP.Fault != "" {
					kinds[e.HTTP.Fault]++
				}
			}
		}
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		for i, k := range names {
			names[i] = fmt.Sprintf("%s×%d", k, kinds[k])
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name, strconv.Itoa(s.Faults), strconv.Itoa(s.FaultsHandled),
			strconv.Itoa(s.Crashes), strings.Join(names, ", ")})
	}
	return sec, len(sec.table.rows) > 0
}

// faultsByAgent totals the injected faults, those handled and the crashes
// per agent over the whole report.
func faultsByAgent(r *Report) (section, bool) {
	sec := section{title: "faults by agent", table: table{
		header: []string{"agent", "injected", "handled", "crashes"},
		right:  []bool{false, true, true, true},
	}}
	var agents []string
	totals := map[string][3]int{}
	for _, s := range r.Suites {
		for _, v := range s.Variants {
			t, seen := totals[s.Agent]
			if !seen {
				agents = append(agents, s.Agent)
			}
			t[0] += v.Summary.Faults
			t[1] += v.Summary.FaultsHandled
			t[2] += v.Summary.Crashes
			totals[s.Agent] = t
		}
	}
	any := false
	for _, a := range agents {
		t := totals[a]
		any = any || t != [3]int{}
		sec.table.rows = append(sec.table.rows, []string{a, strconv.Itoa(t[0]), strconv.Itoa(t[1]), strconv.Itoa(t[2])})
	}
	return sec, any
}

// samplingSection lays out the scenarios recorded with several samples:
// per scenario, how many samples passed, the pass rate's interval, pass^n,
// and the sampled metrics' means with their 95% intervals; per variant, the
// same over all runs with pass^k at the fewest samples any scenario has.
func samplingSection(order []*Variant) (section, bool) {
	sec := section{title: "samples (mean ± 95% interval)", table: table{
		header: []string{"variant", "scenario", "passed", "pass rate [95%]", "pass^k", "in tok", "out tok", "LLM", "latency"},
		right:  []bool{false, false, true, true, true, true, true, true, true},
	}}
	pm := func(iv Interval, decimals int, unit string) string {
		s := strconv.FormatFloat(iv.Mean, 'f', decimals, 64)
		if iv.HalfWidth() > 0 {
			s += " ±" + strconv.FormatFloat(iv.HalfWidth(), 'f', decimals, 64)
		}
		return s + unit
	}
	for _, v := range order {
		s := v.Summary
		if s.Runs == 0 {
			continue
		}
		for _, sc := range v.Scenarios {
			sp := sc.Sampling
			if sp == nil {
				continue
			}
			m := sp.Metrics
			sec.table.rows = append(sec.table.rows, []string{v.Name, sc.ID,
				fmt.Sprintf("%d/%d", sp.Passed, sp.N),
				fmt.Sprintf("%s [%s, %s]", percent(sp.PassRate.Mean), percent(sp.PassRate.Lo), percent(sp.PassRate.Hi)),
				fmt.Sprintf("%s (k=%d)", percent(sp.PassHatK(sp.N)), sp.N),
				pm(m[MetricInputTokens], 0, ""), pm(m[MetricOutputTokens], 0, ""), pm(m[MetricLLMCalls], 2, ""), pm(m[MetricLatencyMS], 0, " ms")})
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name, "all runs",
			fmt.Sprintf("%d/%d", int(math.Round(s.RunPassRate*float64(s.Runs))), s.Runs), percent(s.RunPassRate),
			fmt.Sprintf("%s (k=%d)", percent(s.PassHatK), s.K),
			pm(s.CI[MetricInputTokens], 0, ""), pm(s.CI[MetricOutputTokens], 0, ""), pm(s.CI[MetricLLMCalls], 2, ""), pm(s.CI[MetricLatencyMS], 0, " ms")})
	}
	if len(sec.table.rows) == 0 {
		return sec, false
	}
	sec.notes = []note{{text: "pass^k: the chance that k fresh runs all pass, C(passed,k)/C(n,k); a scenario passes when at least its suite's min_sample_pass_rate of its samples pass; the variant tables show sample 1"}}
	return sec, true
}

// metricName is the metric a threshold source starts with, as in
// "routing_accuracy >= 0.95".
func metricName(source string) string {
	source = strings.TrimSpace(source)
	end := strings.IndexFunc(source, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if end < 0 {
		return source
	}
	return source[:end]
}

// metricValue formats a threshold's value by what its metric measures:
// fractions as percentages, latencies (stored in milliseconds) as ms, and
// anything else as a number with at most two decimals.
func metricValue(metric string, v float64) string {
	switch m := strings.ToLower(metric); {
	case strings.Contains(m, "accuracy"), strings.Contains(m, "rate"), strings.Contains(m, "reduction"):
		return percent(v)
	case strings.Contains(m, "latency"):
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	default:
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
}

// tokenSection lays out the input tokens by part, counted with the suite's
// encoding, beside the provider's own count; for a provider other than
// OpenAI a note says the counts are estimates, and the provider's cache
// reads and writes are shown when it reported any. When a provider
// reported thinking tokens, a note gives them as their own part of its
// reported output.
func tokenSection(order []*Variant, tokenizer string) section {
	sec := section{title: "input tokens by part (mean per scenario)", table: table{
		header: []string{"variant", "system", "tools", "history", "tool_results", "user", "overhead", "total", "provider-reported"},
		right:  []bool{false, true, true, true, true, true, true, true, true},
	}}
	var estimated, thinking []string
	for _, v := range order {
		if v.Provider != "" && v.Provider != "openai" {
			estimated = append(estimated, v.Name+" ("+v.Provider+")")
		}
		var sum trace.Parts
		reported, read, write, output, reasoning := 0, 0, 0, 0, 0
		for _, sc := range v.Scenarios {
			sum = sum.Add(sc.Metrics.Input)
			reported += sc.Metrics.ReportedInput
			read += sc.Metrics.ReportedCacheRead
			write += sc.Metrics.ReportedCacheWrite
			output += sc.Metrics.ReportedOutput
			reasoning += sc.Metrics.ReportedReasoning
		}
		mean := func(n int) string {
			if len(v.Scenarios) == 0 {
				return "0"
			}
			return strconv.FormatFloat(float64(n)/float64(len(v.Scenarios)), 'f', 0, 64)
		}
		rep := "—"
		if reported > 0 {
			rep = mean(reported)
		}
		if read+write > 0 {
			rep += " (cache: " + mean(read) + " read, " + mean(write) + " written)"
		}
		if reasoning > 0 {
			thinking = append(thinking, v.Name+" "+mean(output)+" = "+mean(output-reasoning)+" answer + "+mean(reasoning)+" thinking")
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name,
			mean(sum.System), mean(sum.Tools), mean(sum.History), mean(sum.ToolResults),
			mean(sum.User), mean(sum.Overhead), mean(sum.Total()), rep})
	}
	if len(estimated) > 0 {
		sec.notes = append(sec.notes, note{text: fmt.Sprintf(
			"%s: the parts and total are estimates with %s, not the model's own tokenizer; provider-reported is the count the endpoint returned, prompt-cache reads and writes included (a stand-in counts with o200k_base)",
			strings.Join(estimated, ", "), tokenizer)})
	}
	if len(thinking) > 0 {
		sec.notes = append(sec.notes, note{text: "provider-reported output tokens (mean per scenario), thinking as its own part: " + strings.Join(thinking, "; ")})
	}
	return sec
}

func roleSection(order []*Variant) (section, bool) {
	sec := section{title: "LLM calls by role (total)", table: table{
		header: []string{"variant", "role", "calls", "in tok", "out tok", "latency"},
		right:  []bool{false, false, true, true, true, true},
	}}
	for _, v := range order {
		roles := map[string]trace.Role{}
		for _, sc := range v.Scenarios {
			for name, r := range sc.Metrics.Roles {
				sum := roles[name]
				sum.Calls += r.Calls
				sum.InputTokens += r.InputTokens
				sum.OutputTokens += r.OutputTokens
				sum.Latency += r.Latency
				roles[name] = sum
			}
		}
		names := make([]string, 0, len(roles))
		for name := range roles {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			r := roles[name]
			sec.table.rows = append(sec.table.rows, []string{v.Name, name,
				strconv.Itoa(r.Calls), strconv.Itoa(r.InputTokens), strconv.Itoa(r.OutputTokens), ms(r.Latency)})
		}
	}
	return sec, len(sec.table.rows) > 0
}

// confusionSection lays out v's routing confusion matrix: a row per
// expected route, a column per observed route (both sorted; no route as
// "—"), the count in each cell, ✓ on the cells that RouteCorrect counts as
// right, · for none, and each row's accuracy. Columns are headed by the full
// route unless that makes the table wider than textWidth; then tool routes
// are headed by the tool's name, and if even that does not fit, the section
// lists the misrouted cells instead of the matrix.
func confusionSection(v *Variant) section {
	sec := section{title: "routing confusion (expected → observed) — " + v.Name}
	counts := map[[2]string]int{}
	var expected, observed []string
	right, total := 0, 0
	for _, c := range v.Confusion {
		counts[[2]string{c.Expected, c.Observed}] += c.Count
		expected = append(expected, c.Expected)
		observed = append(observed, c.Observed)
		total += c.Count
		if correctRoute(c.Expected, c.Observed) {
			right += c.Count
		}
	}
	slices.Sort(expected)
	slices.Sort(observed)
	expected, observed = slices.Compact(expected), slices.Compact(observed)

	t := table{
		header: []string{"expected"},
		right:  []bool{false},
	}
	for _, o := range observed {
		t.header = append(t.header, routeOrNone(o))
		t.right = append(t.right, true)
	}
	t.header = append(t.header, "accuracy")
	t.right = append(t.right, true)
	for _, e := range expected {
		row := []string{e}
		n, ok := 0, 0
		for _, o := range observed {
			c := counts[[2]string{e, o}]
			n += c
			// A space where others have ✓ keeps the digits aligned.
			cell := "· "
			if c != 0 {
				cell = strconv.Itoa(c) + " "
			}
			if correctRoute(e, o) {
				ok += c
				if c != 0 {
					cell = strconv.Itoa(c) + "✓"
				}
			}
			row = append(row, cell)
		}
		acc := "—"
		if n > 0 {
			acc = percent(float64(ok) / float64(n))
		}
		t.rows = append(t.rows, append(row, acc))
	}
	if tableWidth(t) <= textWidth {
		sec.table = t
		return sec
	}
	if short, ok := toolNames(observed); ok {
		copy(t.header[1:], short)
		if tableWidth(t) <= textWidth {
			sec.table = t
			return sec
		}
	}

	sec.notes = append(sec.notes, note{text: fmt.Sprintf(
		"%d expected and %d observed routes are too many for a table; %d of %d routed as expected, the others:",
		len(expected), len(observed), right, total)})
	for _, e := range expected {
		for _, o := range observed {
			if c := counts[[2]string{e, o}]; c != 0 && !correctRoute(e, o) {
				sec.notes = append(sec.notes, note{text: fmt.Sprintf("%s → %s: %d", e, routeOrNone(o), c)})
			}
		}
	}
	return sec
}

// correctRoute reports whether observed is right for expected, as
// Scenario.RouteCorrect does.
func correctRoute(expected, observed string) bool {
	return Scenario{ExpectedRoute: expected, Route: observed}.RouteCorrect()
}

// routeOrNone is route, or "—" for no route.
func routeOrNone(route string) string {
	if route == "" {
		return "—"
	}
	return route
}

// toolNames returns routes with "tool:" cut off the tool routes and "—"
// for no route, or false when that would make two of them the same.
func toolNames(routes []string) ([]string, bool) {
	names := make([]string, len(routes))
	seen := map[string]bool{}
	for i, r := range routes {
		name, _ := strings.CutPrefix(r, "tool:")
		name = routeOrNone(name)
		if seen[name] {
			return nil, false
		}
		seen[name] = true
		names[i] = name
	}
	return names, true
}

// trimmingSection compares the variants' payload trimming per tool, with a
// total per variant.
func trimmingSection(order []*Variant, without []string) (section, bool) {
	sec := section{title: "payload trimming by tool", table: table{
		header: []string{"variant", "tool", "calls", "raw tok", "context tok", "reduction"},
		right:  []bool{false, false, true, true, true, true},
		wrap:   []bool{false, true, false, false, false, false},
	}}
	row := func(variant, tool string, calls, raw, context int, red float64) []string {
		cell := "—"
		if raw != 0 {
			cell = percent(red)
		}
		return []string{variant, tool, strconv.Itoa(calls), strconv.Itoa(raw), strconv.Itoa(context), cell}
	}
	for _, v := range order {
		if len(v.Trimming) == 0 {
			continue
		}
		var calls, raw, context int
		for _, t := range v.Trimming {
			sec.table.rows = append(sec.table.rows, row(v.Name, t.Tool, t.Calls, t.RawTokens, t.ContextTokens, t.Reduction))
			calls, raw, context = calls+t.Calls, raw+t.RawTokens, context+t.ContextTokens
		}
		sec.table.rows = append(sec.table.rows, row(v.Name, "total", calls, raw, context, reduction(raw, context)))
		if len(without) > 0 {
			calls, raw, context = 0, 0, 0
			for _, t := range v.Trimming {
				if !slices.Contains(without, t.Tool) {
					calls, raw, context = calls+t.Calls, raw+t.RawTokens, context+t.ContextTokens
				}
			}
			sec.table.rows = append(sec.table.rows, row(v.Name, "total without "+strings.Join(without, ", "), calls, raw, context, reduction(raw, context)))
		}
	}
	return sec, len(sec.table.rows) > 0
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

// count is n followed by noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
