package odbchat

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnswerInput is router.answer's MCP input.
type AnswerInput struct {
	Query string `json:"query" jsonschema:"the user's free-text question"`
	Debug bool   `json:"debug,omitempty" jsonschema:"include the plan and tool result in the text"`
}

// NewMCPServer returns an MCP server that exposes a as the tool
// router.answer, as ODBchat's server does. Serve it with
// mcp.NewStreamableHTTPHandler.
func NewMCPServer(a *Agent) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "odb-chat-server", Version: "0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "router.answer",
		Description: "Single-pass classifier+router: decide mcp|explain|code; when mcp, select a GHRSST tool and its arguments, execute and render.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in AnswerInput) (*mcp.CallToolResult, Envelope, error) {
		env, err := a.Answer(ctx, in.Query)
		if err != nil {
			return nil, Envelope{}, err
		}
		if !in.Debug {
			env.Raw.ToolResult = nil
		}
		return nil, env, nil
	})
	return s
}
