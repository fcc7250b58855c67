package agenttest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/upstream"
)

// Stubs are the loopback servers an agent's specs run against: the stand-in
// model with every policy, and the stub of the agent's upstream APIs.
type Stubs struct {
	Model    string // the stand-in model's base URL
	Upstream string // the upstream stub's base URL
	closers  []func() error
}

// StartStubs starts the stand-in model and the upstream stub that routes
// (a fixtures/<agent>/routes.yaml) describes. Close stops both.
func StartStubs(routes string) (*Stubs, error) {
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

// Replies runs in through a and returns each reply's Data as T, after
// checking that every turn was answered, that each Data is a T whose text
// (given by text) is the reply's text, and that it encodes as JSON.
func Replies[T any](ctx context.Context, a agents.Agent, in agents.Input, text func(T) string) ([]T, error) {
	ans, err := a.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(ans.Replies) != len(in.Turns) {
		return nil, fmt.Errorf("%d replies to %d turns", len(ans.Replies), len(in.Turns))
	}
	out := make([]T, 0, len(ans.Replies))
	for i, r := range ans.Replies {
		reply, ok := r.Data.(T)
		if !ok {
			return nil, fmt.Errorf("reply %d: data is %T, want %T", i, r.Data, reply)
		}
		if text(reply) != r.Text {
			return nil, fmt.Errorf("reply %d: text %q, but its data says %q", i, r.Text, text(reply))
		}
		if _, err := json.Marshal(r.Data); err != nil {
			return nil, fmt.Errorf("reply %d: %w", i, err)
		}
		out = append(out, reply)
	}
	return out, nil
}
