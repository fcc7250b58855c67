package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP describes an agent served as an MCP server, over streamable HTTP,
// the older HTTP+SSE transport, or its stdin and stdout: each user turn is
// one call of Tool.
type MCP struct {
	// URL is the server's endpoint (the SSE stream's, for TransportSSE);
	// {{port}} is the service's PORT. Empty for TransportStdio.
	URL string
	// Transport is "" (streamable HTTP), TransportSSE or TransportStdio.
	Transport string
	// Tool is the tool called per turn, like router.answer.
	Tool string
	// Args is the template of the call's arguments (plain values); nil
	// sends {"query": "{{input}}"}. A string that is one placeholder alone
	// takes its type.
	Args map[string]any
	// Reply is a jq path to the reply's text in the tool's structured
	// result (default: its text field when the result is an object).
	Reply string
	// Attachment is as HTTP's; a scenario with attachments needs
	// {{attachments}} in Args.
	Attachment any
}

// The MCP transports besides streamable HTTP.
const (
	// TransportSSE is the HTTP+SSE transport of MCP's 2024-11-05
	// revision: an event stream at URL, and messages POSTed to the
	// endpoint it names.
	TransportSSE = "sse"
	// TransportStdio is a server on the program's stdin and stdout
	// (newline-delimited JSON-RPC), the way most MCP clients start one:
	// one session for the program's life.
	TransportStdio = "stdio"
)

// Keys of a tool result's _meta under which a server run by testbed (testbed
// serve) reports what HTTP does not show, as a JSON-lines reply does in
// notes and tools.
const (
	MetaNotes = "testbed/notes"
	MetaTools = "testbed/tools"
)

// toolCall is a conversation with an MCP server: one client session per
// scenario run.
type toolCall struct {
	spec    *MCP
	reply   *replyPath
	vars    vars
	in      []string
	session *mcp.ClientSession
	timeout time.Duration
	kept    bool     // the session is the program's (stdio), not the run's
	stop    func()   // ends the run's session's requests; nil when kept
	proc    *process // the program serving it, whose output errors quote
}

// connect opens the conversation's MCP session, over hc, within timeout.
// The session's requests (the SSE transport's event stream) live until
// ctx ends or stop is called.
func connect(ctx context.Context, spec *MCP, v vars, hc *http.Client, timeout time.Duration) (s *mcp.ClientSession, stop func(), err error) {
	ctx, stop = context.WithCancel(ctx)
	late := time.AfterFunc(timeout, stop)
	defer func() {
		if !late.Stop() || err != nil {
			stop()
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "testbed", Version: "0"}, nil)
	url := v.text(spec.URL)
	var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}
	if spec.Transport == TransportSSE {
		t = &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}
	}
	if s, err = client.Connect(ctx, t, nil); err != nil {
		return nil, nil, fmt.Errorf("connect to the agent's MCP server at %s: %w", url, err)
	}
	return s, stop, nil
}

// connectStdio opens the MCP session of a stdio server, p, over its stdin
// and stdout.
func connectStdio(ctx context.Context, p *process, timeout time.Duration) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "testbed", Version: "0"}, nil)
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: p.raw, Writer: p.stdin}, nil)
	if err != nil {
		// A program that exited closed its stdout a moment before its
		// exit is seen: wait for that.
		select {
		case <-p.done:
			return nil, p.gone("before the MCP session opened", nil)
		case <-time.After(time.Second):
		}
		return nil, fmt.Errorf("open an MCP session on the agent's stdin and stdout: %w%s", err, p.tail())
	}
	return s, nil
}

// ask calls the tool with turn i.
func (c *toolCall) ask(ctx context.Context, i int) (turnOut, error) {
	v := c.vars.at(i, c.in[i])
	args := c.spec.Args
	if args == nil {
		args = map[string]any{"query": "{{input}}"}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: c.spec.Tool, Arguments: v.value(args)})
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return turnOut{}, fmt.Errorf("the agent did not answer within %s", c.timeout)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
			// The program closed its side as it died: what it said on
			// the way out is read once it has exited.
			c.proc.awaitExit(time.Second)
		}
		return turnOut{}, fmt.Errorf("call %s: %w%s", c.spec.Tool, err, c.proc.tail())
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			if text.Len() > 0 && !strings.HasSuffix(text.String(), "\n") {
				text.WriteByte('\n') // each block on lines of its own
			}
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return turnOut{}, fmt.Errorf("the tool %s answered an error: %s", c.spec.Tool, clip(text.String()))
	}
	out, err := c.result(res, text.String())
	if err != nil {
		return out, err
	}
	// Notes and tools the server reports, in the JSON-lines reply's shape.
	if b, err := json.Marshal(map[string]any{"notes": res.Meta[MetaNotes], "tools": res.Meta[MetaTools]}); err == nil {
		var reports turnOut
		if json.Unmarshal(b, &reports) == nil {
			out.Notes, out.Tools = reports.Notes, reports.Tools
		}
	}
	return out, nil
}

// result reads a tool result: its structured content (or its text, when
// that is a JSON object) is the data, and the text is the data's text
// field or reply path; a result without structure is its text.
func (c *toolCall) result(res *mcp.CallToolResult, text string) (turnOut, error) {
	var data []byte
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return turnOut{}, err
		}
		data = b
	} else if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		data = []byte(t)
	}
	if data == nil {
		if c.reply != nil {
			return turnOut{}, fmt.Errorf("the tool %s answered text, not JSON, and reply: %s needs JSON: %s", c.spec.Tool, c.reply.expr, clip(text))
		}
		return turnOut{Text: &text}, nil
	}
	out, err := fromJSON(data, c.reply)
	if err != nil && c.reply == nil {
		// Structured, but with no text field: the text content is the reply.
		out, err = turnOut{Text: &text, Data: data}, nil
	}
	out.Notes, out.Tools = nil, nil
	return out, err
}

// end closes the run's MCP session; a stdio server's ends with its
// program.
func (c *toolCall) end() error {
	if !c.kept {
		c.session.Close()
		c.stop()
	}
	return nil
}
