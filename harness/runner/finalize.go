package runner

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// Finalize computes, from the scenario results of rep, each variant's
// summary, confusion matrix, trimming table, provenance and thresholds,
// and in replay mode the replay statistics. Run calls it; so does a merge
// of shard reports, which gives the same report as an unsharded run.
func Finalize(rep *report.Report, suites []*scenario.Suite, opts Options) {
	finalize(rep, suites, opts, nil)
}

// finalize is Finalize with the provenance of the cassettes the run has
// already read, by path, so that they are not parsed again.
func finalize(rep *report.Report, suites []*scenario.Suite, opts Options, provs map[string]cassette.Provenance) {
	for si, s := range suites {
		rs := &rep.Suites[si]
		var base *report.Summary
		for vi := range rs.Variants {
			rv := &rs.Variants[vi]
			for i := range rv.Scenarios {
				rv.Scenarios[i].Unmeasured = !rv.Scenarios[i].Measured()
			}
			rv.Summary = report.Summarize(rv.Scenarios)
			if g := s.Goodput; g != nil {
				rv.Summary.Streaming = report.SummarizeStreams(rv.Scenarios, &report.Budget{TTFT: g.TTFT, TPOT: g.TPOT})
			}
			rv.Confusion = report.Confusion(rv.Scenarios)
			rv.Trimming = report.Trimming(rv.Scenarios)
			rv.Provenance = provenance(opts, s, rv.Name, provs)
			if e, ok := opts.Agents[s.Agent]; ok {
				rv.Provider = endpoint(opts, e.Info, variantByName(s, rv.Name)).Provider
			}
			if rv.Name == s.Baseline {
				b := rv.Summary
				base = &b
			}
		}
		for vi := range rs.Variants {
			if opts.Shards > 1 {
				break // a shard's summaries are partial: thresholds are judged on the merge
			}
			rv := &rs.Variants[vi]
			ths := s.Thresholds[rv.Name]
			b := base
			if rv.Name == s.Baseline {
				b = nil
			} else if base == nil {
				// The baseline was not run (a filtered recording): what
				// compares to it cannot be evaluated, so it is left out.
				ths = slices.DeleteFunc(slices.Clone(ths), func(t scenario.Threshold) bool { return t.Baseline })
			}
			for _, th := range ths {
				tb := b
				if th.Against != "" {
					if other := findVariant(rs, th.Against); other != nil {
						tb = &other.Summary
					} else {
						// The named variant was not run (filtered out).
						continue
					}
				}
				rv.Thresholds = append(rv.Thresholds, check.Thresholds([]scenario.Threshold{th}, rv.Summary, tb)...)
			}
		}
	}
	if opts.Mode == cassette.ModeReplay {
		rep.Replay = replayStats(rep, suites, opts)
	}
}

// provenance describes where a variant's numbers came from: the cassettes'
// provenance in replay (the first cassette's, unless another names the
// stand-in policy that answered: the generic plumbing stand-in), the
// endpoint in record and live, or the generic plumbing stand-in when the
// recordings say it answered.
func provenance(opts Options, s *scenario.Suite, variant string, known map[string]cassette.Provenance) string {
	// A record-missing run replayed what its cassettes hold.
	replay := opts.Mode == cassette.ModeReplay || opts.Mode == cassette.ModeRecordMissing
	var first *cassette.Provenance
	for _, sc := range s.Scenarios {
		path := cassette.Path(opts.Root, s.Name, variant, sc.ID)
		p, ok := known[path]
		if !ok {
			if first != nil || !replay {
				continue // a cassette the run did not read: not parsed again
			}
			var err error
			if p, err = cassette.ReadProvenance(path); err != nil {
				continue
			}
		}
		if p.Policy != "" {
			if replay {
				return "replayed from " + p.String()
			}
			return p.String()
		}
		if first == nil {
			first = &p
		}
	}
	switch {
	case !replay && opts.Model == nil:
		return cassette.StandIn(endpoint(opts, opts.Agents[s.Agent].Info, variantByName(s, variant)).Model, "")
	case !replay:
		ep := endpoint(opts, opts.Agents[s.Agent].Info, variantByName(s, variant))
		return ep.Provider + " " + ep.Model
	case first == nil:
		return ""
	}
	return "replayed from " + first.String()
}

func findVariant(s *report.Suite, name string) *report.Variant {
	for i := range s.Variants {
		if s.Variants[i].Name == name {
			return &s.Variants[i]
		}
	}
	return nil
}

// replayStats counts what a replay used of the cassettes and, when nothing
// was filtered out, lists the cassette files no scenario owns.
func replayStats(rep *report.Report, suites []*scenario.Suite, opts Options) *report.ReplayStats {
	st := &report.ReplayStats{UnusedCassettes: []string{}}
	for _, s := range rep.Suites {
		for _, v := range s.Variants {
			for _, sc := range v.Scenarios {
				// A sampled scenario read from a report file (a shard's, to
				// merge) keeps sample 1's events on the scenario alone: its
				// runs' events are not written.
				notes := trace.Notes(sc.Events, agents.NoteIsolation)
				for _, r := range sc.Runs() {
					st.Replayed += r.Replayed
					st.Recorded += r.Unplayed
					if r.Escaped {
						st.Escaped++
					}
					notes = append(notes, trace.Notes(r.Events, agents.NoteIsolation)...)
				}
				for _, v := range notes {
					if s, ok := v.(string); ok && !slices.Contains(st.Isolation, s) {
						st.Isolation = append(st.Isolation, s)
					}
				}
			}
		}
	}
	st.Recorded += st.Replayed
	slices.Sort(st.Isolation)
	if opts.Variant != "" || opts.Scenario != "" || opts.Shards > 1 {
		return st
	}
	for _, s := range suites {
		owned := map[string]bool{}
		for _, v := range s.Variants {
			for _, sc := range s.Scenarios {
				graded := sc.Graded(v.Name)
				for k := range max(1, s.Samples) {
					owned[cassette.SamplePath(opts.Root, s.Name, v.Name, sc.ID, k+1)] = true
					if graded {
						owned[cassette.JudgePath(opts.Root, s.Name, v.Name, sc.ID, k+1)] = true
					}
				}
			}
		}
		dir := cassette.Dir(opts.Root, s.Name)
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") && !files.IsTemp(path) && !owned[path] {
				rel, _ := filepath.Rel(opts.Root, path)
				st.UnusedCassettes = append(st.UnusedCassettes, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	return st
}

// Merge joins the reports of the shards of one run into the report of the
// whole run: each variant's scenarios in suite order, then Finalize.
func Merge(parts []*report.Report, suites []*scenario.Suite, opts Options) (*report.Report, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	rep := &report.Report{SchemaVersion: report.SchemaVersion, Mode: parts[0].Mode}
	for _, s := range suites {
		rs := report.Suite{Name: s.Name, Agent: s.Agent, Tokenizer: tokenizerName(s), Baseline: s.Baseline, About: s.About, ReductionWithout: s.ReductionWithout, NotGating: s.NotGating}
		for _, p := range parts {
			for _, ps := range p.Suites {
				if ps.Name == s.Name && ps.Prices != "" {
					rs.Prices = ps.Prices // the table the shards priced with
				}
			}
		}
		for _, v := range s.Variants {
			rv := report.Variant{Name: v.Name, Description: v.Description}
			found := false
			for _, sc := range s.Scenarios {
				for _, p := range parts {
					if got, ok := findScenario(p, s.Name, v.Name, sc.ID); ok {
						rv.Scenarios = append(rv.Scenarios, got)
						found = true
						break
					}
				}
			}
			if found {
				rs.Variants = append(rs.Variants, rv)
			}
		}
		rep.Suites = append(rep.Suites, rs)
	}
	opts.Shard, opts.Shards = 0, 0
	Finalize(rep, suites, opts)
	// A shard's file keeps sample 1's events alone: its trimming table,
	// made from every sample's, is what the merge adds up.
	for si := range rep.Suites {
		rs := &rep.Suites[si]
		for vi := range rs.Variants {
			rv := &rs.Variants[vi]
			var lists [][]report.ToolTrim
			for _, p := range parts {
				if pv := partVariant(p, rs.Name, rv.Name); pv != nil {
					lists = append(lists, pv.Trimming)
				}
			}
			rv.Trimming = report.SumTrimming(lists...)
		}
	}
	return rep, nil
}

// partVariant is variant of suite in r, or nil.
func partVariant(r *report.Report, suite, variant string) *report.Variant {
	for i := range r.Suites {
		if r.Suites[i].Name == suite {
			return findVariant(&r.Suites[i], variant)
		}
	}
	return nil
}

func findScenario(r *report.Report, suite, variant, id string) (report.Scenario, bool) {
	v := partVariant(r, suite, variant)
	if v == nil {
		return report.Scenario{}, false
	}
	for _, sc := range v.Scenarios {
		if sc.ID == id {
			return sc, true
		}
	}
	return report.Scenario{}, false
}
