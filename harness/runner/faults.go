package runner

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/wire"
)

// faultPlan decides, while recording one sample of one scenario, which
// calls a stand-in answers with a fault: the scenario's rules first, then
// the suite's seeded rate. Calls are counted per target (model or upstream)
// in the order the agent makes them.
type faultPlan struct {
	rules    []scenario.FaultRule
	rate     *scenario.FaultRate
	scenario string
	sample   int
	// upstreams are the hosts of the agent's upstreams: a call to one is an
	// upstream's, whatever its path says (a CRM's /v1/interactions).
	upstreams upstreamHosts

	mu    sync.Mutex
	calls map[string]int
}

// newFaultPlan returns nil when the scenario and suite inject nothing.
func newFaultPlan(s *scenario.Suite, sc scenario.Scenario, sample int, upstreams upstreamHosts) *faultPlan {
	if len(sc.Faults) == 0 && s.Faults == nil {
		return nil
	}
	return &faultPlan{rules: sc.Faults, rate: s.Faults, scenario: s.Name + "/" + sc.ID, sample: sample, upstreams: upstreams, calls: map[string]int{}}
}

// next counts a call to the endpoint at u and returns the fault kind to
// inject into it, or "".
func (p *faultPlan) next(u *url.URL) string {
	if p == nil {
		return ""
	}
	target := scenario.FaultOnUpstream
	if p.upstreams.isModelCall(u) {
		target = scenario.FaultOnModel
	}
	p.mu.Lock()
	p.calls[target]++
	n := p.calls[target]
	p.mu.Unlock()
	for _, r := range p.rules {
		if r.On == target && (r.Call == 0 || r.Call == n) {
			return r.Kind
		}
	}
	if p.rate == nil {
		return ""
	}
	kinds := p.rate.Model
	if target == scenario.FaultOnUpstream {
		kinds = p.rate.Upstream
	}
	if len(kinds) == 0 {
		return ""
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d\x00%s\x00%d", p.rate.Seed, p.scenario, p.sample, target, n)
	sum := mix(h.Sum64())
	if float64(sum>>11)/float64(1<<53) >= p.rate.Rate {
		return ""
	}
	return kinds[(sum&0x7ff)%uint64(len(kinds))]
}

// mix is splitmix64's finalizer: FNV alone spreads inputs that differ in a
// digit poorly over its high bits, which the draw reads.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// upstreamHosts are the hosts of an agent's upstreams.
type upstreamHosts map[string]bool

// hostsOf are the hosts of the upstreams' base URLs.
func hostsOf(upstreams map[string]string) upstreamHosts {
	out := upstreamHosts{}
	for _, base := range upstreams {
		if u, err := url.Parse(base); err == nil && u.Host != "" {
			out[u.Host] = true
		}
	}
	return out
}

// has reports whether u is an upstream's.
func (h upstreamHosts) has(u *url.URL) bool { return h[u.Host] }

// isModelCall reports whether a request to u is a call to the model: a
// model endpoint's path, at no upstream's host.
func (h upstreamHosts) isModelCall(u *url.URL) bool {
	return isModelPath(u.Path) && !h.has(u)
}

// isModelPath tells a model endpoint (chat, the Responses API, embeddings,
// Gemini generateContent streamed or not and its embedding methods,
// Anthropic messages, Ollama's native chat, Gemini's Interactions API)
// from an upstream API.
func isModelPath(path string) bool {
	return strings.HasSuffix(path, "/chat/completions") || strings.HasSuffix(path, "/responses") || wire.IsEmbeddings(path) ||
		strings.Contains(path, ":generateContent") || strings.Contains(path, ":streamGenerateContent") ||
		strings.HasSuffix(path, "/v1/messages") || wire.IsOllama(path) || wire.IsInteractions(path)
}

// timeouts turns a stand-in's modelled timeout (a response marked with
// FaultHeader "timeout") into the error an HTTP client gives when it stops
// waiting, the same in recording and in replay.
type timeouts struct{ next http.RoundTripper }

func (t timeouts) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Header.Get(cassette.FaultHeader) != standin.FaultTimeout {
		return resp, err
	}
	resp.Body.Close()
	return nil, &timeoutError{method: req.Method, host: req.URL.Host}
}

// timeoutError is a net.Error whose Timeout is true.
type timeoutError struct{ method, host string }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s %s: timeout awaiting response headers (no answer within %s)", e.method, e.host, standin.TimeoutAfter)
}
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
