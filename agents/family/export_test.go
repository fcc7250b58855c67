package family

import (
	"context"
	"encoding/json"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family/attach"
)

// JQ runs the jq_query tool with arguments argJSON over one attachment, id
// att-1, holding data, and returns the tool message and whether it succeeded.
// It exports the tool's input handling to the fuzz target of package
// family_test without a model in the loop.
func JQ(ctx context.Context, data []byte, argJSON json.RawMessage) (text string, ok bool) {
	a := &Agent{store: attach.NewStore()}
	a.store.Put("data.json", "application/json", "fuzz", data)
	res, _ := a.jq(ctx, argJSON)
	return res.text, res.ok
}

// JQMaxOutput is the bound of a jq_query result, in bytes.
const JQMaxOutput = jqMaxOutput

// HistoryFile is the attachment download_state_history saves.
type HistoryFile = historyFile

// EntityHistory is one entity's states in a HistoryFile.
type EntityHistory = entityHistory

// CompileSchema compiles a JSON schema document as the chart tool compiles
// Vega-Lite's.
var CompileSchema = compileSchema

// SchemaProblems is what the chart tool's error says the schema rejects.
var SchemaProblems = schemaProblems

// Attachments returns what the agent a, made by New, has stored.
func Attachments(a agents.Agent) []attach.Attachment { return a.(*Agent).store.All() }
