package main

import (
	"maps"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/agents/external"
	"github.com/agentreplay/testbed/harness/scenario"
)

// registry is the built-in agents and every agent outside testbed that a
// suite describes (agent: as a mapping), by name.
func registry(root string, suites []*scenario.Suite) map[string]agents.Entry {
	reg := maps.Clone(all.Registry())
	for _, s := range suites {
		e := s.External
		if e == nil {
			continue
		}
		spec := external.Spec{Command: e.Command, Dir: e.Dir, Env: e.Env, UpstreamEnv: e.UpstreamEnv, Embeddings: e.Embeddings, TurnTimeout: e.TurnTimeout, AllTurns: e.AllTurns}
		reg[s.Agent] = agents.Entry{
			Info: agents.Info{Name: s.Agent, Model: e.Model, Upstreams: e.Upstreams},
			New:  external.New(spec, root),
		}
	}
	return reg
}
