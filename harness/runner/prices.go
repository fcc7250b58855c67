package runner

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

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
	if s.Prices != nil && s.Prices.File != "" {
		// Read under the root, through no symlink out of it.
		root := cmp.Or(opts.Root, ".")
		data, err := files.ReadIn(root, s.Prices.File, files.MaxBytes)
		var out *files.OutsideError
		if errors.As(err, &out) {
			return p, fmt.Errorf("%s:%d: prices.file: %s", s.Path, s.Prices.Line, out.Refusal(strconv.Quote(s.Prices.File)))
		}
		if err != nil {
			return p, fmt.Errorf("%s:%d: prices: %w", s.Path, s.Prices.Line, err)
		}
		t, err := cost.Parse(data, filepath.Join(root, filepath.FromSlash(s.Prices.File)))
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
// its scenarios' and variants' spend; models maps each suite's model names
// to the table's rows, by suite. Each run's metrics keep every call's usage
// (trace.Metrics.Calls), so a blessed baseline, which keeps no trace, and
// every sample of a sampled scenario are priced again too; a report written
// before they did is priced from its trace, and one without it cannot be:
// an error says so. Thresholds are not judged again.
func Reprice(rep *report.Report, table *cost.Table, models map[string]map[string]string) error {
	for si := range rep.Suites {
		s := &rep.Suites[si]
		p := cost.Pricer{Table: table, Models: models[s.Name]}
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
		}
		s.Prices = table.Origin
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
