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
	why := strings.TrimPrefix(sc.Explain(), "verdict ")
	why = strings.Replace(why, "\n  error: ", ": ", 1)
	return fmt.Sprintf("%s/%s: %s", variant, sc.ID, strings.ReplaceAll(why, "\n  ", "\n    "))
}
