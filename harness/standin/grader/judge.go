// Package grader is the stand-in judge (Policy): the rule-based grader that
// answers the grading requests of harness/judge for the stand-in model.
package grader

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/judge"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Label is how the stand-in judge's scores are labelled wherever they
// appear: its reasons start with it.
const Label = "rule-based stand-in judge"

// Policy is the stand-in judge: a generic, rule-based grader reached by
// the shape a grading request asks for (judge.GradeSchema or
// judge.PreferSchema), never by an agent's wording. It reads the rubric and
// the answer from the built-in grading layout ("## Rubric", "## Answer"),
// splits the rubric into requirements (clauses), and scores the share of
// them the answer meets by their quoted terms, numbers, negations and key
// words. It cannot tell meaning: a paraphrase without the rubric's words
// fails, and an answer that names the words in the wrong sense passes. See
// docs/standin.md.
type Policy struct{}

// Name is "judge".
func (Policy) Name() string { return "judge" }

// Accepts takes a request that asks for a grade or a preference by its
// response schema.
func (Policy) Accepts(r policy.Request) bool {
	return r.Shape == judge.GradeSchema || r.Shape == judge.PreferSchema
}

// Decide grades r and names the rule that did ("grade" or "prefer").
func (Policy) Decide(r policy.Request) (llm.Message, string, error) {
	secs := judge.Sections(r.LastUser())
	rubric := secs["Rubric"]
	if rubric == "" {
		return llm.Message{}, "", errors.New("the stand-in judge reads the built-in grading layout (## Rubric, ## Answer); a custom judge prompt needs a real grader (record --judge-provider)")
	}
	var out any
	var rule string
	if r.Shape == judge.GradeSchema {
		score, reason := grade(rubric, secs["Answer"])
		out, rule = judge.Grade{Score: score, Reason: Label + ": " + reason}, "grade"
	} else {
		a, _ := grade(rubric, secs["Answer A"])
		b, _ := grade(rubric, secs["Answer B"])
		p := judge.Preference{Winner: "tie", Reason: fmt.Sprintf("%s: A meets %.2f of the rubric, B %.2f", Label, a, b)}
		switch {
		case a > b:
			p.Winner = "A"
		case b > a:
			p.Winner = "B"
		}
		out, rule = p, "prefer"
	}
	text, err := json.Marshal(out)
	if err != nil {
		return llm.Message{}, "", err
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: string(text)}
	if r.Output != llm.OutputJSON {
		// Anthropic: the shape is a forced tool, answered by calling it.
		msg = llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "toolu_judge", Name: r.Shape, Arguments: text}}}
	}
	return msg, rule, nil
}

var (
	// clauseSplit splits a rubric into requirements.
	clauseSplit    = regexp.MustCompile(`[;!?\n]+\s*|[.:]+(?:\s+|$)|,\s+(?:and|but)\s+|\s+and\s+(?:it\s+|the answer\s+)?(?:does|doesn't|must|should|never|gives|names|says|mentions|explains|states|is|has)\b`)
	quoted         = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|'([^']{2,})'|「([^」]+)」|` + "`([^`]+)`")
	number         = regexp.MustCompile(`\d+(?:[.,]\d+)?`)
	rubricNegation = regexp.MustCompile(`(?i)\b(?:not|never|no|without|avoids?|nor|none of|neither)\b|n't\b`)
	word           = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}_\-]*`)
)

// requirement is one clause of a rubric.
type requirement struct {
	text    string
	terms   []string // quoted terms and numbers: each must (or, negated, must not) appear
	words   []string // key words, when there are no terms: at least half must appear (negated: none)
	negated bool
}

// requirements splits a rubric into clauses and reads each.
func requirements(rubric string) []requirement {
	var out []requirement
	for _, c := range clauseSplit.Split(rubric, -1) {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		q := requirement{text: c, negated: rubricNegation.MatchString(c)}
		rest := c
		for _, m := range quoted.FindAllStringSubmatch(c, -1) {
			for _, g := range m[1:] {
				if g != "" {
					q.terms = append(q.terms, g)
				}
			}
			rest = strings.Replace(rest, m[0], " ", 1)
		}
		q.terms = append(q.terms, number.FindAllString(rest, -1)...)
		rest = number.ReplaceAllString(rest, " ")
		for _, w := range word.FindAllString(rest, -1) {
			if keyWord(w) {
				q.words = append(q.words, strings.ToLower(w))
			}
		}
		if len(q.terms) == 0 && len(q.words) == 0 {
			continue
		}
		out = append(out, q)
	}
	return out
}

// keyWord reports whether w carries meaning in a rubric: not a stop word of
// rubric phrasing, and long enough (or not Latin).
func keyWord(w string) bool {
	lw := strings.ToLower(w)
	if judgeStop[lw] {
		return false
	}
	for _, r := range w {
		if r > unicode.MaxLatin1 {
			return true
		}
	}
	return len(lw) >= 4
}

// judgeStop are the words of rubric phrasing that say nothing about what an
// answer must hold.
var judgeStop = wordSet(`answer answers response reply assistant agent user the that this these those with without from into about what which when where whose there their them they than then also only must should does doesn't not never mention mentions mentioned name names named says said state states stated give gives given include includes including contain contains containing explain explains explained clearly clear polite politely friendly briefly short some such each every other least most more less have has been being will would could might make makes made tell tells told show shows shown provide provides provided offer offers correct correctly rather instead like unlike used using uses over under within while both either neither none nothing anything something whether because`)

// wordSet is the set of the space-separated words of s.
func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(s) {
		out[w] = true
	}
	return out
}

// grade scores answer against rubric: the share of requirements met, and
// which were missed.
func grade(rubric, answer string) (float64, string) {
	reqs := requirements(rubric)
	if len(reqs) == 0 {
		return 0, "no requirement could be read from the rubric (no quoted terms, numbers or key words)"
	}
	lower := strings.ToLower(answer)
	words := map[string]bool{}
	for _, w := range word.FindAllString(lower, -1) {
		words[w] = true
	}
	var met int
	var missed []string
	for _, q := range reqs {
		if q.met(lower, words) {
			met++
		} else {
			missed = append(missed, strconv.Quote(q.text))
		}
	}
	score := float64(met) / float64(len(reqs))
	if len(missed) == 0 {
		return score, fmt.Sprintf("all %d requirements of the rubric are met by the answer's words", len(reqs))
	}
	return score, fmt.Sprintf("%d of %d requirements met; missed %s", met, len(reqs), strings.Join(missed, ", "))
}

// met reports whether an answer (lowercased, and its set of words) meets q.
func (q requirement) met(lower string, words map[string]bool) bool {
	found := 0
	for _, t := range q.terms {
		if strings.Contains(lower, strings.ToLower(t)) {
			found++
		}
	}
	hits := 0
	for _, w := range q.words {
		if hasWord(lower, words, w) {
			hits++
		}
	}
	if len(q.terms) > 0 {
		// Quoted terms and numbers are the requirement when a clause has
		// them; its other words only say where they belong.
		if q.negated {
			return found == 0
		}
		return found == len(q.terms)
	}
	if q.negated {
		return hits == 0
	}
	return 2*hits >= len(q.words)
}

// hasWord reports whether the answer holds w, or a word sharing its first
// five letters (explain, explains, explanation), or, for a word in a
// script without spaces, the word as a substring.
func hasWord(lower string, words map[string]bool, w string) bool {
	if words[w] {
		return true
	}
	for _, r := range w {
		if r > unicode.MaxLatin1 {
			return strings.Contains(lower, w)
		}
	}
	if len(w) < 5 {
		return false
	}
	stem := w[:5]
	for aw := range words {
		if strings.HasPrefix(aw, stem) {
			return true
		}
	}
	return false
}
