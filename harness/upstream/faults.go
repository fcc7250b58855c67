package upstream

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
)

// Fault kinds an upstream stub injects when a request asks for one in
// cassette.FaultHeader.
const (
	FaultUnauthorized = "401"
	FaultNotFound     = "404"
	FaultServer       = "500"
	// FaultSlow answers as the route does, SlowBy later.
	FaultSlow = "slow"
	// FaultStall answers as the route does, StallBy later: past every
	// agent's own request timeout, as a hung upstream does.
	FaultStall = "stall"
	// FaultOversized answers as the route does with the body padded past
	// agents.MaxResponseBytes (JSON allows the trailing whitespace).
	FaultOversized = "oversized"
)

// SlowBy is the modelled delay FaultSlow adds to a route's latency.
const SlowBy = 20 * time.Second

// StallBy is the modelled delay FaultStall adds to a route's latency.
const StallBy = 5 * time.Minute

// Faults returns every fault kind an upstream stub knows.
func Faults() []string {
	return []string{FaultUnauthorized, FaultNotFound, FaultServer, FaultSlow, FaultStall, FaultOversized}
}

// errorLatency is the modelled latency of an error answer: an injected
// fault, or a request no route matches.
const errorLatency = 60 * time.Millisecond

// serveFault answers r with the named fault and reports whether it did; a
// fault that needs a route (slow, stall, oversized) is not served without one.
func (rs *Routes) serveFault(w http.ResponseWriter, r *http.Request, fault string, route *Route, matched bool) bool {
	switch {
	case writeErrorFault(w, fault):
		return true
	case !matched || (fault != FaultSlow && fault != FaultStall && fault != FaultOversized):
		return false
	}
	body := route.body
	latency := route.Latency
	switch fault {
	case FaultSlow:
		latency += SlowBy
	case FaultStall:
		latency += StallBy
	default:
		body = append(bytes.Clone(body), bytes.Repeat([]byte(" "), max(0, agents.MaxResponseBytes+1024-len(body)))...)
	}
	h := w.Header()
	h.Set(cassette.FaultHeader, fault)
	h.Set("Content-Type", defaultContentType(route.File))
	for k, v := range route.Headers {
		h.Set(k, v)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set(LatencyHeader, latency.String())
	w.WriteHeader(route.Status)
	w.Write(body)
	return true
}
