package main

import (
	"context"
	"errors"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// comparePairwise judges base's and head's answers pair by pair with the
// suite's judge: from the pairwise cassettes, or, with regrade, grading
// the pairs they lack against the stand-in judge.
func comparePairwise(ctx context.Context, root string, s *scenario.Suite, base, head *report.Variant, regrade bool, entries map[string]agents.Entry) (*report.Pairwise, error) {
	if s.Judge == nil {
		return nil, withCode(exitUsage, errors.New("suite "+s.Name+" has no judge: block; add one to judge its variants pairwise (docs/judges.md)"))
	}
	opts := runner.Options{Mode: cassette.ModeReplay, Root: root}
	if regrade {
		release, err := lockSuites(root, []*scenario.Suite{s})
		if err != nil {
			return nil, err
		}
		defer release()
		sis, err := runner.StartStandIns(root, map[string]agents.Entry{}, true, false)
		if err != nil {
			return nil, withCode(exitInternal, err)
		}
		defer sis.Close()
		if err := sis.RouteJudges([]*scenario.Suite{s}); err != nil {
			return nil, withCode(exitUsage, err)
		}
		opts.Mode, opts.JudgeRoutes = cassette.ModeRecordMissing, sis.Judges
		opts.Redact = runner.KeyValues(entries)
	}
	pw, err := runner.Pairwise(ctx, s, base, head, opts)
	if errors.Is(err, runner.ErrPairwiseMissing) {
		return nil, withCode(exitStale, err)
	}
	if err != nil {
		return nil, withCode(exitInternal, err)
	}
	return pw, nil
}
