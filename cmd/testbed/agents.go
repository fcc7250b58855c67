package main

import (
	"maps"
	"os"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/all"
	"github.com/agentreplay/testbed/harness/external"
	"github.com/agentreplay/testbed/harness/scenario"
)

// registry is the built-in agents and every agent outside testbed that a
// suite describes (agent: as a mapping), by name. Agents kept alive per
// variant keep their programs in pool, which the caller closes when the run
// ends; it may be nil when no agent runs (lint, merge).
func registry(root string, suites []*scenario.Suite, pool *external.Pool) map[string]agents.Entry {
	reg := maps.Clone(all.Registry())
	for _, s := range suites {
		e := s.External
		if e == nil {
			continue
		}
		spec := specOf(e)
		spec.Pool, spec.Isolate = pool, self()
		reg[s.Agent] = agents.Entry{
			Info: agents.Info{Name: s.Agent, Model: e.Model, Upstreams: e.Upstreams},
			New:  external.New(spec, root),
		}
	}
	return reg
}

// specOf is how the driver runs the agent outside testbed e describes
// (without a Pool).
func specOf(e *scenario.External) external.Spec {
	spec := external.Spec{Command: e.Command, Dir: e.Dir, Env: e.Env, UpstreamEnv: e.UpstreamEnv, Embeddings: e.Embeddings,
		TurnTimeout: e.TurnTimeout, AllTurns: e.AllTurns, StartTimeout: e.StartTimeout, KeepAlive: e.KeepAlive != "", RunEnv: e.KeepAlive == scenario.KeepAliveAgent, FakeClock: e.FakeClock,
		MaxRequestBody: e.MaxRequestBody, HostNetwork: e.HostNetwork}
	if h := e.HTTP; h != nil {
		spec.HTTP = &external.HTTP{URL: h.URL, Body: h.Body, Headers: h.Headers, Reply: h.Reply, Attachment: h.Attachment}
	}
	if m := e.MCP; m != nil {
		spec.MCP = &external.MCP{URL: m.URL, Transport: m.Transport, Tool: m.Tool, Args: m.Args, Reply: m.Reply, Attachment: m.Attachment}
	}
	return spec
}

// self is this program, which serves external.IsolateCommand; "" when it
// cannot be found.
func self() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// running is registry for a run of the suites: it returns the agents and
// the function that stops the programs kept alive for them, to call when
// the run ends (or is interrupted).
func running(root string, suites []*scenario.Suite) (map[string]agents.Entry, func()) {
	pool := external.NewPool()
	return registry(root, suites, pool), func() { pool.Close() }
}
