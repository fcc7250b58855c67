package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"

	"github.com/agentreplay/testbed/harness/files"
)

const compareDoc = `Usage: testbed compare --suite S --base A --head B [flags]
       testbed compare BASE.json HEAD.json [flags]

Shows two variants of a suite side by side, replayed in one run, or the
same suites and variants of two report files: per scenario, verdict flips,
route and tool-sequence changes, input and context tokens, LLM calls and
replayed latency with their deltas, and the first differing line of the
answer; above it, a summary of accuracy, pass rate, token and latency means
with deltas and percentages. Rows marked ▲ regressed. --markdown prints what
a pull-request comment needs, within GitHub's 65,536 characters: a line per
comparison and the regressed scenarios, with a link to --details. --html also writes
the comparison as one self-contained page: per scenario, base and head
side by side, step by step (tool sequence, argument JSON diff, a cassette
miss where it happened), the answers line by line, and the metric deltas
with their noise. --prices FILE prices every model and embeddings call
again with that table (LiteLLM's schema, docs/cost.md): the replay's, or
both report files' from the calls' usage they keep, so the cost rows and
their deltas are at the same prices.

--judge (with --suite) asks the suite's judge, per scenario, which answer
better meets the scenario's rubric (or the judge's compare: rubric), once
with each answer first, and reports head's wins, losses, ties and
inconsistent verdicts, its win rate with a 95% Wilson interval, and the
scenarios head did not win with both answers side by side. The grades are
recorded in cassettes/<suite>.pairwise/ and replayed; --record-missing
grades the pairs they lack against the stand-in judge (docs/judges.md).

Examples:
  testbed compare --suite climate --base untrimmed --head trimmed
  testbed compare --suite odbchat --base legacy --head single-pass --changed
  testbed compare reports/baseline.json reports/latest.json --regressions
  testbed compare reports/baseline.json reports/latest.json --markdown --details "$RUN_URL"
  testbed compare reports/baseline.json reports/latest.json --prices prices/litellm.json
  testbed compare --suite climate --base untrimmed --head trimmed --html compare.html
  testbed compare --suite kura --base full-state --head compact-state --judge`

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sel selection
	var base, head string
	var filter report.CompareFilter
	fs := newFlags("compare", compareDoc, stderr)
	sel.register(fs, "root", "suite", "scenario", "prices", "quiet", "json", "no-color")
	fs.StringVar(&base, "base", "", "the variant compared against (with --suite)")
	fs.StringVar(&head, "head", "", "the variant compared (with --suite)")
	fs.BoolVar(&filter.Changed, "changed", false, "show only scenarios that changed")
	fs.BoolVar(&filter.Regressions, "regressions", false, "show only scenarios that regressed")
	var markdown bool
	var details string
	fs.BoolVar(&markdown, "markdown", false, "print markdown sized for a pull-request comment: a line per comparison, the regressed scenarios, a link to --details")
	fs.StringVar(&details, "details", "", "with --markdown, the `URL` of the full report (a CI run's artifacts, say)")
	var judged, regrade bool
	fs.BoolVar(&judged, "judge", false, "with --suite: ask the suite's judge which answer is better, per scenario, in both orders")
	fs.BoolVar(&regrade, "record-missing", false, "with --judge: grade the pairs the pairwise cassettes lack, against the stand-in judge")
	var page string
	fs.StringVar(&page, "html", "", "also write the comparison as one self-contained HTML page to this file: base and head side by side, step by step")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return err
	}
	var cs []report.Comparison
	fixes := map[string]string{} // variant/scenario: what writes a stale run again
	switch {
	case len(files) == 2 && sel.suite == "":
		b, err := readReport(files[0])
		if err != nil {
			return err
		}
		h, err := readReport(files[1])
		if err != nil {
			return err
		}
		if sel.prices != "" {
			// both priced again, from the calls' usage the files keep
			if err := repriceFiles(sel.prices, sel.root, b, h); err != nil {
				return err
			}
		}
		cs = report.Compare(b, h, files[0], files[1])
		if len(cs) == 0 {
			return withCode(exitUsage, fmt.Errorf("%s and %s share no suite and variant", files[0], files[1]))
		}
		if !slices.ContainsFunc(cs, func(c report.Comparison) bool { return len(c.Rows) > 0 }) {
			// A comparison of nothing would read as "no regression".
			return withCode(exitUsage, fmt.Errorf("%s and %s share no scenario of their %d suite and variant pairs: nothing to compare; compare reports of runs of the same scenarios", files[0], files[1], len(cs)))
		}
	case len(files) == 0 && sel.suite != "" && base == head && base != "":
		// A variant against itself could only tie: a comparison of nothing.
		return withCode(exitUsage, fmt.Errorf("--base and --head are both %s: a variant compared with itself can only tie; give two variants of suite %s (see: testbed list --suite %s)", base, sel.suite, sel.suite))
	case len(files) == 0 && sel.suite != "" && base != "" && head != "":
		suites, err := loadSuites(selection{root: sel.root, suite: sel.suite, scenario: sel.scenario})
		if err != nil {
			return err
		}
		s := suites[0]
		for _, v := range []string{base, head} {
			if !slices.ContainsFunc(s.Variants, func(x scenario.Variant) bool { return x.Name == v }) {
				return withCode(exitUsage, fmt.Errorf("suite %s has no variant %q (see: testbed list --suite %s)", s.Name, v, s.Name))
			}
		}
		agents, stop := running(sel.root, suites)
		defer stop()
		prices, err := sel.priceTable()
		if err != nil {
			return err
		}
		rep, err := runner.Run(ctx, suites, runner.Options{Prices: prices, Mode: cassette.ModeReplay, Root: sel.root, Agents: agents,
			Scenario: sel.scenario, Progress: progress(sel, stderr)})
		if err != nil {
			return withCode(exitInternal, err)
		}
		rs := rep.Suites[0]
		bi, hi := variantIndex(rs.Variants, base), variantIndex(rs.Variants, head)
		cs = []report.Comparison{report.CompareVariants(rs.Name, &rs.Variants[bi], &rs.Variants[hi], base, head)}
		for _, v := range []*report.Variant{&rs.Variants[bi], &rs.Variants[hi]} {
			for _, sc := range v.Scenarios {
				fixes[v.Name+"/"+sc.ID] = sc.Fix
			}
		}
		if judged {
			pw, err := comparePairwise(ctx, sel.root, s, &rs.Variants[bi], &rs.Variants[hi], regrade, agents)
			if err != nil {
				return err
			}
			cs[0].Pairwise = pw
		}
	case judged:
		return withCode(exitUsage, fmt.Errorf("--judge compares the variants of one suite: give --suite with --base and --head"))
	default:
		return withCode(exitUsage, fmt.Errorf("give either --suite with --base and --head, or two report files; see 'testbed compare --help'"))
	}
	for i := range cs {
		cs[i].Prices = sel.prices
	}
	if err := writeComparisonPage(page, cs, filter, stderr); err != nil {
		return err
	}
	switch {
	case sel.json:
		err = report.WriteComparisonJSON(stdout, cs, filter)
	case markdown:
		err = report.WriteComparisonMarkdown(stdout, cs, details)
	default:
		err = report.WriteComparisonText(coloured(sel, stdout), cs, filter)
	}
	if err != nil {
		return err
	}
	return compareVerdict(cs, fixes)
}

// compareVerdict fails a comparison that rests on nothing: a side whose
// cassettes are stale (as testbed run fails it), saying what writes them
// again where fixes knows (by variant/scenario), or pairwise judging that
// judged no pair.
func compareVerdict(cs []report.Comparison, fixes map[string]string) error {
	for _, c := range cs {
		for _, r := range c.Rows {
			for _, side := range [][2]string{{c.Base, r.Base.Verdict}, {c.Head, r.Head.Verdict}} {
				if side[1] == report.VerdictStale {
					fix := cmp.Or(fixes[side[0]+"/"+r.ID], "re-record it (testbed run says how)")
					return withCode(exitStale, fmt.Errorf("%s: scenario %s is stale in %s, so the comparison does not hold; %s", c.Suite, r.ID, side[0], fix))
				}
			}
		}
		if pw := c.Pairwise; pw != nil && len(pw.Rows) == 0 {
			why := "no scenario both variants answered"
			if len(pw.Skipped) > 0 {
				why = pw.Skipped[0]
			}
			return withCode(exitFailed, fmt.Errorf("%s: the judge judged no pair (%s); give the scenarios rubrics, or the suite's judge: a compare: rubric (docs/judges.md)", c.Suite, why))
		}
	}
	return nil
}

func readReport(path string) (*report.Report, error) {
	data, err := files.ReadRegular(path, files.MaxBytes)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	r, err := report.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("%s: %w", path, err))
	}
	// What is written from a report file (a page, a comparison, a merge)
	// goes through the detector like every write: the file may come from
	// anywhere, edited by hand or written by an older testbed.
	d, err := cassette.NewDetector(runner.KeyValues(nil), runner.KeyVariables(nil), nil)
	if err != nil {
		return nil, withCode(exitInternal, err)
	}
	d.Strings(r)
	return r, nil
}

func variantIndex(vs []report.Variant, name string) int {
	for i, v := range vs {
		if v.Name == name {
			return i
		}
	}
	return -1
}
