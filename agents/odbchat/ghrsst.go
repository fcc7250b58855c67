package odbchat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentreplay/testbed/agents"
)

// ghrsstClient calls the GHRSST tools on the upstream MCP server
// (<base>/mcp/ghrsst) with the official MCP Go SDK over streamable HTTP,
// through the agent's *http.Client. As the real server's proxy
// (server/api/ghrsst_mcp_proxy.py) does, every call opens its own MCP
// session: initialize, notifications/initialized, tools/call, then DELETE.
type ghrsstClient struct {
	endpoint string
	http     *http.Client
	timeout  time.Duration // per tool call, the whole session
}

// MCPPath is where the GHRSST MCP server answers under the upstream's base.
const MCPPath = "/mcp/ghrsst"

// MCPProtocolVersion is the MCP protocol version the client asks for: the
// one FastMCP servers of the upstream's time speak, so that the session
// opens with initialize (newer versions try server/discover first).
const MCPProtocolVersion = "2025-06-18"

// RequestTimeout is how long ODBchat waits for one GHRSST tool call: the
// HTTP timeout of the MCP streamable-HTTP client the real server's GHRSST
// proxy uses (30 s). A call that takes longer is UNAVAILABLE (seed §4.9).
const RequestTimeout = 30 * time.Second

func newGHRSSTClient(base string, hc *http.Client, timeout time.Duration) *ghrsstClient {
	return &ghrsstClient{endpoint: strings.TrimRight(base, "/") + MCPPath, http: hc, timeout: timeout}
}

// toolOutput is what the GHRSST tools return (their structured content).
type toolOutput struct {
	Region        []float64 `json:"region"`
	Date          string    `json:"date"`
	Sample        int       `json:"sample"`
	SST           *float64  `json:"sst"`
	SSTAnomaly    *float64  `json:"sst_anomaly"`
	RequestedDate string    `json:"requested_date"`
}

// query calls tool with args and returns the normalized result and the
// tool's raw answer (its structured content, or its text for an error).
func (c *ghrsstClient) query(ctx context.Context, tool string, args Args) (*ToolResult, []byte, error) {
	res := &ToolResult{Tool: tool, Arguments: args, Date: args.Date}
	in := map[string]any{"date": args.Date, "fields": args.Fields}
	if tool == ToolBBoxMean {
		in["bbox"] = args.BBox
	} else {
		in["longitude"], in["latitude"] = *args.Longitude, *args.Latitude
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	t := &callTransport{call: ctx, next: c.http.Transport}
	out, err := c.call(ctx, t, tool, in)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return c.fail(res, CodeUnavailable, fmt.Sprintf("the GHRSST service did not answer within %s", c.timeout)), nil, res.Error
	case err != nil && t.oversized.Load():
		// The SDK reports a body it could not read without its cause.
		return c.fail(res, CodeUnavailable, "the GHRSST answer "+agents.Unreadable(agents.ErrTooLarge)), nil, res.Error
	case err != nil:
		return c.fail(res, CodeUnavailable, "the GHRSST service did not answer"), nil, res.Error
	}
	if out.IsError {
		code, msg := mapError(toolErrorText(out))
		return c.fail(res, code, msg), []byte(msg), res.Error
	}
	// The structured content, or else the text as JSON, as the real proxy
	// reads a tool's result.
	raw := []byte(textOf(out))
	if out.StructuredContent != nil {
		raw, err = json.Marshal(out.StructuredContent)
	}
	var got toolOutput
	if err == nil {
		err = json.Unmarshal(raw, &got)
	}
	if err != nil {
		return c.fail(res, CodeUnavailable, "the GHRSST answer is not a JSON result"), raw, res.Error
	}
	res.Region, res.Sample, res.SST, res.SSTAnomaly = got.Region, got.Sample, got.SST, got.SSTAnomaly
	if got.Date != "" {
		res.Date = got.Date
	}
	res.RequestedDate = got.RequestedDate
	if res.SST == nil && res.SSTAnomaly == nil {
		res.landOnly = true
		return c.fail(res, CodeNotFound, fmt.Sprintf("no sea-surface data on %s at this location (land or ice)", res.Date)), raw, res.Error
	}
	return res, raw, nil
}

// call runs one tool in a session of its own, carried by t.
func (c *ghrsstClient) call(ctx context.Context, t *callTransport, tool string, in map[string]any) (*mcp.CallToolResult, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "odb-chat-server", Version: "0.1.0"}, nil)
	hc := *c.http
	hc.Transport = t
	// No standalone SSE stream: the GHRSST server sends nothing unasked, and
	// a stream left open would never end in a recording.
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.endpoint, HTTPClient: &hc, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: MCPProtocolVersion})
	if err != nil {
		return nil, err
	}
	defer session.Close()
	return session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: in})
}

func (c *ghrsstClient) fail(res *ToolResult, code, msg string) *ToolResult {
	res.Error = &ToolError{Code: code, Message: msg}
	return res
}

// textOf joins the text content of a tool's result.
func textOf(out *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range out.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

// toolErrorText is the text of a tool error, without the "Error calling
// tool '<name>': " FastMCP puts before an exception that is not a
// ToolError (the real router strips it too).
func toolErrorText(out *mcp.CallToolResult) string {
	msg := textOf(out)
	if strings.HasPrefix(msg, "Error calling tool") {
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
	}
	return msg
}

// mapError maps a GHRSST tool error to a standard code: no data for the
// day is NOT_FOUND, the REST API failing behind the tool is UNAVAILABLE,
// anything else (a bad date, too many points, a bbox out of range) is
// INVALID_ARGUMENT.
func mapError(msg string) (string, string) {
	if r := []rune(msg); len(r) > 160 {
		msg = string(r[:160]) + "…"
	}
	switch {
	case strings.HasPrefix(msg, "GHRSST API "), strings.Contains(msg, "No available dates"):
		return CodeUnavailable, msg
	case strings.Contains(msg, "Data not exist"), strings.HasPrefix(msg, "No data"), strings.Contains(msg, "available date"):
		return CodeNotFound, msg
	}
	return CodeInvalidArgument, msg
}

// callTransport carries one tool call's session. It sends nothing once the
// call's context is done, so that a call that timed out does not wait
// another 5 s for the SDK's DELETE of its session, and it refuses a
// response body over agents.MaxResponseBytes, as agents.ReadBody does for
// the REST calls of the other agents, noting that it did.
type callTransport struct {
	call      context.Context
	next      http.RoundTripper
	oversized atomic.Bool
}

func (t *callTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.call.Err(); err != nil {
		return nil, err
	}
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{ReadCloser: resp.Body, left: agents.MaxResponseBytes, over: &t.oversized}
	return resp, nil
}

type limitedBody struct {
	io.ReadCloser
	left int64
	over *atomic.Bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, agents.ErrTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.over.Store(true)
		return n, fmt.Errorf("%w: over %d bytes", agents.ErrTooLarge, agents.MaxResponseBytes)
	}
	return n, err
}
