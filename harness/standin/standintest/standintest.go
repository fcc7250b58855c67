// Package standintest serves, on loopback, what an agent's specs run
// against: the stand-in model with every policy, and the stub of the agent's
// upstream APIs that a fixtures/<agent>/routes.yaml describes. It lives in
// the harness, beside the servers it starts, so that the agents' own test
// doubles (agents/agenttest) need nothing from the harness; only tests
// import it.
package standintest

import (
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/upstream"
)

// Stubs are the loopback servers an agent's specs run against.
type Stubs struct {
	Model    string // the stand-in model's base URL
	Upstream string // the upstream stub's base URL
	closers  []func() error
}

// Start starts the stand-in model and the upstream stub that routes
// describes. Close stops both.
func Start(routes string) (*Stubs, error) {
	s := &Stubs{}
	sm, err := standin.New(standin.Options{Policies: standin.Policies()})
	if err != nil {
		return nil, err
	}
	if err := sm.Start(); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, sm.Close)
	s.Model = sm.URL()
	up, err := upstream.StartFile(routes, "")
	if err != nil {
		s.Close()
		return nil, err
	}
	s.closers = append(s.closers, func() error { up.Close(); return nil })
	s.Upstream = up.URL()
	return s, nil
}

// Close stops the servers.
func (s *Stubs) Close() {
	for _, c := range s.closers {
		c()
	}
}
