package wire

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Anthropic's tool types, from its tool use guides: a tool without a type
// (or "custom") is the client's own, described by its input_schema. One of
// Anthropic's typed client tools (bash, the text editor, memory) carries
// no schema: the API gives the model its built-in definition, and the
// client runs it. The stand-in reads such a tool as that definition, in
// our words (anthropicBuiltins), so it may call it as a model would. The
// other types are server tools (web search, web fetch, code execution,
// tool search, an MCP toolset, and the tools of the MCP servers a request
// names in mcp_servers), which the API runs itself, and computer use, which
// needs a screen the stand-in cannot see: it refuses a request offering
// one, as it refuses the Responses API's hosted tools, rather than answer
// as a model without it; reading recorded traffic leaves them out.

// anthropicBuiltin is a typed client tool's definition.
type anthropicBuiltin struct {
	description string
	schema      string
}

// fileEdits are the arguments the text editor and memory tools share.
const fileEdits = `"file_text": {"type": "string", "description": "The content of a file to create."},
			"old_str": {"type": "string", "description": "The text to replace, which must occur once."},
			"new_str": {"type": "string", "description": "The replacement text."},
			"insert_line": {"type": "integer", "description": "The line after which to insert."},
			"insert_text": {"type": "string", "description": "The text to insert."}`

// anthropicBuiltins are the typed client tools, by the prefix of their
// type (the versions differ in details the stand-in does not model).
var anthropicBuiltins = map[string]anthropicBuiltin{
	"bash_": {
		description: "Run a command in a persistent bash shell and return its output; restart the shell when asked.",
		schema: `{"type": "object", "properties": {
			"command": {"type": "string", "description": "The bash command to run."},
			"restart": {"type": "boolean", "description": "Restart the shell instead."}}}`,
	},
	"text_editor_": {
		description: "View, create and edit text files: view a file or a directory, create a file, replace a unique string in a file, or insert text after a line.",
		schema: `{"type": "object", "properties": {
			"command": {"type": "string", "enum": ["view", "create", "str_replace", "insert"]},
			"path": {"type": "string", "description": "The file or directory path."},
			` + fileEdits + `,
			"view_range": {"type": "array", "items": {"type": "integer"}, "description": "The first and last lines to view."}},
			"required": ["command", "path"]}`,
	},
	"memory_": {
		description: "Remember and recall information across conversations in a memory directory of files: view, create, edit, rename and delete memory files under /memories.",
		schema: `{"type": "object", "properties": {
			"command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "delete", "rename"]},
			"path": {"type": "string", "description": "The memory file or directory, under /memories."},
			` + fileEdits + `,
			"old_path": {"type": "string", "description": "The path to rename."},
			"new_path": {"type": "string", "description": "The new path."}},
			"required": ["command"]}`,
	},
}

// anthropicTool is one tool of a Messages request.
type anthropicTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Strict asks for strict tool use: the input constrained to the
	// schema, which must then be in structured outputs' subset
	// (anthropicSchemas).
	Strict *bool `json:"strict"`
}

// read is t as the model reads it: a client tool as given, a typed client
// tool as its built-in definition; ok is false for a server tool or
// computer use.
func (t anthropicTool) read() (llm.Tool, bool) {
	if t.Type == "" || t.Type == "custom" {
		return llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}, true
	}
	for prefix, b := range anthropicBuiltins {
		if strings.HasPrefix(t.Type, prefix) {
			return llm.Tool{Name: t.Name, Description: b.description, Parameters: json.RawMessage(b.schema)}, true
		}
	}
	return llm.Tool{}, false
}

// tools are the tools ar offers as the model reads them. When strict (the
// stand-in answering), a server tool, computer use or an MCP server
// (mcp_servers) is an error; else (reading traffic) it is left out.
func (ar anthropicRequest) tools(strict bool) ([]llm.Tool, error) {
	if len(ar.MCPServers) > 0 && strict {
		return nil, fmt.Errorf("mcp_servers.0: the stand-in runs no server tools: it cannot call the tools of the MCP server %q, which the API calls itself (the MCP connector); record this agent against the real API instead (testbed record --provider anthropic)", ar.MCPServers[0].Name)
	}
	var tools []llm.Tool
	for i, t := range ar.Tools {
		tool, ok := t.read()
		if !ok {
			if strict {
				return nil, fmt.Errorf("tools.%d: the stand-in runs no server tools and sees no screen: it cannot serve a %q tool (it serves the client's own tools, and bash, text_editor and memory); record this agent against the real API instead (testbed record --provider anthropic)", i, t.Type)
			}
			continue
		}
		tools = append(tools, tool)
	}
	return tools, nil
}
