package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// Spend is what model calls cost in US dollars over some runs: per run,
// its mean and 95th percentile (nearest rank), and in all. Only priced
// calls count; Unpriced says how many were left out, never as $0.
type Spend struct {
	Mean  float64 `json:"mean_usd"`
	P95   float64 `json:"p95_usd"`
	Total float64 `json:"total_usd"`
	// Priced and Unpriced count the model calls; Counted those of the
	// priced that were priced from testbed's own token counts (the
	// provider reported no usage), the rest from the provider's usage.
	Priced   int `json:"priced_calls"`
	Unpriced int `json:"unpriced_calls,omitempty"`
	Counted  int `json:"counted_calls,omitempty"`
	// Embed is the embeddings calls' part of Total, EmbedCalls how many
	// there were (counted in Priced, Unpriced and Counted too).
	Embed      float64 `json:"embed_usd,omitempty"`
	EmbedCalls int     `json:"embed_calls,omitempty"`
	// Unmeasured counts the runs left out because they were not measured
	// (stale or errored, Run.Measured): the figures are over the others.
	Unmeasured int `json:"unmeasured_runs,omitempty"`
}

// SpendOf is the spend of runs, over those measured (Run.Measured); the
// others are counted in Unmeasured, never as $0.
func SpendOf(runs []Run) Spend {
	var s Spend
	var per []float64
	for _, r := range runs {
		if !r.Measured() {
			s.Unmeasured++
			continue
		}
		m := r.Metrics
		s.Priced += m.PricedCalls
		// a report written before calls were priced counts none of them
		s.Unpriced += max(m.UnpricedCalls, m.LLMCalls+m.EmbedCalls-m.PricedCalls)
		s.Counted += m.CountedCalls
		s.Total += m.CostUSD
		s.Embed += m.EmbedCostUSD
		s.EmbedCalls += m.EmbedCalls
		per = append(per, m.CostUSD)
	}
	if len(per) == 0 {
		return s
	}
	s.Mean = s.Total / float64(len(per))
	slices.Sort(per)
	s.P95 = rank(per, 0.95)
	return s
}

// Spend is the variant's spend over its scenarios' runs, as
// Summary.Cost holds it; measured again from the runs, so that a report
// written before calls were priced shows them unpriced rather than $0.
func (v *Variant) Spend() Spend {
	var runs []Run
	for _, sc := range v.Scenarios {
		runs = append(runs, sc.Runs()...)
	}
	return SpendOf(runs)
}

// Cost is the scenario's spend over its samples (one run when unsampled).
func (s Scenario) Cost() Spend { return SpendOf(s.Runs()) }

// Evaluated reports whether any call was priced: a cost over none is not
// a figure.
func (s Spend) Evaluated() bool { return s.Priced > 0 }

// Whole reports whether every call of every run was priced: only then is
// a difference of two costs one of what the calls cost (with calls left
// out, it is a difference of lower bounds; with runs left out, Unmeasured,
// one of other scenarios).
func (s Spend) Whole() bool { return s.Priced > 0 && s.Unpriced == 0 && s.Unmeasured == 0 }

// apart says why two spends set side by side give no difference (one of
// them not Whole): "some calls unpriced", "runs not measured", both, or
// "" when neither is why (a side priced no call at all).
func apart(b, h Spend) string {
	var why []string
	if b.Unpriced > 0 || h.Unpriced > 0 {
		why = append(why, "some calls unpriced")
	}
	if b.Unmeasured > 0 || h.Unmeasured > 0 {
		why = append(why, "runs not measured")
	}
	return strings.Join(why, ", ")
}

// none reports whether s has no figure: no call priced, and calls left
// unpriced or runs left unmeasured (a spend of no call at all is $0).
func (s Spend) none() bool { return s.Priced == 0 && (s.Unpriced > 0 || s.Unmeasured > 0) }

// MarshalJSON writes s with its dollar figures (mean_usd, p95_usd,
// total_usd) null when it has none, no call priced and calls unpriced or
// runs not measured, beside the counts that say why: never a $0 that
// nothing cost. A null reads back as 0, as those counts say to read it.
func (s Spend) MarshalJSON() ([]byte, error) {
	type fields Spend // without this method
	out := struct {
		Mean  *float64 `json:"mean_usd"`
		P95   *float64 `json:"p95_usd"`
		Total *float64 `json:"total_usd"`
		fields
	}{fields: fields(s)}
	if !s.none() {
		out.Mean, out.P95, out.Total = &s.Mean, &s.P95, &s.Total
	}
	return wire.MarshalPlain(out)
}

// Format writes v (the mean, p95 or total of s) as dollars: "unpriced"
// when no call was priced, "not measured" when no run was, and the count
// of unpriced calls when some were left out.
func (s Spend) Format(v float64) string {
	switch {
	case s.Priced == 0 && s.Unpriced > 0:
		return "unpriced"
	case s.none():
		return "not measured"
	case s.Unpriced > 0:
		return fmt.Sprintf("%s (+%d unpriced)", USD(v), s.Unpriced)
	}
	return USD(v)
}

// Short is the mean per run in few columns: "unpriced", "—" when no run
// was measured, "$0.0012", or "≥$0.0012" when some calls were unpriced
// (the tables say how many).
func (s Spend) Short() string {
	switch {
	case s.Priced == 0 && s.Unpriced > 0:
		return "unpriced"
	case s.none():
		return "—"
	case s.Unpriced > 0:
		return "≥" + USD(s.Mean)
	}
	return USD(s.Mean)
}

// Sources says how the calls were priced: "12 calls priced from reported
// usage (the provider's), 3 calls from testbed's counts (the provider
// reported none), 2 calls unpriced", and what the embeddings calls among
// them cost.
func (s Spend) Sources() string {
	var parts []string
	if n := s.Priced - s.Counted; n > 0 {
		parts = append(parts, Count(n, "call")+" priced from reported usage")
	}
	if s.Counted > 0 {
		parts = append(parts, Count(s.Counted, "call")+" from testbed's counts")
	}
	if s.Unpriced > 0 {
		parts = append(parts, Count(s.Unpriced, "call")+" unpriced (not in the price table)")
	}
	if s.EmbedCalls > 0 {
		parts = append(parts, fmt.Sprintf("%s among them, %s of the total", Count(s.EmbedCalls, "embeddings call"), USD(s.Embed)))
	}
	if s.Unmeasured > 0 {
		parts = append(parts, Count(s.Unmeasured, "run")+" left out (stale or errored)")
	}
	return strings.Join(parts, ", ")
}

// String is the mean per run.
func (s Spend) String() string { return s.Format(s.Mean) }

// USD writes dollars with three significant digits below ten cents, and
// cents from there: $0.000123, $0.0154, $0.53, $1.52.
func USD(v float64) string {
	if v == 0 {
		return "$0"
	}
	decimals := 2
	if a := math.Abs(v); a < 0.1 {
		decimals = int(-math.Floor(math.Log10(a))) + 2
	}
	return "$" + strconv.FormatFloat(v, 'f', decimals, 64)
}
