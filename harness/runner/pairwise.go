package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/judge"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// ErrPairwiseMissing is the error of a pairwise judging whose recorded
// grades lack some pairs: re-grade them.
var ErrPairwiseMissing = errors.New("pairwise grading not recorded")

// PairwisePath is where the grader's calls comparing variants base and
// head on scenario id live: beside the suite's cassette folder, in
// cassettes/<suite>.pairwise/<base>.vs.<head>/<id>.yaml, so that a replay of
// the suite never counts them as its own.
func PairwisePath(root, suite, base, head, id string) string {
	return filepath.Join(root, "cassettes", suite+".pairwise", base+".vs."+head, id+".yaml")
}

// Pairwise asks the suite's judge, per scenario that both variants of a
// replayed report answered, which answer (of the last turn) better meets
// the scenario's rubrics (joined), or else the suite's comparison rubric
// (judge.compare), once with each answer shown first. In ModeReplay the
// grades come from the pairwise cassettes; in ModeRecordMissing the missing
// ones are asked of the grader (opts.Routes, the stand-in judge, unless
// opts.Judge names a real one).
func Pairwise(ctx context.Context, s *scenario.Suite, base, head *report.Variant, opts Options) (*report.Pairwise, error) {
	if s.Judge == nil {
		return nil, fmt.Errorf("suite %s has no judge: block; add one to judge its variants pairwise (docs/judges.md)", s.Name)
	}
	jd := *s.Judge
	standIn := opts.Judge == nil
	routes := opts.Routes
	if opts.JudgeRoutes != nil {
		routes = opts.JudgeRoutes
	}
	if opts.Judge != nil {
		jd.Endpoint, routes = *opts.Judge, map[string]string{}
	}
	ep := jd.Endpoint
	// The suite's detector, as for its agent's cassettes: the answers
	// judged hold what the agent was given.
	detector, err := Detector([]*scenario.Suite{s}, append(literals(opts), KeyValues(opts.Agents)...), KeyVariables(opts.Agents))
	if err != nil {
		return nil, err
	}
	prices, err := pricer(s, opts)
	if err != nil {
		return nil, err
	}
	heads := map[string]report.Scenario{}
	for _, sc := range head.Scenarios {
		heads[sc.ID] = sc
	}
	out := &report.Pairwise{Rows: []report.PairRow{}}
	var tally judge.Tally
	regrade := fmt.Sprintf("testbed compare --suite %s --base %s --head %s --judge --record-missing", s.Name, base.Name, head.Name)
	if opts.Root != "" && filepath.Clean(opts.Root) != "." {
		regrade += " --root " + opts.Root // a project of its own: the command must name it
	}
	var missing, unruled []string
	corrupt := false
	for _, b := range base.Scenarios {
		h, ok := heads[b.ID]
		sc, known := scenarioByID(s, b.ID)
		switch {
		case !ok || !known:
			continue
		case len(b.Answer) == 0 || len(h.Answer) == 0:
			out.Skipped = append(out.Skipped, fmt.Sprintf("%s: a variant gave no answer (%s, %s)", b.ID, b.Verdict, h.Verdict))
			continue
		}
		rubric := pairRubric(sc, base.Name, head.Name, jd.Compare)
		if rubric == "" {
			unruled = append(unruled, b.ID)
			continue
		}
		path := PairwisePath(opts.Root, s.Name, base.Name, head.Name, b.ID)
		copts := cassette.Options{
			Real:       &routing{hosts: routes, mode: opts.Mode, network: opts.Judge != nil},
			Provenance: cassette.Provenance{Provider: ep.Provider, Endpoint: ep.BaseURL, Model: ep.Model, StandIn: standIn, Role: cassette.RoleJudge},
			Rerecord:   regrade, Secrets: literals(opts), Detector: detector, Within: opts.Root,
		}
		tp, err := cassette.Open(opts.Mode, path, copts)
		if errors.Is(err, cassette.ErrMixed) {
			// Graded by another judge: the pair is judged again whole.
			tp, err = cassette.Open(cassette.ModeRecord, path, copts)
		}
		if errors.Is(err, cassette.ErrNotFound) {
			missing = append(missing, b.ID)
			continue
		}
		if errors.Is(err, cassette.ErrCorrupt) || errors.Is(err, cassette.ErrVersion) {
			// Never overwritten: the user deletes it, and it is graded again.
			missing = append(missing, fmt.Sprintf("%s (%v)", b.ID, err))
			corrupt = true
			continue
		}
		if err != nil {
			return nil, err
		}
		if p, ok := tp.Provenance(); ok && opts.Mode == cassette.ModeReplay {
			standIn = p.StandIn
		}
		key := opts.Secrets[keyEnv(ep.Provider, ep.KeyEnv)]
		if key == "" {
			key = cassette.PlaceholderKey
		}
		g, err := judge.New(ctx, ep, key, &http.Client{Transport: timeouts{next: tp}}, "", graderOptions(jd, opts.Judge != nil)...)
		if err != nil {
			tp.Abort()
			return nil, err
		}
		input := strings.Join(turnInputs(sc), "\n")
		ba, ha := b.Answer[len(b.Answer)-1], h.Answer[len(h.Answer)-1]
		first, u1, err1 := g.Prefer(ctx, judge.Pair{Rubric: rubric, Input: input, A: ba, B: ha})
		swapped, u2, err2 := g.Prefer(ctx, judge.Pair{Rubric: rubric, Input: input, A: ha, B: ba})
		out.Calls += 2
		for _, u := range []llm.Usage{u1, u2} {
			out.InputTokens += u.InputTokens
			out.OutputTokens += u.OutputTokens
			if usd, ok := prices.Estimate(ep.Provider, ep.Model, u.InputTokens, u.OutputTokens); ok {
				out.CostUSD += usd
			} else {
				out.Unpriced = true
			}
		}
		err = errors.Join(err1, err2)
		if err != nil && !refused(err1, err2) {
			tp.Abort()
			if errors.Is(err, cassette.ErrStale) {
				missing = append(missing, b.ID+" (its answers, rubric or judge changed)")
				continue
			}
			return nil, fmt.Errorf("pairwise %s: %w", b.ID, err)
		}
		if err := tp.Close(); err != nil {
			return nil, err
		}
		o := judge.Combine(first, swapped)
		if err != nil {
			// A grade that does not parse decides nothing: counted apart,
			// as the two orders disagreeing are.
			o = judge.OutcomeInconsistent
			first.Reason, swapped.Reason = refusal(first.Reason, err1), refusal(swapped.Reason, err2)
		}
		tally.Add(o)
		out.Rows = append(out.Rows, report.PairRow{ID: b.ID, Rubric: rubric, Outcome: string(o), BaseFirst: first.Reason, HeadFirst: swapped.Reason, Base: ba, Head: ha})
	}
	if len(unruled) > 0 {
		out.Skipped = append(out.Skipped, fmt.Sprintf("%d scenarios have no rubric, and the suite's judge no compare: rubric (%s)", len(unruled), strings.Join(unruled, ", ")))
	}
	if len(missing) > 0 {
		how := "grade them with: "
		if corrupt {
			how = "delete the corrupt cassettes, then grade them with: "
		}
		return nil, fmt.Errorf("%w for %s; %s%s", ErrPairwiseMissing, strings.Join(missing, ", "), how, regrade)
	}
	out.Grader = graderName(ep.Provider, ep.Model, standIn)
	out.StandIn = standIn
	out.Wins, out.Losses, out.Ties, out.Inconsistent = tally.Wins, tally.Losses, tally.Ties, tally.Inconsistent
	if tally.Decided() > 0 {
		rate := tally.WinRate()
		low, high := judge.Wilson(tally.Wins, tally.Decided(), judge.Z95)
		out.WinRate, out.Low, out.High = &rate, &low, &high
	}
	return out, nil
}

// pairRubric is what a pair of answers is compared on: the scenario's
// rubrics of its last turn (the base variant's, then the head's when they
// differ), or else the suite's comparison rubric.
func pairRubric(sc scenario.Scenario, base, head, compare string) string {
	last := sc.Turns[len(sc.Turns)-1]
	var texts []string
	for _, v := range []string{base, head} {
		for _, r := range last.ExpectFor(v).Rubrics {
			if !slices.Contains(texts, r.Text) {
				texts = append(texts, r.Text)
			}
		}
	}
	if len(texts) == 0 {
		return compare
	}
	return strings.Join(texts, "\n")
}

// scenarioByID finds a suite's scenario.
func scenarioByID(s *scenario.Suite, id string) (scenario.Scenario, bool) {
	for _, sc := range s.Scenarios {
		if sc.ID == id {
			return sc, true
		}
	}
	return scenario.Scenario{}, false
}

// refused reports whether the grader's answers in errs that failed all
// failed to parse (judge.ErrUnparsable), and one did.
func refused(errs ...error) bool {
	some := false
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, judge.ErrUnparsable):
			some = true
		default:
			return false
		}
	}
	return some
}

// refusal is the reason shown for one order's grade: err's, when it did
// not parse.
func refusal(reason string, err error) string {
	if err != nil {
		return "refused: " + err.Error()
	}
	return reason
}
