package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gonum.org/v1/gonum/stat"

	"github.com/agentreplay/testbed/harness/trace"
)

// Streaming summarizes a variant's streamed model calls. Times are in
// milliseconds, over every call that streamed at least one token (over
// every sample's calls when scenarios have several) in a run that was
// measured (Run.Measured): a stale or errored run's are left out.
type Streaming struct {
	Calls int `json:"calls"`
	// Tokenless counts the streamed calls in which no event carried a
	// token (a stream that ended early, or an empty answer): they have no
	// time to first token and are never good.
	Tokenless int     `json:"tokenless,omitempty"`
	TTFTMean  float64 `json:"ttft_mean_ms"`
	TTFTP50   float64 `json:"ttft_p50_ms"`
	TTFTP95   float64 `json:"ttft_p95_ms"`
	TTFTP99   float64 `json:"ttft_p99_ms"`
	// GapMean is the mean gap between token events over all calls; GapP95
	// the 95th percentile of the calls' own 95th-percentile gaps.
	GapMean float64 `json:"gap_mean_ms"`
	GapP95  float64 `json:"gap_p95_ms"`
	// TPOTMean is the mean time per output token after the first.
	TPOTMean float64 `json:"tpot_mean_ms"`
	// TokensPerSecond is the mean output rate from the first token on.
	TokensPerSecond float64 `json:"output_tps_mean"`
	DurationMean    float64 `json:"duration_mean_ms"`
	// Goodput is the share of streamed calls within the suite's budget
	// (time to first token and time per output token), when it sets one.
	Goodput *float64 `json:"goodput,omitempty"`
	// Roles holds each role's mean time to first token.
	Roles map[string]float64 `json:"roles_ttft_mean_ms,omitempty"`
}

// Budget is a goodput budget: a streamed call is good when its time to
// first token and its time per output token are both within it, as serving
// benchmarks count goodput.
type Budget struct {
	TTFT time.Duration
	TPOT time.Duration
}

// Good reports whether call is within b.
func (b Budget) Good(call trace.StreamCall) bool {
	return call.FirstToken >= 0 && call.FirstToken <= b.TTFT && call.TPOT() <= b.TPOT
}

// SummarizeStreams summarizes the streamed calls of scs' measured runs,
// with goodput against budget when it is not nil; nil when no call of
// them streamed.
func SummarizeStreams(scs []Scenario, budget *Budget) *Streaming {
	var calls []trace.StreamCall
	for _, sc := range scs {
		for _, r := range sc.Runs() {
			if r.Measured() {
				calls = append(calls, r.Metrics.Streams...)
			}
		}
	}
	if len(calls) == 0 {
		return nil
	}
	st := &Streaming{Calls: len(calls)}
	var ttft, gapP95 []float64
	var gapSum, gapN, tpot, tps, dur float64
	roleSum, roleN := map[string]float64{}, map[string]int{}
	good := 0
	for _, c := range calls {
		dur += millis(c.Duration)
		if budget != nil && budget.Good(c) {
			good++
		}
		if c.FirstToken < 0 {
			st.Tokenless++
			continue
		}
		ttft = append(ttft, millis(c.FirstToken))
		roleSum[c.Role] += millis(c.FirstToken)
		roleN[c.Role]++
		if c.TokenEvents > 1 {
			gapSum += millis(c.GapMean) * float64(c.TokenEvents-1)
			gapN += float64(c.TokenEvents - 1)
			gapP95 = append(gapP95, millis(c.GapP95))
		}
		tpot += millis(c.TPOT())
		tps += c.TokensPerSecond()
	}
	n := float64(len(calls))
	st.DurationMean = dur / n
	if budget != nil {
		g := float64(good) / n
		st.Goodput = &g
	}
	if len(ttft) == 0 {
		return st
	}
	slices.Sort(ttft)
	slices.Sort(gapP95)
	k := float64(len(ttft))
	st.TTFTMean, st.TTFTP50, st.TTFTP95, st.TTFTP99 = stat.Mean(ttft, nil), rank(ttft, 0.50), rank(ttft, 0.95), rank(ttft, 0.99)
	if gapN > 0 {
		st.GapMean, st.GapP95 = gapSum/gapN, rank(gapP95, 0.95)
	}
	st.TPOTMean, st.TokensPerSecond = tpot/k, tps/k
	if len(roleN) > 1 || (len(roleN) == 1 && !hasKey(roleN, "")) {
		st.Roles = map[string]float64{}
		for r, c := range roleN {
			st.Roles[r] = roleSum[r] / float64(c)
		}
	}
	return st
}

func hasKey(m map[string]int, k string) bool {
	_, ok := m[k]
	return ok
}

// millis is d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// streamingSection lays out the variants' streamed calls: time to first
// token against the stream's whole duration, the gaps between token
// events, time per output token, output rate and goodput.
func streamingSection(order []*Variant) (section, bool) {
	sec := section{title: "streamed model calls (time to first token, from the request)", table: table{
		header: []string{"variant", "calls", "ttft p50", "ttft p95", "ttft mean", "gap mean", "gap p95", "tpot", "tok/s", "duration", "goodput"},
		right:  []bool{false, true, true, true, true, true, true, true, true, true, true},
	}}
	num := func(v float64) string { return Grouped(int64(math.Round(v))) + " ms" }
	for _, v := range order {
		st := v.Summary.Streaming
		if st == nil {
			continue
		}
		good := "—"
		if st.Goodput != nil {
			good = percent(*st.Goodput)
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name, strconv.Itoa(st.Calls), num(st.TTFTP50), num(st.TTFTP95), num(st.TTFTMean),
			num(st.GapMean), num(st.GapP95), num(st.TPOTMean), strconv.FormatFloat(st.TokensPerSecond, 'f', 1, 64), num(st.DurationMean), good})
		if n := overMeasured(v.Name, v.Summary.Measured(), max(v.Summary.Runs, v.Summary.Scenarios), "run"); n != "" {
			sec.notes = append(sec.notes, note{mark: "⚠", text: n})
		}
		if st.Tokenless > 0 {
			sec.notes = append(sec.notes, note{mark: "⚠", text: fmt.Sprintf("%s: %s carried no token (ended early or empty), counted in calls and duration only", v.Name, Count(st.Tokenless, "streamed call"))})
		}
		for _, role := range slices.Sorted(maps.Keys(st.Roles)) {
			sec.notes = append(sec.notes, note{text: fmt.Sprintf("%s: role %s, ttft mean %s", v.Name, role, num(st.Roles[role]))})
		}
	}
	return sec, len(sec.table.rows) > 0
}

// Grouped writes n with its thousands grouped by commas (10,960), as
// English writes numbers and as every report shows counts.
func Grouped(n int64) string {
	return message.NewPrinter(language.English).Sprint(n)
}

// ttftChart plots each streamed call's time to first token as a dot, one
// row per variant, beside the latency chart, with the budget of the first
// ttft threshold; only for suites with streamed calls.
func ttftChart(order []*Variant) (chart, bool) {
	var rows []dotRow
	budget := 0.0
	for _, v := range order {
		st := v.Summary.Streaming
		if st == nil {
			continue
		}
		r := dotRow{name: v.Name, p50: st.TTFTP50, p95: st.TTFTP95}
		for _, sc := range v.Scenarios {
			for _, run := range sc.Runs() {
				for _, c := range run.Metrics.Streams {
					if c.FirstToken >= 0 && run.Measured() {
						r.dots = append(r.dots, dot{millis(c.FirstToken), fmt.Sprintf("%s · %s · %s: first token at %s of %s", v.Name, sc.ID, orNone(c.Role), ms(c.FirstToken), ms(c.Duration))})
					}
				}
			}
		}
		rows = append(rows, r)
		for _, t := range v.Thresholds {
			if budget == 0 && !t.NotEvaluated && strings.HasPrefix(metricName(t.Source), "ttft_") {
				budget = t.Target
			}
		}
	}
	if len(rows) == 0 {
		return chart{}, false
	}
	return dotChart("time to first token per streamed call (dots), p50 and p95 (ticks)", rows, budget), true
}

// orNone is s, or "no role".
func orNone(s string) string {
	if s == "" {
		return "no role"
	}
	return s
}
