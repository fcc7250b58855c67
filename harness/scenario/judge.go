package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/judge/prompt"
)

// DefaultMinScore is the score (0 to 1) a rubric must reach when it names
// no min_score.
const DefaultMinScore = 0.7

// Judge is a suite's grader (judge:): the model that grades rubric checks
// and compares variants' answers, and how it is asked.
type Judge struct {
	Endpoint llm.Endpoint
	// Prompt is a text/template that replaces the built-in grading
	// instructions; it sees .Rubric, .Input, .Answer, .Tools and
	// .ToolResults (prompt.Subject), and the loader has parsed it as
	// grading does (prompt.Parse). Empty keeps the built-in one.
	Prompt string
	// Compare is the suite-level comparison rubric of pairwise judging
	// (testbed compare --judge) for scenarios without rubrics of their own.
	Compare string
	// Reasoning, when set, says whether the grader's model reasons before
	// it answers, over what its name says (judge.Thinks): an Azure
	// deployment named otherwise than its model.
	Reasoning *bool
	Line      int
}

// Rubric is one rubric check: a statement about the answer that the
// suite's judge scores from 0 to 1.
type Rubric struct {
	Text     string
	MinScore float64 // pass at this score or above; DefaultMinScore when unset
	Weight   float64 // weight in the turn's rubric score; 1 when unset
	// With names what else the grader sees: "tools" (the calls the agent
	// made, with their arguments) and "tool_results" (what they returned
	// into the agent's context).
	With []string
	// Pass and Fail are labelled example answers: a grader that can be
	// trusted passes the first and fails the second (calibration).
	Pass []string
	Fail []string
	Line int
}

// Sees reports whether the grader is shown what (WithTools, WithToolResults).
func (r Rubric) Sees(what string) bool { return slices.Contains(r.With, what) }

// What a rubric's with: may name.
const (
	WithTools       = "tools"
	WithToolResults = "tool_results"
)

var (
	judgeKeys  = []string{"provider", "base_url", "model", "key_env", "prompt", "compare", "reasoning"}
	rubricKeys = []string{"rubric", "min_score", "weight", "with", "pass", "fail"}
	withKinds  = []string{WithTools, WithToolResults}
)

// judge reads the suite's judge: block.
func (d *decoder) judge(v *yaml.Node) *Judge {
	const at = "judge"
	m, fs, ok := d.mapping(v, at, "a mapping with provider, model, base_url, key_env, prompt, compare and reasoning", judgeKeys...)
	if !ok {
		return nil
	}
	d.require(m, fs, at, "provider", "model")
	j := &Judge{Line: m.Line}
	if f, ok := fs["provider"]; ok {
		// A judge is called through testbed's own clients: none speaks
		// Ollama's native API (an Ollama server's /v1 is openai).
		graders := slices.DeleteFunc(llm.Providers(), func(p string) bool { return p == llm.ProviderOllama })
		j.Endpoint.Provider, _ = d.enum(f.val, join(at, "provider"), graders...)
	}
	if f, ok := fs["model"]; ok {
		j.Endpoint.Model, _ = d.str(f.val, join(at, "model"))
	}
	if f, ok := fs["base_url"]; ok {
		j.Endpoint.BaseURL, _ = d.str(f.val, join(at, "base_url"))
	}
	if f, ok := fs["key_env"]; ok {
		j.Endpoint.KeyEnv, _ = d.str(f.val, join(at, "key_env"))
	}
	if j.Endpoint.BaseURL == "" {
		j.Endpoint.BaseURL = llm.DefaultBaseURL(j.Endpoint.Provider)
	}
	if j.Endpoint.BaseURL == "" && j.Endpoint.Provider == llm.ProviderOpenAI {
		j.Endpoint.BaseURL = llm.OpenAIBaseURL
	}
	if j.Endpoint.BaseURL == "" && j.Endpoint.Provider == llm.ProviderAzure {
		d.errorf(m.Line, at, "missing key \"base_url\" (needed for provider azure: the resource's endpoint, https://<resource>.openai.azure.com)")
	}
	if f, ok := fs["prompt"]; ok {
		if text, ok := d.str(f.val, join(at, "prompt")); ok {
			d.judgePrompt(resolve(f.val), join(at, "prompt"))
			j.Prompt = text
		}
	}
	if f, ok := fs["compare"]; ok {
		if text, ok := d.str(f.val, join(at, "compare")); ok {
			j.Compare = strings.TrimSpace(text)
			if j.Compare == "" {
				d.errorf(resolve(f.val).Line, join(at, "compare"), "empty comparison rubric; say what makes one answer better than the other, or remove it")
			}
		}
	}
	if f, ok := fs["reasoning"]; ok {
		if on, ok := d.boolean(f.val, join(at, "reasoning")); ok {
			j.Reasoning = &on
		}
	}
	return j
}

// judgePrompt parses the template of judge.prompt n as grading parses
// it, and reports each problem at its line: its own line in a literal
// block (|), the prompt's otherwise.
func (d *decoder) judgePrompt(n *yaml.Node, at string) {
	_, err := prompt.Parse(n.Value)
	var ps prompt.Problems
	if !errors.As(err, &ps) {
		return
	}
	for _, p := range ps {
		line := n.Line
		if n.Style == yaml.LiteralStyle {
			line += p.Line
		}
		msg := p.Msg
		if s := suggest(p.Field, prompt.Fields()); p.Field != "" && s != "" {
			msg += fmt.Sprintf("; did you mean .%s?", s)
		}
		d.errorf(line, at, "%s", msg)
	}
}

// rubrics reads expect.rubric: one statement, one mapping, or a list of
// either.
func (d *decoder) rubrics(v *yaml.Node, at string) []Rubric {
	r := resolve(v)
	if r == nil || !d.present(r, at) {
		return nil
	}
	if r.Kind != yaml.SequenceNode {
		if rb, ok := d.rubric(r, at); ok {
			return []Rubric{rb}
		}
		return nil
	}
	if len(r.Content) == 0 {
		d.errorf(r.Line, at, "empty list; write at least one rubric")
		return nil
	}
	var out []Rubric
	for i, item := range r.Content {
		if rb, ok := d.rubric(item, index(at, i)); ok {
			out = append(out, rb)
		}
	}
	return out
}

// rubric reads one rubric: a string, or a mapping with rubric and its
// options.
func (d *decoder) rubric(v *yaml.Node, at string) (Rubric, bool) {
	r := resolve(v)
	rb := Rubric{Line: r.Line, MinScore: DefaultMinScore, Weight: 1}
	if r.Kind == yaml.ScalarNode {
		text, ok := d.str(r, at)
		rb.Text = strings.TrimSpace(text)
		if ok && rb.Text == "" {
			d.errorf(r.Line, at, "empty rubric; say what the answer must do")
			return rb, false
		}
		return rb, ok
	}
	m, fs, ok := d.mapping(r, at, "a rubric: a string, or a mapping with rubric, min_score, weight, with, pass and fail", rubricKeys...)
	if !ok {
		return rb, false
	}
	d.require(m, fs, at, "rubric")
	if f, ok := fs["rubric"]; ok {
		text, _ := d.str(f.val, join(at, "rubric"))
		rb.Text = strings.TrimSpace(text)
		if rb.Text == "" {
			d.errorf(resolve(f.val).Line, join(at, "rubric"), "empty rubric; say what the answer must do")
		}
	}
	if f, ok := fs["min_score"]; ok {
		if m, ok := d.fraction(f.val, join(at, "min_score")); ok && m == 0 {
			// Every grade reaches 0: the check would pass whatever the
			// grader said, as a threshold against itself could only pass.
			d.errorf(resolve(f.val).Line, join(at, "min_score"), "a minimum of 0 passes whatever the grader says, so the rubric could only pass; give a minimum above 0 (the default is %v)", DefaultMinScore)
		} else {
			rb.MinScore = m
		}
	}
	if f, ok := fs["weight"]; ok {
		if w, ok := d.number(f.val, join(at, "weight")); ok {
			if w <= 0 {
				d.errorf(resolve(f.val).Line, join(at, "weight"), "want a weight above 0, got %v", w)
			}
			rb.Weight = w
		}
	}
	if f, ok := fs["with"]; ok {
		names, _ := d.strs(f.val, join(at, "with"), true)
		for _, n := range names {
			if !slices.Contains(withKinds, n) {
				d.errorf(resolve(f.val).Line, join(at, "with"), "%q is not something the grader can see (want %s)", n, strings.Join(withKinds, " or "))
			}
		}
		rb.With = names
	}
	if f, ok := fs["pass"]; ok {
		rb.Pass, _ = d.strs(f.val, join(at, "pass"), true)
	}
	if f, ok := fs["fail"]; ok {
		rb.Fail, _ = d.strs(f.val, join(at, "fail"), true)
	}
	return rb, rb.Text != ""
}

// rubrics are the rubric checks of every turn of the suite, its variants'
// overrides' included.
func (s *Suite) rubrics() []Rubric {
	var out []Rubric
	for _, sc := range s.Scenarios {
		for _, t := range sc.Turns {
			out = append(out, t.Expect.Rubrics...)
			for _, o := range t.Overrides {
				out = append(out, o.Rubrics...)
			}
		}
	}
	return out
}

// needsJudge reports the rubric checks of a suite without a judge: block,
// each at its line.
func (d *decoder) needsJudge(s *Suite) {
	if s.Judge != nil {
		return
	}
	for _, rb := range s.rubrics() {
		d.errorf(rb.Line, "judge", "a rubric check needs the suite's judge: block; add judge: {provider: openai, model: gpt-4o-mini} (docs/judges.md)")
	}
}

// gradedGate refuses, at its key, a gate on rubric_score_mean in a suite
// without a rubric check: nothing is graded for it to hold, so every run
// would fail it, after a bless that could not tell.
func (d *decoder) gradedGate(s *Suite, gate *yaml.Node) {
	const metric = "rubric_score_mean"
	if _, ok := s.Gate[metric]; !ok || len(s.rubrics()) > 0 {
		return
	}
	g := resolve(gate)
	line := g.Line
	for i := 0; i+1 < len(g.Content); i += 2 {
		if g.Content[i].Value == metric {
			line = g.Content[i].Line
		}
	}
	d.errorf(line, "gate."+metric, "no scenario of the suite has a rubric check, so the gate would hold %s over nothing and fail every run; add rubric: checks (docs/judges.md) or leave %s out of gate:", metric, metric)
}

// Graded reports whether any turn of sc has rubric checks under variant:
// then its grader calls have a cassette of their own.
func (sc Scenario) Graded(variant string) bool {
	for _, t := range sc.Turns {
		if len(t.ExpectFor(variant).Rubrics) > 0 {
			return true
		}
	}
	return false
}
