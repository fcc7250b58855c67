package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// writePruned says which earlier sample cassettes of a scenario a
// recording of fewer samples kept (the suite declares them) and which it
// removed (beyond the suite's samples).
func writePruned(w io.Writer, root string, suites []*scenario.Suite, suite, variant, id string, recorded int, kept, removed []int) {
	declared := 1
	if i := slices.IndexFunc(suites, func(s *scenario.Suite) bool { return s.Name == suite }); i >= 0 {
		declared = max(1, suites[i].Samples)
	}
	files := func(ks []int) string {
		first := cassette.SamplePath(root, suite, variant, id, ks[0])
		if rel, err := filepath.Rel(root, first); err == nil {
			first = rel
		}
		last := len(ks) - 1
		if last == 0 {
			return first
		}
		if ks[last]-ks[0] == last { // contiguous
			return first + " to " + filepath.Base(cassette.SamplePath(root, suite, variant, id, ks[last]))
		}
		names := []string{first}
		for _, k := range ks[1:] {
			names = append(names, filepath.Base(cassette.SamplePath(root, suite, variant, id, k)))
		}
		return strings.Join(names, ", ")
	}
	name := suite + "/" + variant + "/" + id
	samples := func(n int, what string) string {
		if n == 1 {
			return "1 " + what + "sample"
		}
		return fmt.Sprintf("%d %ssamples", n, what)
	}
	if len(kept) > 0 {
		fmt.Fprintf(w, "kept %s of %s (%s): the suite declares samples: %d, so replay runs them as they were recorded\n",
			samples(len(kept), "earlier "), name, files(kept), declared)
	}
	if len(removed) > 0 {
		fmt.Fprintf(w, "removed %s of %s beyond the %d recorded and the suite's samples: %d (%s)\n",
			samples(len(removed), ""), name, recorded, declared, files(removed))
	}
}

// writeInterrupted says, after an interrupted recording, which scenarios
// were recorded and which were not (their previous cassettes are as they
// were: a cassette is only ever replaced whole, by a rename).
func writeInterrupted(w io.Writer, rep *report.Report, suites []*scenario.Suite, opts runner.Options) {
	if opts.Mode != cassette.ModeRecord {
		fmt.Fprintln(w, "testbed: interrupted")
		return
	}
	var done, partly, not []string
	total := 0
	for _, s := range rep.Suites {
		want := opts.Repeat
		if i := slices.IndexFunc(suites, func(x *scenario.Suite) bool { return x.Name == s.Name }); want <= 0 && i >= 0 {
			want = suites[i].Samples
		}
		want = max(1, want)
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				total++
				name := s.Name + "/" + v.Name + "/" + sc.ID
				n := 0
				interrupted := false
				for _, r := range sc.Runs() {
					switch {
					case r.Verdict == report.VerdictError && strings.HasPrefix(r.Error, "interrupted"):
						interrupted = true
					case r.Verdict != "" && r.Verdict != report.VerdictError:
						n++
					}
				}
				switch {
				case n >= want:
					done = append(done, name)
				case n > 0:
					partly = append(partly, fmt.Sprintf("%s (%d of %d samples)", name, n, want))
				case interrupted:
					not = append(not, name+" (interrupted while recording)")
				default:
					not = append(not, name)
				}
			}
		}
	}
	fmt.Fprintf(w, "testbed: interrupted: recorded %d of %d scenarios; every cassette not recorded is as it was\n", len(done), total)
	list := func(title string, names []string) {
		if len(names) == 0 {
			return
		}
		fmt.Fprintf(w, "%s (%d):\n", title, len(names))
		for _, n := range names {
			fmt.Fprintln(w, "  "+n)
		}
	}
	list("recorded", done)
	list("partly recorded", partly)
	list("not recorded", not)
}

// writePatched says what a record-missing run wrote: the calls it recorded,
// per cassette, and the recorded interactions it dropped.
func writePatched(w io.Writer, rep *report.Report) {
	calls, cassettes, replayed := 0, 0, 0
	var lines []string
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				for k, r := range sc.Runs() {
					if r.Recorded == 0 {
						if r.Verdict != report.VerdictError {
							replayed++
						}
						continue
					}
					calls += r.Recorded
					cassettes++
					name := s.Name + "/" + v.Name + "/" + sc.ID
					if k > 0 {
						name += fmt.Sprintf("#%d", k+1)
					}
					line := fmt.Sprintf("  %s: recorded %d", name, r.Recorded)
					if len(r.Dropped) > 0 {
						line += fmt.Sprintf(", dropped %d unused (%s)", len(r.Dropped), strings.Join(r.Dropped, "; "))
					}
					lines = append(lines, line)
				}
			}
		}
	}
	fmt.Fprintf(w, "record-missing: recorded %d calls into %d cassettes; %d replayed whole, unchanged\n", calls, cassettes, replayed)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
