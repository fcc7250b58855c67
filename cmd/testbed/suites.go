package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/lint"
	"github.com/agentreplay/testbed/harness/runner"
	"github.com/agentreplay/testbed/harness/scenario"
)

// loadSuites loads scenarios/*.yaml, keeping the selected suite.
func loadSuites(sel selection) ([]*scenario.Suite, error) {
	dir := filepath.Join(sel.root, "scenarios")
	// A variant config the agent refuses is a problem in the suite file too,
	// reported with the file's others.
	// The agents built share one cache, so that a knowledge base is built
	// once for every suite and variant of its agent.
	cache := &agents.Cache{}
	defer cache.Close()
	configs := func(s *scenario.Suite) error {
		one := []*scenario.Suite{s}
		return lint.Configs(sel.root, one, registry(sel.root, one, nil), cache)
	}
	suites, err := scenario.LoadDir(dir, scenario.LoadOptions{Agents: all.Names(), Metrics: check.MetricNames(), Faults: runner.FaultKinds(), JQ: check.CompileJQ, Check: configs, Root: sel.root})
	if err != nil {
		if errors.Is(err, scenario.ErrInvalidSuite) {
			return nil, withCode(exitUsage, err)
		}
		return nil, withCode(exitInternal, err)
	}
	if sel.suite != "" {
		var picked []*scenario.Suite
		for _, s := range suites {
			if s.Name == sel.suite {
				picked = append(picked, s)
			}
		}
		if len(picked) == 0 {
			return nil, withCode(exitUsage, fmt.Errorf("no suite %q in %s", sel.suite, dir))
		}
		suites = picked
	}
	if sel.variant != "" && !anySuite(suites, func(s *scenario.Suite) bool {
		return slices.ContainsFunc(s.Variants, func(v scenario.Variant) bool { return v.Name == sel.variant })
	}) {
		return nil, withCode(exitUsage, fmt.Errorf("no variant %q in the selected suites (see: testbed list)", sel.variant))
	}
	if sel.scenario != "" && !anySuite(suites, func(s *scenario.Suite) bool {
		return slices.ContainsFunc(s.Scenarios, func(sc scenario.Scenario) bool { return sc.ID == sel.scenario })
	}) {
		return nil, withCode(exitUsage, fmt.Errorf("no scenario %q in the selected suites (see: testbed list)", sel.scenario))
	}
	return suites, nil
}

func anySuite(suites []*scenario.Suite, ok func(*scenario.Suite) bool) bool {
	return slices.ContainsFunc(suites, ok)
}
