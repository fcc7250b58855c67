package report

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
}

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
