package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/judge"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/trace"
)

// toolResults keeps what the agent's tools were called with and put into
// its context, by turn, for a grader shown them. The zero value is ready
// and a nil one keeps nothing.
type toolResults struct {
	mu    sync.Mutex
	turn  int
	calls []toolResult
}

type toolResult struct {
	turn    int
	name    string
	args    json.RawMessage
	context string
	err     string
}

func (t *toolResults) add(name string, args json.RawMessage, context string, err error) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := toolResult{turn: t.turn, name: name, args: args, context: context}
	if err != nil {
		r.err = err.Error()
	}
	t.calls = append(t.calls, r)
}

func (t *toolResults) setTurn(n int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.turn = n
	t.mu.Unlock()
}

// of returns the tool calls and the tool results of turn n, one a line.
func (t *toolResults) of(n int, events []trace.Event) (calls, results string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var c, r []string
	for _, tr := range t.calls {
		if tr.turn != n {
			continue
		}
		c = append(c, fmt.Sprintf("%s %s", tr.name, tr.args))
		res := tr.context
		if tr.err != "" {
			res = "error: " + tr.err
		}
		r = append(r, fmt.Sprintf("%s: %s", tr.name, res))
	}
	if len(c) == 0 {
		// An agent testbed only sees from outside: its tool calls as traced.
		for _, e := range trace.OfTurn(events, n) {
			if e.Kind == trace.KindTool && e.Tool != nil {
				c = append(c, fmt.Sprintf("%s %s", e.Tool.Name, e.Tool.Args))
			}
		}
	}
	return strings.Join(c, "\n"), strings.Join(r, "\n")
}

// graderStale is a grading request the grader's cassette has no match for:
// why (the answer, the rubric or the judge's request changed) and how to
// re-grade.
type graderStale struct {
	msg  string
	miss error
	fix  string // the command that re-grades
}

func (e *graderStale) Error() string { return e.msg }
func (e *graderStale) Unwrap() error { return e.miss }

// judgeEndpoint is the grader of the run: the suite's judge, or the one
// the run replaces it with (Options.Judge).
func (r *sampleRun) judgeEndpoint() scenario.Judge {
	j := *r.j.suite.Judge
	if r.opts.Judge != nil {
		j.Endpoint = *r.opts.Judge
	}
	return j
}

// graderOptions are how a grader of the suite's judge jd asks: whether its
// model reasons, when the suite says so, unless the run replaced the
// suite's grader with its own (Options.Judge), whose name says it.
func graderOptions(jd scenario.Judge, replaced bool) []judge.Option {
	if jd.Reasoning == nil || replaced {
		return nil
	}
	return []judge.Option{judge.Reasoning(*jd.Reasoning)}
}

// grade runs the rubric checks of every turn through the suite's judge,
// over the scenario's grader cassette (cassette.JudgePath), in the run's
// mode. The grader's calls stay out of the agent's trace; their tokens and
// cost (priced as the judge's model) go to out.Grading, and count against
// --max-cost. A run that did not complete is not graded: its verdict
// already says why.
func (r *sampleRun) grade(ctx context.Context) {
	j := r.j
	type item struct {
		turn, index int
		rubric      scenario.Rubric
	}
	var items []item
	for i, t := range j.scenario.Turns {
		for k, rb := range t.ExpectFor(j.variant.Name).Rubrics {
			items = append(items, item{turn: i, index: k, rubric: rb})
		}
	}
	if len(items) == 0 || j.suite.Judge == nil || r.stale != nil || r.err != nil || r.closeErr != nil || len(r.ans.Replies) != len(j.scenario.Turns) {
		return
	}
	jd := r.judgeEndpoint()
	ep := jd.Endpoint
	path := cassette.JudgePath(r.opts.Root, j.suite.Name, j.variant.Name, j.scenario.ID, r.sample)
	standIn := r.opts.Judge == nil && r.opts.Mode != cassette.ModeReplay
	routes := r.opts.Routes
	if r.opts.JudgeRoutes != nil {
		routes = r.opts.JudgeRoutes
	}
	if r.opts.Judge != nil {
		routes = map[string]string{} // a real grader: nothing routed to a stand-in
	}
	regrade := r.copts.Rerecord + " --record-missing"
	// What grades the cassette again whole: --record-missing keeps a
	// cassette it has nothing to add to as it is.
	regradeWhole := "rm " + path + " && " + regrade
	var real http.RoundTripper = &routing{hosts: routes, mode: r.opts.Mode, network: r.opts.Judge != nil}
	if r.opts.Budget != nil && r.opts.Mode != cassette.ModeReplay {
		// The grader's calls count against --max-cost as the agent's do.
		r.graderGuard = &guard{next: real, budget: r.opts.Budget, pricer: j.pricer, provider: ep.Provider, model: ep.Model,
			onRefuse: func() { r.failed.Store(true) }}
		real = r.graderGuard
	}
	fail := func(err error) {
		r.err = fmt.Errorf("grading with %s: %w", graderName(ep.Provider, ep.Model, standIn), err)
	}
	// The suite's detector, as for the agent's cassette, with what it
	// learnt where the agent sent it (a credential header's value): the
	// grader is sent the agent's answers, which may quote it.
	detector, err := j.detector.Learned()
	if err != nil {
		fail(err)
		return
	}
	copts := cassette.Options{
		Real:       real,
		Provenance: cassette.Provenance{Provider: ep.Provider, Endpoint: ep.BaseURL, Model: ep.Model, StandIn: standIn, Role: cassette.RoleJudge},
		Rerecord:   regrade,
		Secrets:    literals(r.opts),
		Detector:   detector,
		Match:      j.suite.Match,
		Within:     r.opts.Root,
	}
	tp, err := cassette.Open(r.opts.Mode, path, copts)
	whole := false
	if errors.Is(err, cassette.ErrMixed) {
		// The judge itself changed (its model, provider or endpoint): its
		// grades depend on nothing the agent's cassette holds, so they are
		// graded again whole, and written with the agent's or not at all.
		tp, err = cassette.Open(cassette.ModeRecord, path, copts)
		whole = true
	}
	if err != nil {
		switch {
		case errors.Is(err, cassette.ErrNotFound):
			r.stale = &graderStale{msg: fmt.Sprintf("grader cassette %s is missing: the rubric checks were never graded; grade them with: %s", rel(r.opts.Root, path), regrade), miss: err, fix: regrade}
		case errors.Is(err, cassette.ErrCorrupt), errors.Is(err, cassette.ErrVersion):
			// A fault of the cassettes, as the agent's corrupt cassette is;
			// never overwritten (as a pairwise one is not): deleted, it is
			// graded again.
			r.stale = &graderStale{msg: fmt.Sprintf("%v; delete it, then grade again: %s", err, regradeWhole), miss: err, fix: regradeWhole}
		default:
			fail(err)
		}
		return
	}
	if p, ok := tp.Provenance(); ok && r.opts.Mode == cassette.ModeReplay {
		standIn = p.StandIn
	}
	key := r.opts.Secrets[keyEnv(ep.Provider, ep.KeyEnv)]
	if key == "" && (r.opts.Mode == cassette.ModeReplay || r.opts.Judge == nil) {
		key = cassette.PlaceholderKey
	}
	g, err := judge.New(ctx, ep, key, &http.Client{Transport: timeouts{next: tp}}, jd.Prompt, graderOptions(jd, r.opts.Judge != nil)...)
	if err != nil {
		tp.Abort()
		fail(err)
		return
	}
	cost := &report.Grading{Grader: graderName(ep.Provider, ep.Model, standIn), StandIn: standIn, Provider: ep.Provider, Model: ep.Model}
	var checks []report.Check
	var score, weights float64
	events := r.tr.Events()
	input := strings.Join(turnInputs(j.scenario), "\n")
	n := 0 // the grader calls made, in order
	// ask grades s, counting its cost; false when grading cannot go on
	// (the verdict is then set).
	ask := func(s judge.Subject, name string, turn int, what string) (judge.Grade, error, bool) {
		gr, u, err := g.Grade(ctx, s)
		cost.Calls++
		cost.InputTokens += u.InputTokens
		cost.OutputTokens += u.OutputTokens
		cost.Usage = append(cost.Usage, trace.Usage{Input: u.InputTokens, Output: u.OutputTokens}) // to price it again
		if usd, ok := j.pricer.Estimate(ep.Provider, ep.Model, u.InputTokens, u.OutputTokens); ok {
			cost.CostUSD += usd
			r.gradeSpent += usd
		} else {
			cost.Unpriced = true
		}
		n++
		var miss *cassette.MissError
		switch {
		case errors.As(err, &miss):
			tp.Abort()
			r.stale = &graderStale{msg: staleGrade(path, n-1, name, turn, s, what, miss, r.opts.Root, regrade), miss: miss, fix: regrade}
			return gr, err, false
		case err != nil && !errors.Is(err, judge.ErrUnparsable):
			tp.Abort()
			fail(err)
			return gr, err, false
		}
		return gr, err, true
	}
	for _, it := range items {
		s := judge.Subject{Rubric: it.rubric.Text, Input: input, Answer: r.ans.Replies[it.turn].Text}
		calls, results := r.results.of(it.turn, events)
		if it.rubric.Sees(scenario.WithTools) {
			s.Tools = calls
		}
		if it.rubric.Sees(scenario.WithToolResults) {
			s.ToolResults = results
		}
		name := fmt.Sprintf("rubric[%d]", it.index)
		gr, err, ok := ask(s, name, it.turn, "answer")
		if !ok {
			return
		}
		if !r.calibrate(ask, it.rubric, input, name, it.turn, cost) {
			return
		}
		if err != nil {
			checks = append(checks, report.Check{Turn: it.turn, Name: name, Judged: true, Detail: fmt.Sprintf("refused: %v", err)})
			continue
		}
		reason := gr.Reason
		if !standIn {
			reason = cost.Grader + ": " + reason
		}
		d := fmt.Sprintf("score %.2f (min %.2f), %s", gr.Score, it.rubric.MinScore, reason)
		checks = append(checks, report.Check{Turn: it.turn, Name: name, Pass: gr.Score >= it.rubric.MinScore, Judged: true, Detail: d, Score: &gr.Score})
		score += gr.Score * it.rubric.Weight
		weights += it.rubric.Weight
	}
	if tp.Recording() {
		if uerr := tp.Unanswered(); uerr != nil {
			tp.Abort()
			fail(uerr)
			return
		}
	}
	// Staged, not written: the grades are written with the agent's
	// cassette (save), or neither is.
	write, err := tp.Stage()
	if err != nil {
		fail(err)
		return
	}
	r.writeGrades = write
	r.gradesRecorded = tp.Recorded()
	if whole {
		r.gradesRecorded = n // every grader call was recorded again
	}
	if un := tp.Unplayed(); len(un) > 0 {
		checks = append(checks, report.Check{Name: "judge.unplayed", Detail: fmt.Sprintf(
			"%d recorded grader calls were not replayed (first: %s): the scenario has fewer rubric checks or labelled examples than were graded; grade it again whole with: %s", len(un), un[0], regradeWhole)})
	}
	if weights > 0 {
		cost.Score = score / weights
	}
	r.graded, r.out.Grading = checks, cost
}

// staleGrade says why grading call n (0-based) has no recorded match: the
// answer changed (what says which: the agent's answer, or a labelled
// example of the rubric; the rubric was graded before), the rubric changed
// (with what it was), or the judge's request itself changed.
func staleGrade(path string, n int, name string, turn int, s judge.Subject, what string, miss *cassette.MissError, root, regrade string) string {
	at := fmt.Sprintf("grader call %d (%s) in %s", n+1, report.Check{Turn: turn, Name: name}.Label(), rel(root, path))
	bodies, _ := cassette.RequestBodies(path)
	var sameRubric, same bool
	var old string
	for i, b := range bodies {
		secs, ok := judge.Recorded(b)
		if !ok {
			continue
		}
		if i == n {
			old = secs["Rubric"]
		}
		if secs["Rubric"] == s.Rubric {
			sameRubric = true
			same = same || secs["Answer"] == s.Answer
		}
	}
	switch {
	case same:
		diag := *miss
		diag.Rerecord = "" // the re-grade command ends the message, once
		return fmt.Sprintf("stale grading: the judge's request changed (its prompt, model or what it is shown), not the rubric or the answer: %s has no match:\n%s\nre-grade with: %s", at, diag.Error(), regrade)
	case sameRubric:
		return fmt.Sprintf("stale grading: the %s changed: %s has no recorded grade for the new %s %s; re-grade with: %s", what, at, what, strconv.Quote(cut(s.Answer, 120)), regrade)
	case old != "":
		return fmt.Sprintf("stale grading: the rubric changed: %s:\n  - %s\n  + %s\nre-grade with: %s", at, old, s.Rubric, regrade)
	}
	return fmt.Sprintf("stale grading: the rubric is new: %s was never graded; grade it with: %s", at, regrade)
}

// graderName names a grader in reports.
func graderName(provider, model string, standIn bool) string {
	if standIn {
		return standin.JudgeLabel
	}
	return provider + " " + model
}

// keyEnv is the variable a judge's key is read from.
func keyEnv(provider, named string) string {
	if named != "" {
		return named
	}
	return map[string]string{"openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "azure": "AZURE_OPENAI_API_KEY"}[provider]
}

// turnInputs are the scenario's user turns.
func turnInputs(sc scenario.Scenario) []string {
	var out []string
	for _, t := range sc.Turns {
		out = append(out, t.Input)
	}
	return out
}

// rel is path relative to root, with forward slashes.
func rel(root, path string) string {
	if p, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(p)
	}
	return path
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// calibrate grades the rubric's labelled examples (pass:, fail:) with the
// same grader, after the answer, and counts the grader's agreement with
// the labels in cost; false when grading cannot go on.
func (r *sampleRun) calibrate(ask func(judge.Subject, string, int, string) (judge.Grade, error, bool), rb scenario.Rubric, input, name string, turn int, cost *report.Grading) bool {
	for _, ex := range []struct {
		answers []string
		pass    bool
	}{{rb.Pass, true}, {rb.Fail, false}} {
		for _, a := range ex.answers {
			gr, err, ok := ask(judge.Subject{Rubric: rb.Text, Input: input, Answer: a}, name, turn, "labelled example")
			if !ok {
				return false
			}
			if cost.Calibration == nil {
				cost.Calibration = &report.Calibration{}
			}
			cost.Calibration.Add(ex.pass, err == nil && gr.Score >= rb.MinScore)
		}
	}
	return true
}
