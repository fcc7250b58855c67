package runner

import (
	"net/http"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/proxy"
)

// throughProxy opens a proxy session on tp for an agent with the given
// endpoints and returns the transport that reaches it (the agent keeps its
// logical URLs; see proxy.Client) and the function that ends the session.
func throughProxy(p *proxy.Proxy, tp http.RoundTripper, model llm.Endpoint, embeddings *llm.Endpoint, upstreams map[string]string) (http.RoundTripper, func()) {
	s := proxy.Session{Transport: kept{tp}, Upstreams: upstreams}
	s.SetModel(model)
	if embeddings != nil && embeddings.BaseURL != model.BaseURL {
		s.Embeddings = embeddings.BaseURL
	}
	id, base := p.Open(s)
	return proxy.NewClient(base, s), func() { p.End(id) }
}

// kept is a transport whose Close the proxy session does not reach: the
// runner closes (or aborts) the cassette itself, as without a proxy.
type kept struct{ http.RoundTripper }

func (kept) Close() error { return nil }

var _ cassette.Transport = kept{}
