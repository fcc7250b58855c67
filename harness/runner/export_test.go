package runner

import (
	"context"
	"net/http"
	"time"

	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/tokens"
)

// SnapshotOf is snapshotOf, for its specs.
var SnapshotOf = snapshotOf

// NewRetrying is a recording's pacing and retrying transport over next,
// for its specs, with what it waited out so far.
func NewRetrying(next http.RoundTripper, l *Limits, now func() time.Time, sleep func(context.Context, time.Duration) error) (http.RoundTripper, func() (int, time.Duration)) {
	t := &retrying{next: next, now: now, sleep: sleep, limits: l}
	return t, t.counts
}

// EstimateRequest is what --max-cost books for one request to path, for
// its specs: a chat request at model's prices, an embeddings request at its
// own model's.
func EstimateRequest(p cost.Pricer, provider, model, path string, body []byte, counter *tokens.Counter) (float64, error) {
	g := &guard{pricer: p, provider: provider, model: model, counter: counter}
	return g.estimate(path, body)
}
