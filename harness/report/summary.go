package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/agentreplay/testbed/harness/trace"
)

// RouteCorrect reports whether the observed route matches the expected one:
// equal, or the same mode when no tool was expected, or the same tool
// (any mode) when no mode was expected (":tool").
func (s Scenario) RouteCorrect() bool { return routeCorrect(s.ExpectedRoute, s.Route) }

func routeCorrect(expected, observed string) bool {
	if expected == "" {
		return false
	}
	if observed == expected {
		return true
	}
	if tool, ok := strings.CutPrefix(expected, ":"); ok {
		// A route that names a tool and no mode: any mode with that tool.
		_, got, _ := strings.Cut(observed, ":")
		return got == tool
	}
	return !strings.Contains(expected, ":") && strings.SplitN(observed, ":", 2)[0] == expected
}

// Runs returns a scenario's samples, or the scenario itself as one run.
func (s Scenario) Runs() []Run {
	if s.Sampling != nil {
		return s.Sampling.Runs
	}
	return []Run{{Sample: 1, Verdict: s.Verdict, Route: s.Route, Error: s.Error, Metrics: s.Metrics,
		Replayed: replayed(s.Events), Unplayed: s.Unplayed, Crashed: s.Crashed, Escaped: s.Escaped, Recorded: s.Recorded, Dropped: s.Dropped, Events: s.Events}}
}

// Measured reports whether the run's metrics were measured: a stale run
// stopped at a cassette miss (or never opened its cassette) and an errored
// one at its error, so their calls, tokens, latency and cost are part of
// a run or none of one, never a figure to average.
func (r Run) Measured() bool { return measured(r.Verdict) }

func measured(verdict string) bool { return verdict != VerdictStale && verdict != VerdictError }

// Measured reports whether the scenario's own figures (its Metrics and
// Events: its run's, or its first sample's when it was sampled) were
// measured, as Run.Measured says of that run. A row of the scenario shows
// them only then: a stale or errored run's are what it did before it
// stopped.
func (s Scenario) Measured() bool {
	if s.Sampling != nil && len(s.Sampling.Runs) > 0 {
		return s.Sampling.Runs[0].Measured()
	}
	return measured(s.Verdict)
}

// measuredRuns are the runs of v's scenarios (every sample of a sampled
// one) whose figures were measured (Run.Measured): those a table of its
// runs adds up, as Summarize does.
func measuredRuns(v *Variant) []Run {
	var runs []Run
	for _, sc := range v.Scenarios {
		for _, r := range sc.Runs() {
			if r.Measured() {
				runs = append(runs, r)
			}
		}
	}
	return runs
}

// overMeasured is the note under a table whose figures of a variant (or
// of a scenario's samples) are over the runs it measured only: "name: over
// 2 of 3 runs; 1 stale or errored, not measured", noun naming the runs; ""
// when every run was measured.
func overMeasured(name string, measured, runs int, noun string) string {
	if measured >= runs {
		return ""
	}
	return fmt.Sprintf("%s: over %d of %s; %d stale or errored, not measured", name, max(0, measured), Count(runs, noun), runs-max(0, measured))
}

// Measured counts the runs whose metrics the summary's means, percentiles
// and totals are over: every run but the Incomplete ones.
func (s Summary) Measured() int { return max(s.Runs, s.Scenarios) - s.Incomplete }

// Unmeasured says which of b and h, two summaries set side by side, left
// runs out of their figures, as "head: 1 of 3 runs stale or errored, not
// measured"; "" when neither did and both measured some. Only then is a
// difference of their means, percentiles or totals one of what the runs
// did, as Spend.Whole says of costs: with some runs left out it compares
// other scenarios, and with none it compares nothing.
func Unmeasured(b, h Summary) string {
	var parts []string
	for _, side := range []struct {
		name string
		s    Summary
	}{{"base", b}, {"head", h}} {
		runs := max(side.s.Runs, side.s.Scenarios)
		switch {
		case runs == 0:
			parts = append(parts, side.name+": no runs")
		case side.s.Incomplete > 0:
			parts = append(parts, fmt.Sprintf("%s: %d of %s stale or errored, not measured", side.name, side.s.Incomplete, Count(runs, "run")))
		}
	}
	return strings.Join(parts, "; ")
}

// Summarize aggregates scenario results. Latency percentiles use the
// nearest-rank method. Scenarios with several samples contribute every
// sample to routing accuracy, means and percentiles (see Summary.Runs).
// The means, percentiles and totals of calls, tokens, latency and cost are
// over the measured runs only (Run.Measured); Incomplete counts the others.
func Summarize(scs []Scenario) Summary {
	s := Summary{Scenarios: len(scs)}
	if len(scs) == 0 {
		return s
	}
	var llm, tools, in, out, raw, ctx, prompt float64
	correct, runs, runsPassed, counted := 0, 0, 0, 0
	sampled := false
	var lat []float64
	var all []Run
	for _, sc := range scs {
		if sc.Verdict == VerdictPass {
			s.Passed++
		}
		if sc.Sampling != nil {
			sampled = true
		}
		all = append(all, sc.Runs()...)
		for _, r := range sc.Runs() {
			runs++
			if r.Verdict == VerdictPass {
				runsPassed++
				s.FaultsHandled += r.Metrics.Faults
			}
			s.Faults += r.Metrics.Faults
			if r.Crashed {
				s.Crashes++
			}
			if sc.ExpectedRoute != "" {
				s.Routed++
				if routeCorrect(sc.ExpectedRoute, r.Route) {
					correct++
				}
			}
			if !r.Measured() {
				s.Incomplete++
				continue
			}
			counted++
			m := r.Metrics
			llm += float64(m.LLMCalls)
			prompt += float64(m.Input.System + m.Input.Tools)
			tools += float64(m.ToolCalls)
			in += float64(m.InputTokens)
			out += float64(m.OutputTokens)
			raw += float64(m.RawTokens)
			ctx += float64(m.ContextTokens)
			lat = append(lat, metricOf(m, MetricLatencyMS))
		}
		for _, e := range sc.Events {
			if e.Kind == trace.KindNote && e.Note.Key == "artifact" {
				s.Artifacts++
			}
		}
		for _, c := range sc.Checks {
			s.Checks++
			if c.Judged {
				s.Judged++
			}
		}
	}
	s.Grading = summaryGrading(scs)
	s.PassRate = float64(s.Passed) / float64(len(scs))
	if s.Routed > 0 {
		s.RoutingAccuracy = float64(correct) / float64(s.Routed)
	}
	if counted > 0 {
		n := float64(counted)
		s.LLMCallsMean, s.ToolCallsMean = llm/n, tools/n
		s.InputTokensMean, s.OutputTokensMean = in/n, out/n
		slices.Sort(lat)
		s.LatencyMean = stat.Mean(lat, nil)
		s.LatencyP50, s.LatencyP95, s.LatencyP99 = rank(lat, 0.50), rank(lat, 0.95), rank(lat, 0.99)
	}
	if llm > 0 {
		s.PromptTokensPerCall = prompt / llm
	}
	if raw > 0 {
		s.TokenReduction = 1 - ctx/raw
	}
	if sampled {
		s.Runs, s.RunPassRate = runs, float64(runsPassed)/float64(runs)
		s.K, s.PassHatK, s.CI = sampledSummary(scs)
	}
	s.Streaming = SummarizeStreams(scs, nil)
	s.Cost = SpendOf(all)
	return s
}

// sampledSummary gives pass^K averaged over the scenarios, K the fewest
// samples of any, and each sampled metric's mean over all runs with the
// 95% interval of that mean from the within-scenario variances (the
// scenarios are fixed; only the model's sampling is noise). A scenario with
// one sample adds no variance.
func sampledSummary(scs []Scenario) (k int, passHatK float64, ci map[string]Interval) {
	k = math.MaxInt
	for _, sc := range scs {
		k = min(k, len(sc.Runs()))
	}
	for _, sc := range scs {
		if sc.Sampling != nil {
			passHatK += sc.Sampling.PassHatK(k)
		} else if sc.Verdict == VerdictPass {
			passHatK++
		}
	}
	passHatK /= float64(len(scs))
	ci = map[string]Interval{}
	for _, name := range sampledMetrics(scs...) {
		mean, se2, df := pooled(scs, name)
		iv := Interval{Mean: mean, Lo: mean, Hi: mean}
		if se2 > 0 {
			half := tCrit(df) * math.Sqrt(se2)
			iv.Lo, iv.Hi = mean-half, mean+half
		}
		ci[name] = iv
	}
	return k, passHatK, ci
}

// pooled is a metric's mean over every measured run of scs, the squared
// standard error of that mean from the within-scenario variances, and its
// degrees of freedom. A scenario with one measured sample adds no variance.
func pooled(scs []Scenario, metric string) (mean, se2, df float64) {
	var sum, variance float64
	total := 0
	for _, sc := range scs {
		n := 0
		for _, r := range sc.Runs() {
			if r.Measured() {
				sum += metricOf(r.Metrics, metric)
				n++
			}
		}
		total += n
		if sc.Sampling != nil && n > 0 {
			sd := sc.Sampling.Metrics[metric].SD
			variance += float64(n) * sd * sd
			df += float64(n - 1)
		}
	}
	if total == 0 {
		return 0, 0, 0
	}
	t := float64(total)
	return sum / t, variance / (t * t), df
}

// Confusion counts, over the scenarios with an ExpectedRoute, each
// (expected, observed) pair of routes (Scenario.ExpectedRoute and
// Scenario.Route) — for tool-calling agents the route is "tool:<first tool
// called>" or "answer" — sorted by expected then observed. An observed
// route is "" when nothing was routed. It returns nil when no scenario
// expects a route.
func Confusion(scs []Scenario) []ConfusionCell {
	counts := map[ConfusionCell]int{}
	for _, sc := range scs {
		if sc.ExpectedRoute == "" {
			continue
		}
		for _, r := range sc.Runs() {
			counts[ConfusionCell{Expected: sc.ExpectedRoute, Observed: r.Route}]++
		}
	}
	if len(counts) == 0 {
		return nil
	}
	cells := make([]ConfusionCell, 0, len(counts))
	for c, n := range counts {
		c.Count = n
		cells = append(cells, c)
	}
	slices.SortFunc(cells, func(a, b ConfusionCell) int {
		return cmp.Or(cmp.Compare(a.Expected, b.Expected), cmp.Compare(a.Observed, b.Observed))
	})
	return cells
}

// Trimming sums, per tool name, the calls, RawTokens and ContextTokens of
// the KindTool events of the scenarios' runs (every sample of a sampled
// scenario, as Summarize does), with Reduction = 1 − context/raw (0 when
// raw is 0), sorted by tool name. The events of a run whose figures were
// not measured (Run.Measured: stale or errored) are left out, and counted
// per tool in Unmeasured; a tool that only such runs called has a row with
// no figure. It returns nil when there are no tool events.
func Trimming(scs []Scenario) []ToolTrim {
	byTool := map[string]ToolTrim{}
	for _, sc := range scs {
		for _, r := range sc.Runs() {
			trimRun(byTool, r, runEvents(sc, r))
		}
	}
	return sortedTrims(byTool)
}

// SumTrimming adds up lists of trims of disjoint runs (the Trimming of each
// shard of one variant) into the list Trimming gives for all of them, or
// nil when there are none. A report read from a file keeps only sample 1's
// events, so the trims its shard made are what a merge adds up.
func SumTrimming(lists ...[]ToolTrim) []ToolTrim {
	byTool := map[string]ToolTrim{}
	for _, list := range lists {
		for _, t := range list {
			sum := byTool[t.Tool]
			sum.Tool = t.Tool
			sum.Calls, sum.RawTokens, sum.ContextTokens = sum.Calls+t.Calls, sum.RawTokens+t.RawTokens, sum.ContextTokens+t.ContextTokens
			sum.Unmeasured += t.Unmeasured
			byTool[t.Tool] = sum
		}
	}
	return sortedTrims(byTool)
}

// sortedTrims are the trims of byTool with their reductions, by tool name;
// nil when there are none.
func sortedTrims(byTool map[string]ToolTrim) []ToolTrim {
	if len(byTool) == 0 {
		return nil
	}
	trims := make([]ToolTrim, 0, len(byTool))
	for _, t := range byTool {
		t.Reduction = reduction(t.RawTokens, t.ContextTokens)
		trims = append(trims, t)
	}
	slices.SortFunc(trims, func(a, b ToolTrim) int { return cmp.Compare(a.Tool, b.Tool) })
	return trims
}

// trimRun adds run r's tool events to byTool: their calls and payload
// tokens when r was measured, or one unmeasured run per tool it called.
func trimRun(byTool map[string]ToolTrim, r Run, events []trace.Event) {
	called := map[string]bool{}
	for _, e := range events {
		if e.Kind != trace.KindTool || e.Tool == nil {
			continue
		}
		t := byTool[e.Tool.Name]
		t.Tool = e.Tool.Name
		switch {
		case r.Measured():
			t.Calls++
			t.RawTokens += e.Tool.RawTokens
			t.ContextTokens += e.Tool.ContextTokens
		case !called[e.Tool.Name]:
			t.Unmeasured++ // a run, however many calls it made
		}
		called[e.Tool.Name] = true
		byTool[e.Tool.Name] = t
	}
}

// runEvents are the events of run r of sc: its own, or the scenario's for
// sample 1 of a report read from a file, which keeps only sample 1's.
func runEvents(sc Scenario, r Run) []trace.Event {
	if r.Events == nil && r.Sample == 1 {
		return sc.Events
	}
	return r.Events
}

// reduction is 1 − context/raw, or 0 when raw is 0.
func reduction(raw, context int) float64 {
	if raw == 0 {
		return 0
	}
	return 1 - float64(context)/float64(raw)
}

// rank is the nearest-rank p-quantile of sorted values: the smallest value
// at least a fraction p of them are at or below (gonum's stat.Empirical).
func rank(sorted []float64, p float64) float64 {
	return stat.Quantile(p, stat.Empirical, sorted, nil)
}
