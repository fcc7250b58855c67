package runner

import (
	"maps"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/report"
	"github.com/agentreplay/testbed/harness/scenario"
)

// Detector is the detector of everything testbed writes for suites (a
// suite's cassettes and its part of every report): the maintained rules,
// the literal values given (the key variables' values), the values of the
// suites' env: (an external agent's environment) but those not_secret:
// names, values given to the
// named variables, and the suites' redact: rules.
func Detector(suites []*scenario.Suite, values, names []string) (*cassette.Detector, error) {
	values = slices.Clone(values)
	var rules []cassette.Rule
	for _, s := range suites {
		if s.External != nil {
			for _, k := range slices.Sorted(maps.Keys(s.External.Env)) {
				if !slices.Contains(s.External.NotSecret, k) {
					values = append(values, s.External.Env[k])
				}
			}
		}
		for _, r := range s.Redact {
			rules = append(rules, cassette.Rule{Pattern: r.Regex, Pointer: r.Pointer, Header: r.Header, Query: r.Query})
		}
	}
	return cassette.NewDetector(values, names, rules)
}

// redactReport passes the report through the detectors, with what they
// learnt in the run (cassette.Detector.Learned): each suite's part through
// its suite's, the rest through base. Every format written from the report
// (text, markdown, JSON, JUnit, HTML, OTLP, show) is then redacted.
func redactReport(rep *report.Report, suites []*scenario.Suite, detectors map[*scenario.Suite]*cassette.Detector, base *cassette.Detector) error {
	all := rep.Suites
	rep.Suites = nil
	base.Strings(rep)
	rep.Suites = all
	// The suites' parts are apart: they are redacted at the same time.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range rep.Suites {
		d := base
		for _, s := range suites {
			if s.Name == rep.Suites[i].Name && detectors[s] != nil {
				d = detectors[s]
			}
		}
		g.Go(func() error {
			d, err := d.Learned()
			if err != nil {
				return err
			}
			d.Strings(&rep.Suites[i])
			return nil
		})
	}
	return g.Wait()
}
