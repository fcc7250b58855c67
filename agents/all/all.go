// Package all is the registry of agent systems: name → constructor and
// default endpoints. It is used by the CLI and the scenario gate.
package all

import (
	"sort"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/cba"
	"github.com/agentreplay/testbed/agents/climate"
	"github.com/agentreplay/testbed/agents/family"
	"github.com/agentreplay/testbed/agents/kura"
	"github.com/agentreplay/testbed/agents/odbchat"
)

// Registry returns every agent system by name.
func Registry() map[string]agents.Entry {
	return map[string]agents.Entry{
		cba.Name:     {Info: cba.Info(), New: cba.New},
		climate.Name: {Info: climate.Info(), New: climate.New},
		family.Name:  {Info: family.Info(), New: family.New},
		kura.Name:    {Info: kura.Info(), New: kura.New},
		odbchat.Name: {Info: odbchat.Info(), New: odbchat.New},
	}
}

// Names returns the registered names, sorted.
func Names() []string {
	r := Registry()
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
