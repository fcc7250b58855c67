package replaytest

import (
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/harness/report"
)

// failures lists, one entry each, what failed in rep: every scenario run
// that did not pass (its error, and each failed check with what was
// expected and what happened), every failed threshold, and the cassettes
// no scenario owns. Stale runs' errors end with the command that records
// them again.
func failures(rep *report.Report) []string {
	var out []string
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				if sc.Verdict != report.VerdictPass {
					out = append(out, scenarioFailure(v.Name, sc))
				}
			}
			for _, th := range v.Thresholds {
				if !th.Pass {
					out = append(out, fmt.Sprintf("%s: threshold %q failed: %s", v.Name, th.Source, th.Detail))
				}
			}
		}
	}
	if rep.Replay != nil && len(rep.Replay.UnusedCassettes) > 0 {
		out = append(out, fmt.Sprintf("%d cassettes belong to no scenario (remove them, or record again): %s",
			len(rep.Replay.UnusedCassettes), strings.Join(rep.Replay.UnusedCassettes, ", ")))
	}
	return out
}

// scenarioFailure says why one scenario run did not pass.
func scenarioFailure(variant string, sc report.Scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s: %s", variant, sc.ID, sc.Verdict)
	if sc.Error != "" {
		fmt.Fprintf(&b, ": %s", sc.Error)
	}
	for _, c := range sc.Checks {
		if !c.Pass {
			fmt.Fprintf(&b, "\n    turn %d %s: %s", c.Turn, c.Name, c.Detail)
		}
	}
	return b.String()
}
