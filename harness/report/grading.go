package report

import (
	"fmt"
	"strings"
)

// Grading is what grading a scenario's answers cost: the grader's calls
// and tokens, kept apart from the agent's (never in Metrics, latency or
// routing).
type Grading struct {
	// Grader names the grader: its provider and model, or the rule-based
	// stand-in judge.
	Grader       string `json:"grader"`
	StandIn      bool   `json:"standin,omitempty"`
	Calls        int    `json:"calls"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	// Score is the weighted mean score of the scenario's rubrics (0 to 1).
	Score float64 `json:"score"`
	// Calibration is the grader's agreement with the rubrics' labelled
	// examples (pass:, fail:); nil when they have none.
	Calibration *Calibration `json:"calibration,omitempty"`
}

// Calibration counts a grader's verdicts on labelled examples: labelled
// pass and passed (TP) or failed (FN), labelled fail and passed (FP) or
// failed (TN); an answer that did not parse counts as failed.
type Calibration struct {
	TP int `json:"pass_passed"`
	FN int `json:"pass_failed"`
	FP int `json:"fail_passed"`
	TN int `json:"fail_failed"`
}

// Add counts one example: its label and the grader's verdict.
func (c *Calibration) Add(label, verdict bool) {
	switch {
	case label && verdict:
		c.TP++
	case label:
		c.FN++
	case verdict:
		c.FP++
	default:
		c.TN++
	}
}

// Examples is the number of examples graded.
func (c Calibration) Examples() int { return c.TP + c.FN + c.FP + c.TN }

// Agreed is the number of examples the grader judged as labelled.
func (c Calibration) Agreed() int { return c.TP + c.TN }

// SummarizeGrading adds up the grading of a variant's scenarios; nil when
// none was graded.
func SummarizeGrading(scs []Scenario) *Grading {
	var out *Grading
	var score float64
	for _, sc := range scs {
		g := sc.Grading
		if g == nil {
			continue
		}
		if out == nil {
			out = &Grading{Grader: g.Grader, StandIn: g.StandIn}
		}
		out.Calls += g.Calls
		out.InputTokens += g.InputTokens
		out.OutputTokens += g.OutputTokens
		out.Calibration = out.Calibration.plus(g.Calibration)
		score += g.Score
		out.StandIn = out.StandIn && g.StandIn
	}
	if out != nil {
		n := 0
		for _, sc := range scs {
			if sc.Grading != nil {
				n++
			}
		}
		out.Score = score / float64(n)
	}
	return out
}

// gradingLines says, per suite whose rubric checks were graded, what the
// grading cost over its variants and by whom.
func gradingLines(r *Report) []string {
	var out []string
	for _, s := range r.Suites {
		var sum Grading
		variants := 0
		for _, v := range s.Variants {
			g := v.Summary.Grading
			if g == nil {
				continue
			}
			variants++
			sum.Grader = g.Grader
			sum.Calls += g.Calls
			sum.InputTokens += g.InputTokens
			sum.OutputTokens += g.OutputTokens
			sum.Calibration = sum.Calibration.plus(g.Calibration)
		}
		if variants > 0 {
			line := fmt.Sprintf("%s: %d grader calls over %d variants, %d input and %d output tokens, by %s",
				s.Name, sum.Calls, variants, sum.InputTokens, sum.OutputTokens, sum.Grader)
			if c := sum.Calibration; c != nil {
				line += fmt.Sprintf("; it judged %d of %d labelled examples as labelled (Cohen's kappa %.2f)", c.Agreed(), c.Examples(), c.Kappa())
			}
			out = append(out, line)
		}
	}
	return out
}

// Kappa is Cohen's kappa of the grader's verdicts against the labels:
// (po − pe) / (1 − pe), po the observed agreement and pe the agreement
// expected by chance from the margins; 1 when both sides always say the
// same one thing (pe = po = 1), 0 with no examples.
func (c Calibration) Kappa() float64 {
	n := float64(c.Examples())
	if n == 0 {
		return 0
	}
	po := float64(c.Agreed()) / n
	pe := (float64(c.TP+c.FN)*float64(c.TP+c.FP) + float64(c.FP+c.TN)*float64(c.FN+c.TN)) / (n * n)
	if pe == 1 {
		return 1
	}
	return (po - pe) / (1 - pe)
}

// plus is c with o's counts added; nil when both are.
func (c *Calibration) plus(o *Calibration) *Calibration {
	if o == nil {
		return c
	}
	out := Calibration{}
	if c != nil {
		out = *c
	}
	out.TP, out.FN, out.FP, out.TN = out.TP+o.TP, out.FN+o.FN, out.FP+o.FP, out.TN+o.TN
	return &out
}

// grades are a scenario's rubric checks, one a line: mark, turn, name and
// the grader's score and reason.
func grades(sc Scenario) []string {
	var out []string
	for _, c := range sc.Checks {
		if !strings.HasPrefix(c.Name, "rubric[") {
			continue
		}
		mark := "✓"
		if !c.Pass {
			mark = "✗"
		}
		out = append(out, fmt.Sprintf("%s turn %d %s: %s", mark, c.Turn, c.Name, c.Detail))
	}
	return out
}
