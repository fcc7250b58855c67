package runner

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/agentreplay/testbed/harness/cost"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/tokens"
)

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

// FaultTarget is whom a call to rawURL counts against in a fault plan of
// an agent with upstreams ("model" or "upstream"), and whether --max-cost
// and the retries treat it as a model call, for its specs.
func FaultTarget(upstreams map[string]string, rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	hosts := hostsOf(upstreams)
	p := newFaultPlan(&scenario.Suite{Name: "s"}, scenario.Scenario{ID: "x", Faults: []scenario.FaultRule{
		{On: scenario.FaultOnModel, Kind: scenario.FaultOnModel}, {On: scenario.FaultOnUpstream, Kind: scenario.FaultOnUpstream}}}, 1, hosts)
	return p.next(u), hosts.isModelCall(u)
}

// Reserve books est for a call under b, for its specs, as a guard does
// before a request leaves.
func (b *Budget) Reserve(est float64) error { return b.reserve(est) }

// Settle replaces a run's reserved estimates by what its calls cost, for
// its specs, as a run does when it ends.
func (b *Budget) Settle(reserved, actual float64) { b.settle(reserved, actual) }
