package odbchat

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnswerInput is router.answer's MCP input.
type AnswerInput struct {
	Query string `json:"query" jsonschema:"the user's free-text question"`
	Debug bool   `json:"debug,omitempty" jsonschema:"include the timings and retries (raw.trace)"`
}

// AnswerFunc answers one router.answer query, as (*Agent).Answer does.
type AnswerFunc func(ctx context.Context, query string) (Envelope, error)

// NewMCPServer returns an MCP server that exposes answer (an Agent's
// Answer, say) as the tool router.answer, as ODBchat's server does: the
// tool's result is the Envelope, with raw.plan and raw.tool_result always
// and raw.trace only when the call asks for debug. An error of answer is
// the tool's error. Serve it with mcp.NewStreamableHTTPHandler.
func NewMCPServer(answer AnswerFunc) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "odb-chat-server", Version: "0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "router.answer",
		Description: "Single-pass classifier+router: decide mcp|explain|code; when mcp, select a GHRSST tool and its arguments, execute and render.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in AnswerInput) (*mcp.CallToolResult, Envelope, error) {
		env, err := answer(ctx, in.Query)
		if err != nil {
			return nil, Envelope{}, err
		}
		if !in.Debug {
			env.Raw.Trace = nil
		}
		return nil, env, nil
	})
	return s
}
