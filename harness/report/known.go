package report

import (
	"fmt"
	"slices"
	"strings"
)

// KnownFailure is a scenario run, or a threshold, that a team blessed as
// failing (testbed baseline bless --known-failures): the baseline keeps it
// with the checks that failed, and a run that fails it the same way is not
// failed for it, only told so.
type KnownFailure struct {
	Suite    string `json:"suite"`
	Variant  string `json:"variant"`
	Scenario string `json:"scenario,omitempty"`
	// Threshold is the threshold's source, for a known failing threshold.
	Threshold string `json:"threshold,omitempty"`
	// Checks are the names of the scenario's failed checks, sorted; a
	// run that fails a check not among them fails.
	Checks []string `json:"checks,omitempty"`
}

// String is "suite/variant/scenario [check, …]" or
// "suite/variant threshold source".
func (k KnownFailure) String() string {
	if k.Scenario == "" {
		return k.Suite + "/" + k.Variant + " threshold " + k.Threshold
	}
	return k.Suite + "/" + k.Variant + "/" + k.Scenario + " [" + strings.Join(k.Checks, ", ") + "]"
}

// failedChecks are the names of sc's failed checks, sorted and distinct:
// "name" for the first turn, "name (turn N)" for later ones.
func failedChecks(sc Scenario) []string {
	var out []string
	for _, c := range sc.Checks {
		if c.Pass {
			continue
		}
		name := c.Name
		if c.Turn > 0 {
			name = fmt.Sprintf("%s (turn %d)", c.Name, c.Turn+1)
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Failing returns the failures of r's gating suites that can be blessed as
// known failures (scenario runs whose expectations failed, thresholds
// measured and missed), and those that never can: a stale, unreadable or
// errored scenario run, or a threshold that could not be measured. A stale
// cassette is re-recorded (or its grades re-graded), not blessed: a stale
// run's item says how (Scenario.Fix).
func Failing(r *Report) (known []KnownFailure, never []string) {
	for _, s := range r.Suites {
		if s.NotGating {
			continue
		}
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				switch {
				case sc.Verdict == VerdictPass:
				case sc.Verdict == VerdictFail && !sc.Unreadable:
					known = append(known, KnownFailure{Suite: s.Name, Variant: v.Name, Scenario: sc.ID, Checks: failedChecks(sc)})
				case sc.Fix != "":
					never = append(never, fmt.Sprintf("%s/%s/%s is %s (%s)", s.Name, v.Name, sc.ID, sc.Verdict, sc.Fix))
				default:
					never = append(never, fmt.Sprintf("%s/%s/%s is %s", s.Name, v.Name, sc.ID, sc.Verdict))
				}
			}
			for _, t := range v.Thresholds {
				switch {
				case t.Pass:
				case t.NotEvaluated && t.Detail != "":
					// The detail says why ("not evaluated: no model call
					// streamed, …"): the way out may be no re-recording.
					never = append(never, fmt.Sprintf("%s/%s threshold %s was %s", s.Name, v.Name, t.Source, t.Detail))
				case t.NotEvaluated:
					never = append(never, fmt.Sprintf("%s/%s threshold %s was not evaluated", s.Name, v.Name, t.Source))
				default:
					known = append(known, KnownFailure{Suite: s.Name, Variant: v.Name, Threshold: t.Source})
				}
			}
		}
	}
	return known, never
}

// ApplyKnown marks, in r, the scenario runs and thresholds that fail as
// the known failures say (Scenario.Known, Threshold.Known), keeps those in
// r.KnownFailures, and lists in r.Improved the known failures that pass
// now. A known scenario that fails a check the baseline did not list, or
// is stale or errored, stays a failure. Known failures of suites,
// variants or scenarios r did not run are left out.
func (r *Report) ApplyKnown(known []KnownFailure) {
	r.KnownFailures, r.Improved = nil, nil
	for _, k := range known {
		for i := range r.Suites {
			s := &r.Suites[i]
			if s.Name != k.Suite || s.NotGating {
				continue
			}
			for j := range s.Variants {
				v := &s.Variants[j]
				if v.Name != k.Variant {
					continue
				}
				if k.Scenario == "" {
					for t := range v.Thresholds {
						th := &v.Thresholds[t]
						if th.Source != k.Threshold {
							continue
						}
						switch {
						case th.Pass:
							r.Improved = append(r.Improved, k)
						case !th.NotEvaluated:
							th.Known = true
							r.KnownFailures = append(r.KnownFailures, k)
						}
					}
					continue
				}
				for c := range v.Scenarios {
					sc := &v.Scenarios[c]
					if sc.ID != k.Scenario {
						continue
					}
					switch {
					case sc.Verdict == VerdictPass:
						r.Improved = append(r.Improved, k)
					case sc.Verdict == VerdictFail && !sc.Unreadable && subset(failedChecks(*sc), k.Checks):
						sc.Known = true
						r.KnownFailures = append(r.KnownFailures, k)
					}
				}
			}
		}
	}
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// knownNote is what the verdict line says of r's known failures and of
// those that pass now, or "".
func knownNote(r *Report) string {
	var parts []string
	if n := len(r.KnownFailures); n > 0 {
		parts = append(parts, fmt.Sprintf("%s blessed in the baseline: %s", Count(n, "known failure"), listed(r.KnownFailures)))
	}
	if n := len(r.Improved); n > 0 {
		var suites []string
		for _, k := range r.Improved {
			if !slices.Contains(suites, k.Suite) {
				suites = append(suites, k.Suite)
			}
		}
		cmds := make([]string, len(suites))
		for i, s := range suites {
			cmds[i] = "testbed baseline bless --suite " + s + " --known-failures"
		}
		parts = append(parts, fmt.Sprintf("%s now %s (improved: %s); re-bless with: %s",
			Count(n, "known failure"), map[bool]string{true: "passes", false: "pass"}[n == 1], listed(r.Improved), strings.Join(cmds, "; ")))
	}
	return strings.Join(parts, "; ")
}

// listed names up to five known failures and counts the rest.
func listed(ks []KnownFailure) string {
	var names []string
	for _, k := range ks[:min(len(ks), 5)] {
		names = append(names, k.String())
	}
	if len(ks) > 5 {
		names = append(names, fmt.Sprintf("and %d more", len(ks)-5))
	}
	return strings.Join(names, ", ")
}

// countKnown counts r's known failures that are scenario runs (scenarios)
// or thresholds.
func countKnown(r *Report, scenarios bool) int {
	n := 0
	for _, k := range r.KnownFailures {
		if (k.Scenario != "") == scenarios {
			n++
		}
	}
	return n
}
