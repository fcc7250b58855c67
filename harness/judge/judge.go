// Package judge asks a grader model to score an answer against a rubric
// (Grader.Grade) or to say which of two answers meets it better
// (Grader.Prefer), through the official SDK of its provider and with the
// provider's structured output, so that the grade has one fixed JSON shape.
//
// It sends every request through the *http.Client it is given: the runner
// gives it a cassette session, so grading is recorded and replayed like any
// model call. It does not decide pass or fail (package runner compares a
// score with the rubric's min_score) and never retries: an answer that
// does not parse is an error that says so.
package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/judge/prompt"
)

// The names of the grader's two output shapes: the json_schema name (OpenAI),
// the forced tool's name (Anthropic) and the schema's title (Gemini). The
// stand-in judge recognises a grading request by them.
const (
	GradeSchema  = "testbed_grade"
	PreferSchema = "testbed_preference"
)

// Grade is a grader's score of one answer against one rubric.
type Grade struct {
	Score  float64 `json:"score"` // from 0 (fails the rubric) to 1 (meets it fully)
	Reason string  `json:"reason"`
}

// Preference is a grader's choice between two answers, as labelled in the
// request: "A", "B" or "tie".
type Preference struct {
	Winner string `json:"winner"`
	Reason string `json:"reason"`
}

// Subject is what a grader is shown, and what a judge: prompt template
// sees.
type Subject = prompt.Subject

// Pair is what a grader comparing two answers is shown.
type Pair struct {
	Rubric string
	Input  string
	A, B   string
}

// ErrUnparsable is the error of a grader's answer that is not the fixed
// JSON shape.
var ErrUnparsable = errors.New("the grader's answer does not parse")

// gradeSchema is the JSON Schema of Grade, strict-mode ready: every
// property required, no others allowed.
func gradeSchema() map[string]any {
	return map[string]any{
		"type":  "object",
		"title": GradeSchema,
		"properties": map[string]any{
			"score":  map[string]any{"type": "number", "description": "from 0 (the answer fails the rubric) to 1 (it meets it fully)"},
			"reason": map[string]any{"type": "string", "description": "one or two sentences: what in the answer meets or misses the rubric"},
		},
		"required":             []string{"score", "reason"},
		"additionalProperties": false,
	}
}

// preferSchema is the JSON Schema of Preference.
func preferSchema() map[string]any {
	return map[string]any{
		"type":  "object",
		"title": PreferSchema,
		"properties": map[string]any{
			"winner": map[string]any{"type": "string", "enum": []string{"A", "B", "tie"}, "description": "the answer that better meets the rubric, or tie"},
			"reason": map[string]any{"type": "string", "description": "one or two sentences: why"},
		},
		"required":             []string{"winner", "reason"},
		"additionalProperties": false,
	}
}

// parseGrade reads a grader's answer into a Grade, refusing anything
// outside the shape.
func parseGrade(text string) (Grade, error) {
	var g Grade
	if err := strictDecode(text, &g, "score", "reason"); err != nil {
		return g, err
	}
	if g.Score < 0 || g.Score > 1 {
		return g, fmt.Errorf("%w: score %v is outside 0 to 1: %s", ErrUnparsable, g.Score, quote(text))
	}
	return g, nil
}

// parsePreference reads a grader's answer into a Preference.
func parsePreference(text string) (Preference, error) {
	var p Preference
	if err := strictDecode(text, &p, "winner", "reason"); err != nil {
		return p, err
	}
	if p.Winner != "A" && p.Winner != "B" && p.Winner != "tie" {
		return p, fmt.Errorf("%w: winner %q is not A, B or tie: %s", ErrUnparsable, p.Winner, quote(text))
	}
	return p, nil
}

// strictDecode decodes text into v, requiring exactly the keys named, each
// with a value, and each once: a null would decode as the zero value (a
// score of 0), a grade the grader never gave, and of a repeated key the
// last would win, a grade the grader gave and took back.
func strictDecode(text string, v any, keys ...string) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &raw); err != nil {
		return fmt.Errorf("%w: not a JSON object: %s", ErrUnparsable, quote(text))
	}
	if k := repeatedKey(text); k != "" {
		return fmt.Errorf("%w: %q is repeated, so which value is the answer is ambiguous: %s", ErrUnparsable, k, quote(text))
	}
	for _, k := range keys {
		switch val, ok := raw[k]; {
		case !ok:
			return fmt.Errorf("%w: no %q: %s", ErrUnparsable, k, quote(text))
		case string(val) == "null":
			return fmt.Errorf("%w: %q is null: %s", ErrUnparsable, k, quote(text))
		}
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v: %s", ErrUnparsable, err, quote(text))
	}
	return nil
}

// repeatedKey is the first key of the JSON object text that an earlier key
// repeats, in any case (encoding/json matches a field's name so), or "".
func repeatedKey(text string) string {
	dec := json.NewDecoder(strings.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var seen []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := t.(string)
		if slices.ContainsFunc(seen, func(s string) bool { return strings.EqualFold(s, key) }) {
			return key
		}
		seen = append(seen, key)
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return ""
		}
	}
	return ""
}

// quote quotes up to 200 bytes of a grader's answer.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// gradeInstructions is the built-in system prompt of a grading request.
const gradeInstructions = `You grade one answer of an AI assistant against a rubric.
Read the user's input, the answer, and anything else shown, then score how well the answer meets the rubric:
1 when it meets it fully, 0 when it fails it, in between when it meets part of it.
Judge only what the rubric asks. Reply in the given JSON shape: a score and a short reason.`

// preferInstructions is the built-in system prompt of a pairwise request.
const preferInstructions = `You compare two answers of AI assistants to the same input against a rubric.
Say which answer, A or B, better meets the rubric, or tie when neither does better.
The order of the answers says nothing about their quality. Reply in the given JSON shape: a winner and a short reason.`

// messages are the system and user messages of a grading request: the
// built-in instructions and the subject in labelled sections, or, with a
// prompt template, the template's text as the one user message.
func gradeMessages(text string, s Subject) ([]llm.Message, error) {
	if text != "" {
		var b strings.Builder
		t, err := prompt.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("judge prompt: %w", err)
		}
		if err := t.Execute(&b, s); err != nil {
			return nil, fmt.Errorf("judge prompt: %w", err)
		}
		return []llm.Message{{Role: llm.RoleUser, Content: b.String()}}, nil
	}
	var b strings.Builder
	section(&b, "Rubric", s.Rubric)
	section(&b, "Input", s.Input)
	section(&b, "Tool calls", s.Tools)
	section(&b, "Tool results", s.ToolResults)
	section(&b, "Answer", s.Answer)
	return []llm.Message{{Role: llm.RoleSystem, Content: gradeInstructions}, {Role: llm.RoleUser, Content: strings.TrimSpace(b.String())}}, nil
}

// preferMessages are the messages of a pairwise request.
func preferMessages(p Pair) []llm.Message {
	var b strings.Builder
	section(&b, "Rubric", p.Rubric)
	section(&b, "Input", p.Input)
	section(&b, "Answer A", p.A)
	section(&b, "Answer B", p.B)
	return []llm.Message{{Role: llm.RoleSystem, Content: preferInstructions}, {Role: llm.RoleUser, Content: strings.TrimSpace(b.String())}}
}

// section writes "## title" and text, when text is not empty.
func section(b *strings.Builder, title, text string) {
	if text == "" {
		return
	}
	fmt.Fprintf(b, "## %s\n%s\n\n", title, text)
}
