package replaytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// gate compares rep with the blessed report at path under the suite's
// gate, and returns what fails: each regression, a baseline that is
// missing or unreadable, or one that holds no run of the suite to compare
// (a gate that compared nothing passes nothing).
func gate(path string, rep *report.Report, s *scenario.Suite, cmds commands) []string {
	base, err := readBaseline(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return []string{fmt.Sprintf("no blessed baseline at %s, so the regression gate cannot run; bless one with: %s", path, cmds.bless())}
	case err != nil:
		return []string{err.Error()}
	}
	if compared(base, rep) == 0 {
		return []string{fmt.Sprintf("the baseline %s holds no run of suite %s to compare with, so the regression gate saw nothing; bless it with: %s",
			path, s.Name, cmds.bless())}
	}
	limits := s.Gate
	if limits == nil {
		limits = scenario.DefaultGate()
	}
	regs := report.Regressions(base, rep, map[string]map[string]float64{s.Name: limits})
	if len(regs) == 0 {
		return nil
	}
	var table bytes.Buffer
	if err := report.WriteRegressionsText(&table, regs); err != nil {
		return []string{err.Error()}
	}
	return []string{fmt.Sprintf("%d regressions against %s; if they are intended, bless them with: %s\n%s",
		len(regs), path, cmds.bless(), table.String())}
}

// compared counts the scenario runs of head that base has too.
func compared(base, head *report.Report) int {
	n := 0
	for _, hs := range head.Suites {
		for _, hv := range hs.Variants {
			for _, hsc := range hv.Scenarios {
				if hasRun(base, hs.Name, hv.Name, hsc.ID) {
					n++
				}
			}
		}
	}
	return n
}

// hasRun reports whether r holds a run of suite/variant/id.
func hasRun(r *report.Report, suite, variant, id string) bool {
	for _, s := range r.Suites {
		for _, v := range s.Variants {
			if s.Name == suite && v.Name == variant && slices.ContainsFunc(v.Scenarios, func(sc report.Scenario) bool { return sc.ID == id }) {
				return true
			}
		}
	}
	return false
}

// readBaseline reads a blessed report.
func readBaseline(path string) (*report.Report, error) {
	data, err := files.ReadRegular(path, files.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	rep, err := report.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

// bless writes rep, without transcripts, into the blessed report at path:
// its suites replace those of the same name, the others are kept.
func bless(path string, rep *report.Report) error {
	out := rep.Blessed()
	old, err := readBaseline(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		for _, s := range old.Suites {
			if !slices.ContainsFunc(out.Suites, func(n report.Suite) bool { return n.Name == s.Name }) {
				out.Suites = append(out.Suites, s)
			}
		}
		slices.SortStableFunc(out.Suites, func(a, b report.Suite) int { return strings.Compare(a.Name, b.Name) })
	}
	// A replay's counts are those of one suite's run: not the file's.
	out.Replay = nil
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("bless: %w", err)
	}
	return files.WriteAtomic(path, func(w io.Writer) error { return report.WriteJSON(w, out) })
}
