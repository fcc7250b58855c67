package report

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/harness/trace"
	"github.com/agentreplay/testbed/harness/wire"
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
	// CostUSD is what the grader's calls cost, their reported tokens
	// priced as the judge's model (a stand-in grader as the model it
	// stands for); Unpriced is true when that model has no price, and
	// CostUSD then counts nothing.
	CostUSD  float64 `json:"cost_usd"`
	Unpriced bool    `json:"unpriced,omitempty"`
	// Provider and Model are the judge's model the calls were priced at,
	// and Usage each call's reported tokens (Input and Output) in call
	// order: what prices them again from a report file (testbed report
	// --prices). A variant's summary keeps no Usage; its scenarios have it.
	Provider string        `json:"provider,omitempty"`
	Model    string        `json:"model,omitempty"`
	Usage    []trace.Usage `json:"usage,omitempty"`
	// Score is the weighted mean score of the scenario's rubrics (0 to 1).
	Score float64 `json:"score"`
	// Calibration is the grader's agreement with the rubrics' labelled
	// examples (pass:, fail:); nil when they have none.
	Calibration *Calibration `json:"calibration,omitempty"`
}

// MarshalJSON writes g with its cost_usd null when the judge's model has
// no price (Unpriced): never a $0 that the grading did not cost. A null
// reads back as 0, as unpriced says to read it.
func (g Grading) MarshalJSON() ([]byte, error) {
	type fields Grading // without this method
	out := struct {
		fields
		CostUSD *float64 `json:"cost_usd"`
	}{fields: fields(g)}
	if !g.Unpriced {
		out.CostUSD = &g.CostUSD
	}
	return wire.MarshalPlain(out)
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

// SummarizeGrading adds up the grading of scenarios (a variant's, or the
// samples of one): grader calls, tokens and calibration summed, the mean
// score of those graded; nil when none was graded.
func SummarizeGrading(scs []Scenario) *Grading {
	var out *Grading
	var score float64
	for _, sc := range scs {
		g := sc.Grading
		if g == nil {
			continue
		}
		if out == nil {
			out = &Grading{Grader: g.Grader, StandIn: g.StandIn, Provider: g.Provider, Model: g.Model}
		}
		out.Calls += g.Calls
		out.Usage = append(out.Usage, g.Usage...)
		out.InputTokens += g.InputTokens
		out.OutputTokens += g.OutputTokens
		out.CostUSD += g.CostUSD
		out.Unpriced = out.Unpriced || g.Unpriced
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

// Grading is the grading of the variant's scenarios, as Summary.Grading
// holds it (without each call's Usage, which its scenarios keep); nil when
// nothing was graded.
func (v *Variant) Grading() *Grading { return summaryGrading(v.Scenarios) }

func summaryGrading(scs []Scenario) *Grading {
	g := SummarizeGrading(scs)
	if g != nil {
		g.Usage = nil
	}
	return g
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
			sum.CostUSD += g.CostUSD
			sum.Unpriced = sum.Unpriced || g.Unpriced
			sum.Calibration = sum.Calibration.plus(g.Calibration)
		}
		if variants > 0 {
			price := "unpriced (the judge's model has no price)"
			if !sum.Unpriced {
				price = USD(sum.CostUSD)
			}
			line := fmt.Sprintf("%s: %s over %s, %s input and %s output tokens, %s, by %s",
				s.Name, Count(sum.Calls, "grader call"), Count(variants, "variant"), Grouped(int64(sum.InputTokens)), Grouped(int64(sum.OutputTokens)), price, sum.Grader)
			if c := sum.Calibration; c != nil {
				line += fmt.Sprintf("; it judged %d of %d labelled examples as labelled (%s)", c.Agreed(), c.Examples(), c.kappaText())
			}
			out = append(out, line)
		}
	}
	return out
}

// Kappa is Cohen's kappa of the grader's verdicts against the labels:
// (po − pe) / (1 − pe), po the observed agreement and pe the agreement
// expected by chance from the margins. ok is false when it is undefined
// (KappaUndefined says why): with no examples, or with every example
// labelled alike, where pe equals po whatever the grader does.
func (c Calibration) Kappa() (kappa float64, ok bool) {
	if c.KappaUndefined() != "" {
		return 0, false
	}
	n := float64(c.Examples())
	po := float64(c.Agreed()) / n
	pe := (float64(c.TP+c.FN)*float64(c.TP+c.FP) + float64(c.FP+c.TN)*float64(c.FN+c.TN)) / (n * n)
	return (po - pe) / (1 - pe), true
}

// KappaUndefined says why Kappa is undefined, or "" when it is defined.
func (c Calibration) KappaUndefined() string {
	switch {
	case c.Examples() == 0:
		return "no labelled example was graded"
	case c.FP+c.TN == 0:
		return "every example is labelled pass, so agreement cannot be told from chance; add a fail: example"
	case c.TP+c.FN == 0:
		return "every example is labelled fail, so agreement cannot be told from chance; add a pass: example"
	}
	return ""
}

// kappaText is Kappa for a reader: "Cohen's kappa 0.40", or "Cohen's kappa
// undefined: " and why.
func (c Calibration) kappaText() string {
	if k, ok := c.Kappa(); ok {
		return fmt.Sprintf("Cohen's kappa %.2f", k)
	}
	return "Cohen's kappa undefined: " + c.KappaUndefined()
}

// MarshalJSON writes the counts with what they give: the examples, those
// the grader judged as labelled, and the kappa (null, with
// kappa_undefined saying why, when it is undefined).
func (c Calibration) MarshalJSON() ([]byte, error) {
	type counts Calibration
	out := struct {
		counts
		Examples  int      `json:"examples"`
		Agreed    int      `json:"agreed"`
		Kappa     *float64 `json:"kappa"`
		Undefined string   `json:"kappa_undefined,omitempty"`
	}{counts: counts(c), Examples: c.Examples(), Agreed: c.Agreed(), Undefined: c.KappaUndefined()}
	if k, ok := c.Kappa(); ok {
		out.Kappa = &k
	}
	return json.Marshal(out)
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
		out = append(out, fmt.Sprintf("%s %s: %s", mark, c.Label(), c.Detail))
	}
	return out
}

// gradingSection is what grading each variant's rubric checks cost (calls,
// tokens and dollars), apart
// from the agent's figures, with the grader's mean score and its agreement
// with the rubrics' labelled examples (pooled over every sample).
func gradingSection(order []*Variant) (section, bool) {
	sec := section{title: "grading, apart from the agents' calls, tokens and latency", table: table{
		header: []string{"variant", "grader", "calls", "in tok", "out tok", "cost", "score", "labelled examples", "Cohen's kappa"},
		right:  []bool{false, false, true, true, true, true, true, true, true},
		wrap:   []bool{false, true, false, false, false, false, false, false, false},
	}}
	for _, v := range order {
		g := v.Summary.Grading
		if g == nil {
			continue
		}
		examples, kappa := "—", "—"
		if c := g.Calibration; c != nil {
			examples = fmt.Sprintf("%d of %d as labelled", c.Agreed(), c.Examples())
			if k, ok := c.Kappa(); ok {
				kappa = fmt.Sprintf("%.2f", k)
			} else {
				kappa = "undefined"
				sec.notes = append(sec.notes, note{text: v.Name + ": " + c.kappaText()})
			}
		}
		price := "unpriced"
		if !g.Unpriced {
			price = USD(g.CostUSD)
		}
		sec.table.rows = append(sec.table.rows, []string{v.Name, g.Grader, strconv.Itoa(g.Calls), strconv.Itoa(g.InputTokens),
			strconv.Itoa(g.OutputTokens), price, fmt.Sprintf("%.2f", g.Score), examples, kappa})
	}
	return sec, len(sec.table.rows) > 0
}
