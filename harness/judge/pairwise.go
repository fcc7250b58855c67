package judge

import "math"

// Outcome is what two preferences of the same pair, asked in both orders,
// say of the head answer against the base answer.
type Outcome string

// Outcomes of a pair judged in both orders.
const (
	OutcomeWin          Outcome = "win"          // both orders prefer the head answer
	OutcomeLoss         Outcome = "loss"         // both orders prefer the base answer
	OutcomeTie          Outcome = "tie"          // both orders say tie
	OutcomeInconsistent Outcome = "inconsistent" // the orders disagree: the grader followed the position, not the answers
)

// Combine reads the preference asked with the base answer as A (first) and
// the one asked with the head answer as A (swapped) as one outcome for the
// head answer. Only verdicts the two orders agree on count as a win, a loss
// or a tie; any other pair is inconsistent.
func Combine(first, swapped Preference) Outcome {
	head := func(p Preference, headLabel string) string {
		switch p.Winner {
		case "tie":
			return "tie"
		case headLabel:
			return "head"
		}
		return "base"
	}
	a, b := head(first, "B"), head(swapped, "A")
	switch {
	case a != b:
		return OutcomeInconsistent
	case a == "head":
		return OutcomeWin
	case a == "base":
		return OutcomeLoss
	}
	return OutcomeTie
}

// Tally counts the outcomes of the pairs of two variants.
type Tally struct {
	Wins, Losses, Ties, Inconsistent int
}

// Add counts one outcome.
func (t *Tally) Add(o Outcome) {
	switch o {
	case OutcomeWin:
		t.Wins++
	case OutcomeLoss:
		t.Losses++
	case OutcomeTie:
		t.Ties++
	default:
		t.Inconsistent++
	}
}

// Decided is the number of pairs with a winner both orders agree on.
func (t Tally) Decided() int { return t.Wins + t.Losses }

// WinRate is the head's share of the decided pairs (wins over wins and
// losses); ties and inconsistent verdicts are counted apart, never as half
// a win. 0 when nothing was decided.
func (t Tally) WinRate() float64 {
	if t.Decided() == 0 {
		return 0
	}
	return float64(t.Wins) / float64(t.Decided())
}

// Z95 is the standard normal quantile of a two-sided 95% interval.
const Z95 = 1.959963984540054

// Wilson is the Wilson score interval of k successes in n trials at the
// normal quantile z: (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n).
// With n = 0 it is the whole [0, 1].
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	centre := p + z2/(2*nf)
	margin := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	d := 1 + z2/nf
	return math.Max(0, (centre-margin)/d), math.Min(1, (centre+margin)/d)
}
