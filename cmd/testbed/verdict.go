package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
)

// verdict maps a report to an exit: nothing judged is bad usage; an
// unreadable cassette beats stale, which beats failed. A suite with gating:
// false fails the run only by its stale, missing or unreadable cassettes.
func verdict(rep *report.Report) error {
	stale, failed, unreadable := 0, 0, 0
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				if sc.Unreadable {
					unreadable++
				}
				switch {
				case sc.Verdict == report.VerdictStale:
					// A stale or missing cassette is never a finding kept
					// on purpose: gating: false does not hide it.
					stale++
				case sc.Verdict != report.VerdictPass && !s.NotGating && !sc.Known:
					// A known failure of the baseline is listed in the
					// verdict line, not failed.
					failed++
				}
			}
			if s.NotGating {
				// gating: false: its failures and thresholds are reported,
				// counted apart in the verdict line, never failing the run.
				continue
			}
			for _, t := range v.Thresholds {
				if !t.Pass && !t.Known {
					failed++
				}
			}
		}
	}
	unused := 0
	if rep.Replay != nil {
		unused = len(rep.Replay.UnusedCassettes)
	}
	switch {
	case rep.Runs() == 0:
		return withCode(exitUsage, errors.New("nothing was judged: the selection holds no scenario run; see testbed list"))
	case unreadable > 0:
		return withCode(exitInternal, fmt.Errorf("%d cassettes could not be read (see the errors above); restore them from git or re-record them", unreadable))
	case unused > 0 && stale == 0 && failed == 0:
		return withCode(exitFailed, fmt.Errorf("%d cassettes belong to no scenario: %v", unused, rep.Replay.UnusedCassettes))
	case stale > 0:
		return withCode(exitStale, fmt.Errorf("%d scenario runs have stale or missing cassettes; re-record or re-grade them as each error above says", stale))
	case failed > 0:
		return withCode(exitFailed, fmt.Errorf("%d scenario runs or thresholds failed", failed))
	}
	return nil
}

// recordVerdict is verdict for a recording: when every scenario was
// recorded (none errored) but some fail their expectations or thresholds,
// the cassettes are written and good to replay, so the exit is
// exitRecordedFailing, not exitFailed, and the message counts both.
func recordVerdict(rep *report.Report, mode cassette.Mode) error {
	if err := leaked(rep); err != nil {
		return err
	}
	if err := noPolicy(rep); err != nil {
		return err
	}
	if runs, first := failedRuns(rep, cassette.WriteCause); len(runs) > 0 {
		return withCode(exitInternal, fmt.Errorf("%d scenario runs were recorded but not written (%s): %s", len(runs), strings.Join(capped(runs), ", "), first))
	}
	err := verdict(rep)
	var ee *exitError
	if mode != cassette.ModeRecord && mode != cassette.ModeRecordMissing || !errors.As(err, &ee) || ee.code != exitFailed {
		return err
	}
	failing, thresholds := 0, 0
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				switch sc.Verdict {
				case report.VerdictError:
					return err // a failed recording is a failure
				case report.VerdictFail:
					failing++
				}
			}
			for _, t := range v.Thresholds {
				if !t.Pass {
					thresholds++
				}
			}
		}
	}
	fail := func(n int, noun string) string {
		if n == 1 {
			return "1 " + noun + " fails"
		}
		return report.Count(n, noun) + " fail"
	}
	msg := fmt.Sprintf("recorded %s; %s the expectations", report.Count(recorded(rep), "cassette"), fail(failing, "scenario"))
	if mode == cassette.ModeRecordMissing {
		msg = fmt.Sprintf("recorded what the cassettes lacked; %s the expectations", fail(failing, "scenario"))
	}
	if thresholds > 0 {
		msg += " and " + fail(thresholds, "threshold")
	}
	return withCode(exitRecordedFailing, fmt.Errorf("%s; the cassettes are written: fix the agent or the expectations, then replay with: testbed run", msg))
}

// leaked is exitLeak's error when the scan of what recording was about to
// write found secrets for some scenario runs (their error starts
// cassette.LeakCause): nothing was written for them, and the message
// quotes the first one's findings, file:line each.
func leaked(rep *report.Report) error {
	runs, first := failedRuns(rep, cassette.LeakCause)
	if len(runs) == 0 {
		return nil
	}
	return withCode(exitLeak, fmt.Errorf("%d scenario runs were not recorded (%s); %d others were; the first: %s",
		len(runs), strings.Join(capped(runs), ", "), recorded(rep), first))
}

// failedRuns names the scenario runs whose error starts with cause
// (suite/variant/scenario, #n for a later sample), and the first error.
func failedRuns(rep *report.Report, cause string) (runs []string, first string) {
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				for k, r := range sc.Runs() {
					if r.Verdict != report.VerdictError || !strings.HasPrefix(r.Error, cause) {
						continue
					}
					name := s.Name + "/" + v.Name + "/" + sc.ID
					if k > 0 {
						name += fmt.Sprintf("#%d", k+1)
					}
					runs = append(runs, name)
					if first == "" {
						first = r.Error
					}
				}
			}
		}
	}
	return runs, first
}

// capped is names, the eleventh on counted.
func capped(names []string) []string {
	if len(names) > 10 {
		return append(names[:10:10], fmt.Sprintf("and %d more", len(names)-10))
	}
	return names
}

// noPolicy is exitNoPolicy's error when the stand-in had no policy for a
// prompt of some scenario runs (their error starts cassette.NoPolicyCause):
// nothing was written for them, and the message names the first one and
// the cause.
func noPolicy(rep *report.Report) error {
	runs, first := failedRuns(rep, cassette.NoPolicyCause)
	if len(runs) == 0 {
		return nil
	}
	return withCode(exitNoPolicy, fmt.Errorf("%s some prompts: nothing was written for %d scenario runs (%s), whose previous cassettes are kept; %d others were recorded; the first: %s",
		cassette.NoPolicyCause, len(runs), strings.Join(capped(runs), ", "), recorded(rep), first))
}

func recorded(rep *report.Report) int {
	n := 0
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				for _, r := range sc.Runs() {
					if r.Verdict != report.VerdictError {
						n++
					}
				}
			}
		}
	}
	return n
}
