package proxy

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
)

// Headers by which a client of the proxy carries a request's deadline, and
// the proxy says that the exchange outlasted it (see cassette.DeadlineError:
// replay judges deadlines on the recorded duration, never by waiting).
const (
	// TimeoutHeader is the time left before the request's deadline, in
	// nanoseconds, when the client sent it.
	TimeoutHeader = "X-Testbed-Timeout"
	// DeadlineHeader, on a 504 answer, holds the time the client waited and
	// the exchange's recorded duration, in nanoseconds: "waited took".
	DeadlineHeader = "X-Testbed-Deadline"
)

// ClockHeader, on an answer the proxy gave from a session's cassette, not
// streamed, in a session with a clock, is the scenario's clock once that
// exchange was counted (RFC 3339). Only the session's exchanges move the
// clock, so a program that makes one call at a time may take it for the
// clock until its next call, rather than GET the clock URL.
const ClockHeader = "X-Testbed-Clock"

// Client is the transport of an in-process agent that keeps its logical
// base URLs and reaches its cassette through a proxy session: it sends each
// request to the session's path for its logical URL, with the request's
// deadline in TimeoutHeader, and turns the proxy's answer to an exchange
// that outlasted the deadline back into the *cassette.DeadlineError the
// agent would get without the proxy. The agent's errors and prompts then
// name the logical URLs, as without the proxy. (An agent in another
// language is given the session's base URLs instead, sets its timeouts its
// own way and gets the 504.)
type Client struct {
	prefixes  []prefix // logical base URL → session URL, longest first
	deadlines cassette.Deadlines
}

type prefix struct{ logical, session string }

// NewClient is a Client for the session s, opened at base (Proxy.Open).
func NewClient(base string, s Session) *Client {
	c := &Client{}
	add := func(logical, session string) {
		if logical != "" {
			c.prefixes = append(c.prefixes, prefix{strings.TrimRight(logical, "/"), session})
		}
	}
	add(s.Embeddings, base+"/v1")
	add(s.Model, base+"/v1")
	add(s.Gemini, base)
	add(s.Anthropic, base)
	add(s.Azure, base)
	add(s.Ollama, base)
	for name, logical := range s.Upstreams {
		add(logical, base+"/upstream/"+name)
	}
	sort.SliceStable(c.prefixes, func(i, j int) bool { return len(c.prefixes[i].logical) > len(c.prefixes[j].logical) })
	return c
}

// sessionURL maps a logical URL to the session's.
func (c *Client) sessionURL(u *url.URL) (*url.URL, bool) {
	raw := u.String()
	for _, p := range c.prefixes {
		if rest, ok := strings.CutPrefix(raw, p.logical); ok && (rest == "" || rest[0] == '/' || rest[0] == '?') {
			if p.session == "" {
				continue
			}
			out, err := url.Parse(p.session + rest)
			return out, err == nil
		}
	}
	return nil, false
}

// RoundTrip implements http.RoundTripper.
func (c *Client) RoundTrip(req *http.Request) (*http.Response, error) {
	target, ok := c.sessionURL(req.URL)
	if !ok {
		return nil, fmt.Errorf("%s %s: the proxy session has no route for this host", req.Method, req.URL.Redacted())
	}
	req = req.Clone(req.Context())
	req.URL, req.Host = target, target.Host
	if left, ok := c.deadlines.TimeLeft(req.Context()); ok {
		req.Header.Set(TimeoutHeader, strconv.FormatInt(int64(max(left, 0)), 10))
		// The proxy judges the deadline on the recorded duration; the
		// request itself must not be cut short by it.
		req = req.WithContext(context.WithoutCancel(req.Context()))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusGatewayTimeout {
		return resp, err
	}
	if d := resp.Header.Get(DeadlineHeader); d != "" {
		resp.Body.Close()
		var waited, took int64
		if _, err := fmt.Sscan(d, &waited, &took); err != nil {
			return nil, err
		}
		return nil, &cassette.DeadlineError{Method: req.Method, URL: resp.Header.Get(logicalHeader), Waited: time.Duration(waited), Took: time.Duration(took)}
	}
	if msg := resp.Header.Get(timeoutHeader); msg != "" {
		resp.Body.Close()
		return nil, &timeoutError{msg: msg}
	}
	return resp, nil
}

// timeoutErrorHeader, on a 504 answer, is the message of a timeout the
// session's transport met (a stand-in's injected timeout, say).
const timeoutHeader = "X-Testbed-Timeout-Error"

// timeoutError is a timeout met behind the proxy, as the agent would have
// met it without one: a net.Error whose Timeout is true.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string   { return e.msg }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }
