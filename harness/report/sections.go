package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
)

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
		if reduced(v) {
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
		out := strconv.FormatFloat(s.OutputTokensMean, 'f', 0, 64)
		latency := strconv.FormatFloat(s.LatencyMean, 'f', 0, 64) + " ms"
		p95 := strconv.FormatFloat(s.LatencyP95, 'f', 0, 64) + " ms"
		if s.Measured() <= 0 {
			calls, in, out, latency, p95 = "—", "—", "—", "—", "—"
		}
		if base != nil && v != base && Unmeasured(base.Summary, s) == "" {
			// Changes only between figures over every run of both: a stale
			// run's calls, tokens and latency were never measured.
			b := base.Summary
			calls += " (" + signed(s.LLMCallsMean-b.LLMCallsMean, 2, "") + ")"
			if b.InputTokensMean != 0 {
				in += " (" + signed((s.InputTokensMean/b.InputTokensMean-1)*100, 1, "%") + ")"
			}
			if b.LatencyMean != 0 {
				latency += " (" + signed((s.LatencyMean/b.LatencyMean-1)*100, 1, "%") + ")"
			}
		}
		if n := overMeasured(v.Name, s.Measured(), max(s.Runs, s.Scenarios), "run"); n != "" {
			switch {
			case base != nil && v != base:
				n += ", so no change against " + base.Name + " is given"
			case base != nil && len(order) > 1:
				n += ", so no change against it is given"
			}
			sec.notes = append(sec.notes, note{mark: "⚠", text: n})
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name, calls, in, out, latency, p95})
	}
	return sec
}

// spendSection is what the variants' model calls cost in US dollars: per
// scenario run (mean, with the change against the baseline, and p95) and
// in all, and what each was priced from.
func spendSection(order []*Variant, base *Variant, prices string) section {
	title := "spend in US dollars (per scenario run)"
	if prices != "" {
		title += ", priced with " + prices
	}
	sec := section{title: title, table: table{
		header: []string{"variant", "mean", "p95", "total", "priced calls"},
		right:  []bool{false, true, true, true, true},
	}}
	// the embeddings' share, beside the chat calls', when a variant made any
	embeds := slices.ContainsFunc(order, func(v *Variant) bool { return v.Spend().EmbedCalls > 0 })
	if embeds {
		sec.table.header = append(sec.table.header, "of the total, embeddings")
		sec.table.right = append(sec.table.right, true)
	}
	for _, v := range order {
		c := v.Spend()
		mean := c.Short()
		if base != nil && v != base {
			if b := base.Spend(); c.Whole() && b.Whole() {
				mean += " (" + costDelta(b.Mean, c.Mean) + ")"
			}
		}
		p95, total := c.Short(), c.Short()
		if c.Evaluated() {
			p95, total = USD(c.P95), USD(c.Total)
			if c.Unpriced > 0 {
				// Lower bounds, as the mean's ≥ says.
				p95, total = "≥"+p95, "≥"+total
			}
		}
		row := []string{v.Name, mean, p95, total, fmt.Sprintf("%d/%d", c.Priced, c.Priced+c.Unpriced)}
		if embeds {
			row = append(row, fmt.Sprintf("%s in %s", USD(c.Embed), count(c.EmbedCalls, "call")))
		}
		sec.table.rows = append(sec.table.rows, row)
		if src := c.Sources(); src != "" {
			sec.notes = append(sec.notes, note{text: v.Name + ": " + src})
		}
	}
	return sec
}

// costDelta is the change from base to head dollars: "-$0.0012, -37.5%".
// A difference within a float's rounding of the two (the same calls
// priced, summed in another order) is none: "$0, ±0.0%".
func costDelta(base, head float64) string {
	d := head - base
	if math.Abs(d) <= 1e-9*max(math.Abs(base), math.Abs(head)) {
		d, head = 0, base
	}
	out := USD(math.Abs(d))
	switch {
	case d > 0:
		out = "+" + out
	case d < 0:
		out = "−" + out
	}
	if base != 0 {
		out += ", " + signed((head/base-1)*100, 1, "%")
	}
	return out
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
	pm := func(iv Interval, ok bool, decimals int, unit string) string {
		if !ok {
			return "—" // no sample measured it
		}
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
			metric := func(name string, decimals int, unit string) string {
				iv, ok := sp.Metrics[name]
				return pm(iv, ok, decimals, unit)
			}
			sec.table.rows = append(sec.table.rows, []string{v.Name, sc.ID,
				fmt.Sprintf("%d/%d", sp.Passed, sp.N),
				fmt.Sprintf("%s [%s, %s]", percent(sp.PassRate.Mean), percent(sp.PassRate.Lo), percent(sp.PassRate.Hi)),
				fmt.Sprintf("%s (k=%d)", percent(sp.PassHatK(sp.N)), sp.N),
				metric(MetricInputTokens, 0, ""), metric(MetricOutputTokens, 0, ""), metric(MetricLLMCalls, 2, ""), metric(MetricLatencyMS, 0, " ms")})
			if n := overMeasured(v.Name+"/"+sc.ID, sp.N-sp.Unmeasured(), sp.N, "sample"); n != "" {
				sec.notes = append(sec.notes, note{mark: "⚠", text: n})
			}
		}
		metric := func(name string, decimals int, unit string) string {
			iv, ok := s.CI[name]
			return pm(iv, ok && s.Measured() > 0, decimals, unit)
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name, "all runs",
			fmt.Sprintf("%d/%d", int(math.Round(s.RunPassRate*float64(s.Runs))), s.Runs), percent(s.RunPassRate),
			fmt.Sprintf("%s (k=%d)", percent(s.PassHatK), s.K),
			metric(MetricInputTokens, 0, ""), metric(MetricOutputTokens, 0, ""), metric(MetricLLMCalls, 2, ""), metric(MetricLatencyMS, 0, " ms")})
	}
	if len(sec.table.rows) == 0 {
		return sec, false
	}
	sec.notes = append(sec.notes, note{text: "pass^k: the chance that k fresh runs all pass, C(passed,k)/C(n,k); a scenario passes when at least its suite's min_sample_pass_rate of its samples pass; the variant tables show sample 1"})
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
	case strings.HasPrefix(m, "cost_"):
		return USD(v)
	default:
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
}

// tokenSection lays out the input tokens by part, counted with the suite's
// encoding, beside the provider's own count, over the runs that were
// measured (a note says how many were not); for a provider other than
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
		measured := measuredRuns(v)
		for _, run := range measured {
			m := run.Metrics
			sum = sum.Add(m.Input)
			reported += m.ReportedInput
			read += m.ReportedCacheRead
			write += m.ReportedCacheWrite
			output += m.ReportedOutput
			reasoning += m.ReportedReasoning
		}
		mean := func(n int) string {
			switch {
			case len(measured) > 0:
				return strconv.FormatFloat(float64(n)/float64(len(measured)), 'f', 0, 64)
			case len(v.Scenarios) > 0:
				return "—" // none measured
			}
			return "0"
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
		if n := overMeasured(v.Name, len(measured), max(v.Summary.Runs, v.Summary.Scenarios), "run"); n != "" {
			sec.notes = append(sec.notes, note{mark: "⚠", text: n})
		}
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

// roleSection totals the LLM calls of each variant by role, over the runs
// that were measured (a note says how many were not).
func roleSection(order []*Variant) (section, bool) {
	sec := section{title: "LLM calls by role (total)", table: table{
		header: []string{"variant", "role", "calls", "in tok", "out tok", "latency"},
		right:  []bool{false, false, true, true, true, true},
	}}
	for _, v := range order {
		roles := map[string]trace.Role{}
		measured := measuredRuns(v)
		for _, run := range measured {
			for name, r := range run.Metrics.Roles {
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
		shown := len(names) > 0
		if !shown && slices.ContainsFunc(v.Scenarios, func(sc Scenario) bool { return len(sc.Metrics.Roles) > 0 }) {
			// only runs that were not measured called a model by role
			sec.table.rows = append(sec.table.rows, []string{v.Name, "—", "—", "—", "—", "not measured"})
			shown = true
		}
		if n := overMeasured(v.Name, len(measured), max(v.Summary.Runs, v.Summary.Scenarios), "run"); n != "" && shown {
			sec.notes = append(sec.notes, note{mark: "⚠", text: n})
		}
	}
	return sec, len(sec.table.rows) > 0
}
