package report

import (
	"slices"
	"time"

	"github.com/agentreplay/testbed/harness/trace"
)

// Streaming summarizes a variant's streamed model calls. Times are in
// milliseconds, over every call that streamed at least one token (over
// every sample's calls when scenarios have several).
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

// SummarizeStreams summarizes the streamed calls of scs, with goodput
// against budget when it is not nil; nil when no call streamed.
func SummarizeStreams(scs []Scenario, budget *Budget) *Streaming {
	var calls []trace.StreamCall
	for _, sc := range scs {
		for _, r := range sc.Runs() {
			calls = append(calls, r.Metrics.Streams...)
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
	var sum float64
	for _, v := range ttft {
		sum += v
	}
	k := float64(len(ttft))
	st.TTFTMean, st.TTFTP50, st.TTFTP95, st.TTFTP99 = sum/k, rank(ttft, 0.50), rank(ttft, 0.95), rank(ttft, 0.99)
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
