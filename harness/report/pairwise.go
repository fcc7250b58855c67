package report

import (
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/harness/wire"
)

// Pairwise is the outcome of judging two variants' answers pair by pair
// (testbed compare --judge): per scenario, the grader asked which answer
// better meets the scenario's rubric, once with each answer first.
type Pairwise struct {
	Grader  string `json:"grader"`
	StandIn bool   `json:"standin,omitempty"`
	// Wins, Losses and Ties count the scenarios both orders agreed on,
	// for head against base; Inconsistent those they did not.
	Wins         int `json:"wins"`
	Losses       int `json:"losses"`
	Ties         int `json:"ties"`
	Inconsistent int `json:"inconsistent"`
	// Skipped lists the scenarios not judged, with why.
	Skipped []string `json:"skipped,omitempty"`
	// WinRate is Wins over Wins and Losses, with its 95% Wilson interval;
	// nil (null) when no pair was decided.
	WinRate *float64 `json:"win_rate"`
	Low     *float64 `json:"win_rate_low"`
	High    *float64 `json:"win_rate_high"`
	// Calls counts the grader's calls; InputTokens and OutputTokens are
	// what it reported for them, CostUSD their price at the judge's model
	// (Unpriced, and CostUSD counts nothing, when it has none).
	Calls        int       `json:"calls"`
	InputTokens  int       `json:"input_tokens"`
	OutputTokens int       `json:"output_tokens"`
	CostUSD      float64   `json:"cost_usd"`
	Unpriced     bool      `json:"unpriced,omitempty"`
	Rows         []PairRow `json:"rows"`
}

// MarshalJSON writes p with its cost_usd null when the judge's model has
// no price (Unpriced), as Grading does.
func (p Pairwise) MarshalJSON() ([]byte, error) {
	type fields Pairwise // without this method
	out := struct {
		fields
		CostUSD *float64 `json:"cost_usd"`
	}{fields: fields(p)}
	if !p.Unpriced {
		out.CostUSD = &p.CostUSD
	}
	return wire.MarshalPlain(out)
}

// PairRow is one scenario judged in both orders.
type PairRow struct {
	ID      string `json:"id"`
	Rubric  string `json:"rubric"`
	Outcome string `json:"outcome"` // win, loss, tie or inconsistent (for head)
	// BaseFirst and HeadFirst are the grader's reasons with base's answer
	// shown first and with head's shown first.
	BaseFirst string `json:"base_first"`
	HeadFirst string `json:"head_first"`
	Base      string `json:"base_answer"`
	Head      string `json:"head_answer"`
}

// pairwiseSection draws p: the tally and interval as notes, and a row per
// scenario that was not a win, with both answers side by side.
func pairwiseSection(base, head string, p *Pairwise) section {
	sec := section{title: fmt.Sprintf("pairwise judging by %s: %s against %s", p.Grader, head, base), table: table{
		header: []string{"scenario", "outcome", base, head, "why (base first | head first)"},
		right:  []bool{false, false, false, false, false},
		wrap:   []bool{false, false, true, true, true},
	}}
	rate := "no decided pair"
	if p.WinRate != nil && p.Low != nil && p.High != nil {
		rate = fmt.Sprintf("%.1f%% (95%% Wilson interval %.1f%%–%.1f%%)", *p.WinRate*100, *p.Low*100, *p.High*100)
	}
	price := "unpriced"
	if !p.Unpriced {
		price = USD(p.CostUSD)
	}
	sec.notes = append(sec.notes,
		note{text: fmt.Sprintf("%s wins %d, loses %d, ties %d; %d inconsistent (the two orders disagreed: position, not the answers); %s, %s input and %s output tokens, %s",
			head, p.Wins, p.Losses, p.Ties, p.Inconsistent, Count(p.Calls, "grader call"), Grouped(int64(p.InputTokens)), Grouped(int64(p.OutputTokens)), price)},
		note{text: fmt.Sprintf("win rate of %s over %s (wins over wins and losses): %s", head, base, rate)})
	for _, s := range p.Skipped {
		sec.notes = append(sec.notes, note{mark: "⚠", text: "not judged: " + s})
	}
	for _, r := range p.Rows {
		if r.Outcome == "win" {
			continue
		}
		sec.table.rows = append(sec.table.rows, []string{r.ID, r.Outcome, oneLine(r.Base), oneLine(r.Head), r.BaseFirst + " | " + r.HeadFirst})
	}
	if len(sec.table.rows) == 0 {
		sec.table.header = nil
	}
	return sec
}

// oneLine is s on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
