package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
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
			row = append(row, fmt.Sprintf("%s in %s", USD(c.Embed), Count(c.EmbedCalls, "call")))
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
