package runner

import (
	"fmt"
	"path/filepath"

	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/scenario"
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
