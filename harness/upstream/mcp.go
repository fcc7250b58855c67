package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/cassette"
)

// MCPEndpoint is one entry of a routes file's mcp: list: a fixture MCP
// server, built on the official MCP Go SDK and served over streamable HTTP
// at Path, whose tools answer from the file's routes as the real server's
// tools answer from its REST API.
type MCPEndpoint struct {
	Path   string // where the server answers, such as /mcp/ghrsst
	Server string // which fixture server: one of MCPServers
	Line   int    // line of the entry in the routes file

	handler *mcpHandler
}

// MCPServers names the fixture MCP servers a routes file may serve.
func MCPServers() []string { return []string{"ghrsst"} }

// Modelled latencies of the MCP exchanges that run no tool. A tools/call
// takes toolCallLatency plus the modelled latency of every REST request
// its tool made.
const (
	initializeLatency = 20 * time.Millisecond
	messageLatency    = 5 * time.Millisecond // a notification, a DELETE, anything else
	toolCallLatency   = 10 * time.Millisecond
)

// mcpList decodes the mcp: list.
func (l *loader) mcpList(rs *Routes, v *yaml.Node) {
	if v.Kind != yaml.SequenceNode {
		l.addf(v.Line, "mcp must be a list")
		return
	}
	for _, n := range v.Content {
		var e struct {
			Path   string `yaml:"path"`
			Server string `yaml:"server"`
		}
		if err := n.Decode(&e); err != nil || n.Kind != yaml.MappingNode {
			l.addf(n.Line, "an mcp entry must be a mapping with path: and server:")
			continue
		}
		switch {
		case len(e.Path) == 0 || e.Path[0] != '/':
			l.addf(n.Line, "mcp path %q must start with /", e.Path)
		case e.Server != "ghrsst":
			l.addf(n.Line, "mcp server %q: want one of %v", e.Server, MCPServers())
		default:
			ep := MCPEndpoint{Path: e.Path, Server: e.Server, Line: n.Line}
			ep.handler = newMCPHandler(e.Server, func(s *mcp.Server, h *mcpHandler) { addGHRSSTTools(s, rs, h) })
			rs.MCP = append(rs.MCP, ep)
		}
	}
}

// mcpFor returns the MCP endpoint served at path, or nil.
func (rs *Routes) mcpFor(path string) *MCPEndpoint {
	for i := range rs.MCP {
		if rs.MCP[i].Path == path {
			return &rs.MCP[i]
		}
	}
	return nil
}

// mcpHandler serves one fixture MCP server: the SDK's streamable HTTP
// handler, answering in JSON, behind a layer that serves injected faults,
// states each exchange's modelled latency and hands out session ids in
// order (name-1, name-2, …), never random ones.
type mcpHandler struct {
	sdk http.Handler

	mu       sync.Mutex
	sessions int
	spent    map[string]time.Duration // session id → modelled time of its tool call under way
}

func newMCPHandler(name string, tools func(*mcp.Server, *mcpHandler)) *mcpHandler {
	h := &mcpHandler{spent: map[string]time.Duration{}}
	s := mcp.NewServer(&mcp.Implementation{Name: name + "-mcp", Version: "0.1.0"}, &mcp.ServerOptions{
		GetSessionID: func() string {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.sessions++
			return name + "-" + strconv.Itoa(h.sessions)
		},
	})
	tools(s, h)
	h.sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	return h
}

// spend adds d to the modelled time of the tool call under way in session.
func (h *mcpHandler) spend(session string, d time.Duration) {
	h.mu.Lock()
	h.spent[session] += d
	h.mu.Unlock()
}

// took returns, and forgets, the modelled time spent in session.
func (h *mcpHandler) took(session string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.spent[session]
	delete(h.spent, session)
	return d
}

func (h *mcpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		// The standalone event stream a client may open for the server's
		// own messages: a fixture server sends none, so it offers none,
		// with the 405 the MCP transport allows. The SDK's handler held
		// the request open until the client cancelled it, which aborted a
		// recording (the TypeScript SDK's client opens it).
		hd := w.Header()
		hd["Date"] = nil
		hd.Set("Allow", "POST, DELETE")
		hd.Set(LatencyHeader, messageLatency.String())
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	fault := r.Header.Get(cassette.FaultHeader)
	if writeErrorFault(w, fault) {
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, agents.MaxResponseBytes))
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &msg)
	buf := &bufferedWriter{header: http.Header{}}
	h.sdk.ServeHTTP(buf, r)

	latency := messageLatency
	switch {
	case msg.Method == "initialize":
		latency = initializeLatency
	case msg.Method == "tools/call" && msg.ID != nil:
		latency = toolCallLatency + h.took(r.Header.Get("Mcp-Session-Id"))
	}
	out := buf.body.Bytes()
	switch fault {
	case FaultSlow:
		latency += SlowBy
	case FaultStall:
		latency += StallBy
	case FaultOversized:
		out = append(out, bytes.Repeat([]byte(" "), max(0, agents.MaxResponseBytes+1024-len(out)))...)
	default:
		fault = ""
	}
	hd := w.Header()
	for k, vs := range buf.header {
		hd[k] = vs
	}
	hd["Date"] = nil // recordings must not change with the wall clock
	if fault != "" {
		hd.Set(cassette.FaultHeader, fault)
	}
	hd.Set(LatencyHeader, latency.String())
	hd.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(buf.status())
	w.Write(out)
}

// bufferedWriter keeps what the SDK answers, so that the latency it models
// can be stated in a header once the tool has run.
type bufferedWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}

// Flush is a no-op: the whole answer is sent at once.
func (b *bufferedWriter) Flush() {}

func (b *bufferedWriter) status() int {
	if b.code == 0 {
		return http.StatusOK
	}
	return b.code
}

// errorStatus maps the fault kinds that answer with an error status.
var errorStatus = map[string]int{FaultUnauthorized: http.StatusUnauthorized, FaultNotFound: http.StatusNotFound, FaultServer: http.StatusInternalServerError}

// writeErrorFault answers w with the error status fault asks for, and
// reports whether it did.
func writeErrorFault(w http.ResponseWriter, fault string) bool {
	status := errorStatus[fault]
	if status == 0 {
		return false
	}
	h := w.Header()
	h["Date"] = nil
	h.Set(cassette.FaultHeader, fault)
	h.Set("Content-Type", "application/json")
	h.Set(LatencyHeader, errorLatency.String())
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error": {"code": %d, "message": "%s (injected fault)"}}`+"\n", status, http.StatusText(status))
	return true
}
