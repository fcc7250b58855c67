package agenttest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentreplay/testbed/agents"
)

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
