package runner

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/files"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// pricer is the suite's: the table --prices named (Options.Prices), else
// the suite's prices: file, else testbed's own, with the suite's model
// names mapped to the table's rows.
func pricer(s *scenario.Suite, opts Options) (cost.Pricer, error) {
	p := cost.Pricer{Table: opts.Prices}
	if s.Prices != nil {
		p.Models = s.Prices.Models
	}
	if p.Table != nil {
		return p, nil
	}
	t, err := SuitePrices(s, cmp.Or(opts.Root, "."))
	if err != nil || t != nil {
		p.Table = t
		return p, err
	}
	p.Table = cost.Default()
	return p, nil
}

// SuitePrices reads the price table the suite's prices: file names, under
// root, through no symlink out of it; nil when it names none. An error
// is path:line of the suite's prices: key.
func SuitePrices(s *scenario.Suite, root string) (*cost.Table, error) {
	if s.Prices == nil || s.Prices.File == "" {
		return nil, nil
	}
	data, err := files.ReadIn(root, s.Prices.File, files.MaxBytes)
	var out *files.OutsideError
	if errors.As(err, &out) {
		return nil, fmt.Errorf("%s:%d: prices.file: %s", s.Path, s.Prices.Line, out.Refusal(strconv.Quote(s.Prices.File)))
	}
	if err != nil {
		return nil, fmt.Errorf("%s:%d: prices: %w", s.Path, s.Prices.Line, err)
	}
	t, err := cost.Parse(data, filepath.Join(root, filepath.FromSlash(s.Prices.File)))
	if err != nil {
		return nil, fmt.Errorf("%s:%d: prices: %w", s.Path, s.Prices.Line, err)
	}
	t.Origin = s.Prices.File
	return t, nil
}

// Reprice prices again, with table, every model and embeddings call of a
// report read from a file (testbed report --prices, compare --prices), and
// its scenarios' and variants' spend, and its rubric grader's calls;
// suites are those under the project's root, whose prices: models map
// their model names to the table's rows and whose judge: names the model a
// report written before gradings named it was graded by. Each run's
// metrics keep every call's usage (trace.Metrics.Calls), so a blessed
// baseline, which keeps no trace, and every sample of a sampled scenario
// are priced again too; a report written before they did is priced from
// its trace, and one without it cannot be: an error says so, as it does
// for a grading whose calls cannot be priced again. Thresholds are not
// judged again.
func Reprice(rep *report.Report, table *cost.Table, suites []*scenario.Suite) error {
	bySuite := map[string]*scenario.Suite{}
	for _, s := range suites {
		bySuite[s.Name] = s
	}
	for si := range rep.Suites {
		s := &rep.Suites[si]
		p := cost.Pricer{Table: table}
		var judge *llm.Endpoint
		if own := bySuite[s.Name]; own != nil {
			if own.Prices != nil {
				p.Models = own.Prices.Models
			}
			if own.Judge != nil {
				judge = &own.Judge.Endpoint
			}
		}
		for vi := range s.Variants {
			v := &s.Variants[vi]
			for i := range v.Scenarios {
				sc := &v.Scenarios[i]
				p.Trace(v.Provider, sc.Events)
				if err := p.Metrics(v.Provider, &sc.Metrics); err != nil {
					if err := repriceFromTrace(sc); err != nil {
						return fmt.Errorf("%s/%s/%s: %w; replay with --prices instead: testbed run --prices FILE", s.Name, v.Name, sc.ID, err)
					}
				}
				if err := repriceGrading(p, judge, sc.Grading); err != nil {
					return fmt.Errorf("%s/%s/%s: grading: %w; replay with --prices instead: testbed run --prices FILE", s.Name, v.Name, sc.ID, err)
				}
				if sc.Sampling == nil {
					continue
				}
				for k := range sc.Sampling.Runs {
					if err := p.Metrics(v.Provider, &sc.Sampling.Runs[k].Metrics); err != nil {
						return fmt.Errorf("%s/%s/%s sample %d: %w; replay with --prices instead: testbed run --prices FILE", s.Name, v.Name, sc.ID, k+1, err)
					}
				}
			}
			v.Summary.Cost = v.Spend()
			v.Summary.Grading = v.Grading()
		}
		s.Prices = table.Origin
	}
	return nil
}

// repriceGrading prices a scenario's grader calls again, as the run priced
// them (each call's reported tokens at the judge's model): from the tokens
// of each call the report keeps, or, for a report written before it kept
// them, from their sums at the model of judge (the suite's), which is what
// they cost unless a long-context tier makes it unknowable.
func repriceGrading(p cost.Pricer, judge *llm.Endpoint, g *report.Grading) error {
	if g == nil || g.Calls == 0 {
		return nil
	}
	provider, model := g.Provider, g.Model
	if model == "" && judge != nil {
		provider, model = judge.Provider, judge.Model
	}
	if model == "" {
		return errors.New("the report names no model its grader was priced at, and no suite under --root names its judge")
	}
	var usd float64
	priced := true
	if len(g.Usage) == g.Calls {
		for _, u := range g.Usage {
			c, ok := p.Estimate(provider, model, u.Input, u.Output)
			if !ok {
				priced = false
				break
			}
			usd += c
		}
	} else {
		c, ok, err := p.Lumped(provider, model, g.Calls, g.InputTokens, g.OutputTokens)
		if err != nil {
			return err
		}
		usd, priced = c, ok
	}
	g.CostUSD, g.Unpriced = 0, !priced
	if priced {
		g.CostUSD = usd
	}
	return nil
}

// repriceFromTrace sets the spend of a scenario of a report that keeps no
// calls' usage from its trace, priced already, when it keeps every call.
func repriceFromTrace(sc *report.Scenario) error {
	llm, embeds := 0, 0
	for _, e := range sc.Events {
		switch e.Kind {
		case trace.KindLLM:
			llm++
		case trace.KindEmbed:
			embeds++
		}
	}
	switch {
	case sc.Sampling != nil:
		return fmt.Errorf("the report keeps the calls of the first of its %d samples only", sc.Sampling.N)
	case llm != sc.Metrics.LLMCalls || embeds != sc.Metrics.EmbedCalls:
		return fmt.Errorf("the report keeps %d of its %d model calls", llm, sc.Metrics.LLMCalls)
	}
	m := trace.Measure(sc.Events)
	sc.Metrics.CostUSD, sc.Metrics.EmbedCostUSD, sc.Metrics.PricedCalls, sc.Metrics.UnpricedCalls, sc.Metrics.CountedCalls = m.CostUSD, m.EmbedCostUSD, m.PricedCalls, m.UnpricedCalls, m.CountedCalls
	return nil
}
