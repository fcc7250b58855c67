package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// writeProcessing prints, per variant of each suite whose agent runs
// outside testbed, the wall time the agent spent on its own (outside its
// HTTP calls, process start included): beside the replayed latency, which
// never includes it. It varies between runs, so no report file holds it.
func writeProcessing(w io.Writer, rep *report.Report, suites []*scenario.Suite) {
	for i, s := range rep.Suites {
		if i >= len(suites) || suites[i].External == nil {
			continue
		}
		for _, v := range s.Variants {
			var ds []time.Duration
			for _, sc := range v.Scenarios {
				ds = append(ds, sc.Processing)
			}
			if len(ds) == 0 {
				continue
			}
			fmt.Fprintf(w, "%s/%s: the agent's own processing, wall clock, not in its latency: p50 %s, p95 %s over %d scenario runs\n",
				s.Name, v.Name, rank(ds, 0.5).Round(time.Millisecond), rank(ds, 0.95).Round(time.Millisecond), len(ds))
			var start, proxy, cassette, agent []time.Duration
			for _, sc := range v.Scenarios {
				if t := sc.Wall; t != nil {
					start, proxy, cassette, agent = append(start, t.Start), append(proxy, t.Proxy), append(cassette, t.Cassette), append(agent, t.Agent)
				}
			}
			if len(start) == 0 {
				continue
			}
			p50 := func(ds []time.Duration) string { return rank(ds, 0.5).Round(100 * time.Microsecond).String() }
			fmt.Fprintf(w, "%s/%s: where the wall time of a run went, p50 of each: start %s, proxy %s, cassette %s, agent %s (total p50 %s)\n",
				s.Name, v.Name, p50(start), p50(proxy), p50(cassette), p50(agent), p50(totals(v.Scenarios)))
		}
	}
}

// rank is the nearest-rank percentile p of ds (sorted in place).
func rank(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[max(0, int(math.Ceil(p*float64(len(ds))))-1)]
}

// totals is each run's wall time, its parts summed, for the runs that have them.
func totals(scs []report.Scenario) []time.Duration {
	var out []time.Duration
	for _, sc := range scs {
		if t := sc.Wall; t != nil {
			out = append(out, t.Start+t.Proxy+t.Cassette+t.Agent)
		}
	}
	return out
}
