package agenttest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
)

// Request is one request as it left the agent, under its logical URL.
type Request struct {
	Method      string
	Host        string // the logical host, e.g. "api.example.com"
	Path        string // decoded
	EscapedPath string // as sent
	RawQuery    string // as sent
	Query       url.Values
	URL         string // the whole logical URL
	Header      http.Header
	Body        []byte
}

// Transport is an http.RoundTripper that sends each logical host to a
// loopback server and logs every request. A request to any other host
// fails, so nothing leaves the machine. It is safe for concurrent use.
type Transport struct {
	base http.RoundTripper

	mu    sync.Mutex
	hosts map[string]string // logical host → 127.0.0.1:port
	seen  []Request
}

// NewTransport returns a Transport that sends requests through base.
func NewTransport(base http.RoundTripper) *Transport {
	return &Transport{base: base, hosts: map[string]string{}}
}

// Route sends requests for the logical host to target ("127.0.0.1:port").
func (t *Transport) Route(host, target string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hosts[host] = target
}

// Target is where requests for the logical host go, or "".
func (t *Transport) Target(host string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hosts[host]
}

// RoundTrip logs req and sends it to its host's target.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	target := t.Target(req.URL.Host)
	if target == "" {
		return nil, fmt.Errorf("test transport: no server for host %q", req.URL.Host)
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	u := req.URL
	t.mu.Lock()
	t.seen = append(t.seen, Request{req.Method, u.Host, u.Path, u.EscapedPath(), u.RawQuery, u.Query(),
		u.String(), req.Header.Clone(), body})
	t.mu.Unlock()
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.URL.Scheme, out.URL.Host, out.Host = "http", target, target
	return t.base.RoundTrip(out)
}

// All returns every request, in order.
func (t *Transport) All() []Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.seen)
}

// Requests returns the requests to the logical host, in order.
func (t *Transport) Requests(host string) []Request {
	var out []Request
	for _, r := range t.All() {
		if r.Host == host {
			out = append(out, r)
		}
	}
	return out
}

// HostOf is the host:port of a server URL, such as an httptest.Server's,
// for Route. It panics on a malformed URL: a bug in the test.
func HostOf(serverURL string) string {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		panic(fmt.Sprintf("agenttest: %q is not a server URL", serverURL))
	}
	return u.Host
}
