package runner

import (
	"fmt"
	"path/filepath"

	"github.com/agentreplay/testbed/harness/cost"
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
	if s.Prices != nil && s.Prices.File != "" {
		t, err := cost.Load(filepath.Join(opts.Root, filepath.FromSlash(s.Prices.File)))
		if err != nil {
			return p, fmt.Errorf("%s:%d: prices: %w", s.Path, s.Prices.Line, err)
		}
		t.Origin = s.Prices.File
		p.Table = t
		return p, nil
	}
	p.Table = cost.Default()
	return p, nil
}

// Reprice prices again, with table, every model and embeddings call of a
// report read from a file (testbed report --prices, compare --prices), and
// its scenarios' and variants' spend; models maps each suite's model names to the table's rows, by
// suite. A report without the calls' traces (a blessed baseline) or with
// sampled scenarios (whose other samples keep no trace) cannot be priced
// again: an error says so. Thresholds are not judged again.
func Reprice(rep *report.Report, table *cost.Table, models map[string]map[string]string) error {
	for si := range rep.Suites {
		s := &rep.Suites[si]
		p := cost.Pricer{Table: table, Models: models[s.Name]}
		for vi := range s.Variants {
			v := &s.Variants[vi]
			for i := range v.Scenarios {
				sc := &v.Scenarios[i]
				llm := 0
				for _, e := range sc.Events {
					if e.Kind == trace.KindLLM {
						llm++
					}
				}
				switch {
				case sc.Sampling != nil:
					return fmt.Errorf("%s/%s/%s has %d samples and the report keeps the first one's calls only; replay with --prices instead: testbed run --prices FILE", s.Name, v.Name, sc.ID, sc.Sampling.N)
				case llm != sc.Metrics.LLMCalls:
					return fmt.Errorf("%s/%s/%s: the report keeps %d of its %d model calls (a blessed baseline keeps none); replay with --prices instead: testbed run --prices FILE", s.Name, v.Name, sc.ID, llm, sc.Metrics.LLMCalls)
				}
				p.Trace(v.Provider, sc.Events)
				m := trace.Measure(sc.Events)
				sc.Metrics.CostUSD, sc.Metrics.PricedCalls, sc.Metrics.UnpricedCalls, sc.Metrics.CountedCalls = m.CostUSD, m.PricedCalls, m.UnpricedCalls, m.CountedCalls
				sc.Metrics.EmbedCostUSD = m.EmbedCostUSD
			}
			v.Summary.Cost = v.Spend()
		}
		s.Prices = table.Origin
	}
	return nil
}
