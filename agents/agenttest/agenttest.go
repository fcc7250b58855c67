// Package agenttest holds the test doubles that every agent's specs use for
// the seams of agents.Config: a Tracer that keeps what the agent reports, and
// a Transport that sends logical hosts to loopback servers and logs each
// request; and Replies, which runs an agent and checks its typed replies. It
// imports nothing from the harness: the stand-in model and upstream stubs
// the agents' specs run against come from harness/standin/standintest.
// Only tests import it.
package agenttest

import (
	"encoding/json"
	"slices"
	"sync"
)

// ToolReport is one Tracer.Tool report; ID is the model's call it ran,
// when the agent reported it through agents.ReportTool.
type ToolReport struct {
	ID      string
	Name    string
	Args    json.RawMessage
	Raw     []byte
	Context string
	Err     error
}

type note struct {
	key   string
	value any
}

// Tracer is an agents.Tracer that keeps every report, in order. It is safe
// for concurrent use.
type Tracer struct {
	mu    sync.Mutex
	tools []ToolReport
	notes []note
}

// Tool keeps a copy of the report.
func (t *Tracer) Tool(name string, args json.RawMessage, raw []byte, context string, err error) {
	t.ToolCall("", name, args, raw, context, err)
}

// ToolCall keeps a copy of the report, with the id of the model's call
// (agents.ToolCallTracer).
func (t *Tracer) ToolCall(id, name string, args json.RawMessage, raw []byte, context string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tools = append(t.tools, ToolReport{ID: id, Name: name, Args: slices.Clone(args), Raw: slices.Clone(raw), Context: context, Err: err})
}

// Note keeps the note.
func (t *Tracer) Note(key string, value any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notes = append(t.notes, note{key, value})
}

// Noted returns the values noted under key, in order.
func (t *Tracer) Noted(key string) []any {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []any
	for _, n := range t.notes {
		if n.key == key {
			out = append(out, n.value)
		}
	}
	return out
}

// Reports returns the Tool reports of the named tool ("" for all), in order.
func (t *Tracer) Reports(name string) []ToolReport {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []ToolReport
	for _, r := range t.tools {
		if name == "" || r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// ToolNames returns the name of every Tool report, in order.
func (t *Tracer) ToolNames() []string {
	var out []string
	for _, r := range t.Reports("") {
		out = append(out, r.Name)
	}
	return out
}
