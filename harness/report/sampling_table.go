package report

import (
	"fmt"
	"math"
	"strconv"
)

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
