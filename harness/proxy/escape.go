package proxy

import (
	"net/http"
	"net/url"
	"path"

	"github.com/agentreplay/testbed/agents/llm"
)

// ForwardProxy is the address an agent's HTTP_PROXY and HTTPS_PROXY
// variables point at, for the session or alias whose base URL is base
// (…/s/<id> or …/a/<id>): a call that goes to any host directly, instead of
// through the base URLs, reaches the proxy as a forward-proxy request, is
// refused with 403 and makes End of the session (the one the alias stands
// for then) return an error matching ErrEscaped. The id travels as the
// proxy URL's password, so clients send it in Proxy-Authorization.
func ForwardProxy(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	id := path.Base(u.Path)
	return u.Scheme + "://testbed:" + id + "@" + u.Host
}

// escape refuses a forward-proxy request (an absolute URL, or CONNECT for
// https) and counts it against the session named in its
// Proxy-Authorization, if any.
func (p *Proxy) escape(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if r.Method != http.MethodConnect {
		u := *r.URL
		u.RawQuery, u.User = "", nil
		target = u.String()
	}
	err := &escapeError{target: target}
	if _, id, ok := proxyAuth(r); ok {
		p.mu.Lock()
		if bound, ok := p.aliases[id]; ok {
			id = bound // a kept-alive program: the run it answers now
		}
		s := p.sessions[id]
		p.mu.Unlock()
		if s != nil {
			err.models = []llm.Endpoint{{Provider: llm.ProviderOpenAI, BaseURL: s.Model}, {Provider: llm.ProviderGemini, BaseURL: s.Gemini},
				{Provider: llm.ProviderAnthropic, BaseURL: s.Anthropic}, {Provider: llm.ProviderAzure, BaseURL: s.Azure}, {Provider: llm.ProviderOllama, BaseURL: s.Ollama}}
			s.mu.Lock()
			s.escapes = append(s.escapes, err)
			s.mu.Unlock()
		}
	}
	problem(w, "", http.StatusForbidden, "%v", err)
}

// proxyAuth reads Basic credentials from Proxy-Authorization.
func proxyAuth(r *http.Request) (user, password string, ok bool) {
	h := r.Header.Get("Proxy-Authorization")
	if h == "" {
		return "", "", false
	}
	fake := &http.Request{Header: http.Header{"Authorization": {h}}}
	return fake.BasicAuth()
}
