package runner

import (
	"slices"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/provider"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/scenario"
)

// endpoint is the model a scenario runs against: the one given on the
// command line (WithModel), else the variant's, else the agent's own.
func endpoint(opts Options, info agents.Info, v scenario.Variant) llm.Endpoint {
	own := info.Model
	if v.Endpoint != nil {
		own = *v.Endpoint
	}
	if opts.Model != nil {
		return WithModel(own, *opts.Model)
	}
	return own
}

// WithModel is the model m (a real provider's, given on the command line)
// in place of own, the variant's or the agent's: it keeps own's streaming,
// and own's API (and Azure API version) when m is of own's provider and
// names none, so that a streaming variant records streams and a Responses
// variant records over the Responses API.
func WithModel(own, m llm.Endpoint) llm.Endpoint {
	if own.Provider == m.Provider && m.API == "" {
		m.API = own.API
	}
	if own.Provider == m.Provider && m.APIVersion == "" {
		m.APIVersion = own.APIVersion
	}
	m.Stream = m.Stream || own.Stream
	return m
}

// Recorded is the model a replay of a cassette with provenance p runs
// against, for a scenario whose own model is own: the real model the
// cassette was recorded with (testbed record --provider), with own's API
// and streaming as the recording kept them, so that the agent asks what it
// asked then; own itself for a cassette of a stand-in, of a judge, or
// recorded against own.
func Recorded(own llm.Endpoint, p cassette.Provenance) llm.Endpoint {
	if p.StandIn || p.Role == cassette.RoleJudge || p.Provider == "" || p.Model == "" ||
		p.Provider == own.Provider && p.Endpoint == own.BaseURL && p.Model == own.Model {
		return own
	}
	if !slices.Contains(llm.Providers(), p.Provider) {
		return own
	}
	ep, _, _ := provider.Real(p.Provider, p.Model, p.Endpoint, func(string) string { return "" }) // a replay sends no key
	return WithModel(own, ep)
}
