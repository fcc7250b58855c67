package odbchat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/agenttest"
	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/agents/llm/openai"
	"github.com/agentreplay/testbed/agents/odbchat"
	"github.com/agentreplay/testbed/harness/standin/standintest"
)

// tracer records what the agent reports.
type tracer = agenttest.Tracer

// Logical hosts the agent calls by default (odbchat.Info).
const (
	modelHost  = "localhost:11434"
	ghrsstHost = "eco.odb.ntu.edu.tw"
)

// step is how far the test clock moves on every HTTP request, so that the
// agent's timings are exact multiples of it.
const step = 250 * time.Millisecond

// clock is the scenario's clock: 2025-11-06 10:00 in Taipei, moved only by
// the transport.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock {
	return &clock{now: time.Date(2025, 11, 6, 10, 0, 0, 0, time.FixedZone("CST", 8*3600))}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// transport sends each logical host to a loopback server, logs every request
// by its logical URL and moves the clock by step per request. A request to
// any other host fails: nothing leaves the machine.
type transport struct {
	hosts map[string]string // logical host → 127.0.0.1:port
	clock *clock
	base  *http.Transport

	mu   sync.Mutex
	seen []seenRequest
}

// seenRequest is one request the transport passed on.
type seenRequest struct {
	url    *url.URL
	method string
	body   []byte
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	target, ok := t.hosts[req.URL.Host]
	if !ok {
		return nil, fmt.Errorf("test transport: no server for host %q", req.URL.Host)
	}
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	t.mu.Lock()
	u := *req.URL
	t.seen = append(t.seen, seenRequest{url: &u, method: req.Method, body: body})
	t.mu.Unlock()
	t.clock.advance(step)
	out := req.Clone(req.Context())
	out.URL.Scheme, out.URL.Host, out.Host = "http", target, target
	return t.base.RoundTrip(out)
}

// requests returns the logged requests to host.
func (t *transport) requests(host string) []*url.URL {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*url.URL
	for _, r := range t.seen {
		if r.url.Host == host {
			out = append(out, r.url)
		}
	}
	return out
}

// toolCall is the params of one MCP tools/call request.
type toolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// toolCalls returns the MCP tools/call requests sent to host, in order,
// and checks that each went to the GHRSST MCP endpoint.
func (t *transport) toolCalls(host string) []toolCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []toolCall
	for _, r := range t.seen {
		var msg struct {
			Method string   `json:"method"`
			Params toolCall `json:"params"`
		}
		if r.url.Host != host || r.method != http.MethodPost || json.Unmarshal(r.body, &msg) != nil || msg.Method != "tools/call" {
			continue
		}
		Expect(r.url.Path).To(Equal(odbchat.MCPPath))
		out = append(out, msg.Params)
	}
	return out
}

// jsonRPCMethods returns the method of every request sent to host, in
// order: the JSON-RPC method of a POST, the HTTP method otherwise.
func (t *transport) jsonRPCMethods(host string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, r := range t.seen {
		if r.url.Host != host {
			continue
		}
		var msg struct {
			Method string `json:"method"`
		}
		if r.method == http.MethodPost && json.Unmarshal(r.body, &msg) == nil {
			out = append(out, msg.Method)
		} else {
			out = append(out, r.method)
		}
	}
	return out
}

// counting is an llm.Client that records every request it passes on.
type counting struct {
	llm.Client
	mu    sync.Mutex
	calls []llm.Request
}

func (c *counting) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	c.calls = append(c.calls, req)
	c.mu.Unlock()
	return c.Client.Chat(ctx, req)
}

// roles returns the Role of every call, in order.
func (c *counting) roles() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.calls {
		out = append(out, r.Role)
	}
	return out
}

// world is one agent wired to a stand-in model and the GHRSST stub, both on
// loopback, behind the logical hosts it calls in production.
type world struct {
	clock     *clock
	transport *transport
	tracer    *tracer
	model     *counting
	http      *http.Client
}

// newWorld starts the stand-in model and the GHRSST stub for one spec.
func newWorld() *world {
	stubs, err := standintest.Start("../../fixtures/odbchat/routes.yaml")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stubs.Close)

	w := &world{clock: newClock(), tracer: &tracer{}}
	base := &http.Transport{}
	DeferCleanup(base.CloseIdleConnections)
	w.transport = &transport{clock: w.clock, base: base, hosts: map[string]string{
		modelHost:  agenttest.HostOf(stubs.Model),
		ghrsstHost: agenttest.HostOf(stubs.Upstream),
	}}
	w.http = &http.Client{Transport: w.transport}
	info := odbchat.Info()
	w.model = &counting{Client: openai.New(info.Model.BaseURL, info.Model.Model, "", w.http)}
	return w
}

// config is the agents.Config of w with variant.
func (w *world) config(variant map[string]any) agents.Config {
	return agents.Config{
		Model:   w.model,
		HTTP:    w.http,
		Clock:   w.clock.Now,
		Tracer:  w.tracer,
		Variant: variant,
		Data:    os.DirFS("../../fixtures/odbchat"),
	}
}

// agent builds the agent through odbchat.New.
func (w *world) agent(variant map[string]any) agents.Agent {
	a, err := odbchat.New(w.config(variant))
	Expect(err).NotTo(HaveOccurred())
	return a
}

// ask runs one turn and returns its envelope.
func ask(a agents.Agent, query string) odbchat.Envelope {
	ans, err := a.Run(context.Background(), agents.Input{Turns: []string{query}})
	Expect(err).NotTo(HaveOccurred())
	Expect(ans.Replies).To(HaveLen(1))
	env, ok := ans.Last().Data.(odbchat.Envelope)
	Expect(ok).To(BeTrue(), "reply data is %T", ans.Last().Data)
	Expect(ans.Last().Text).To(Equal(env.Text))
	return env
}

var singlePass = map[string]any{"router": odbchat.RouterSinglePass}
var legacy = map[string]any{"router": odbchat.RouterLegacy}

// ms is d in the agent's millisecond timings.
func ms(n int) int64 { return int64(n) * step.Milliseconds() }
