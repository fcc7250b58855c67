// Package agents is the contract between testbed and the agent systems it runs.
//
// An agent is an ordinary program: it takes a model client, an *http.Client for
// every upstream call, a clock, and a Tracer, and answers user turns. It never
// imports the harness; whatever the harness learns, it learns through Config.
package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
)

// Agent answers scenarios.
type Agent interface {
	// Run answers one scenario: all user turns, in order, sharing the agent's state.
	Run(ctx context.Context, in Input) (Answer, error)
}

// Timed is an optional capability of an Agent that runs outside testbed's
// process: where the wall time of its last Run went. Wall time varies from
// run to run; it is reported beside the replayed latency, never in it.
type Timed interface {
	Timing() Timing
}

// Timing is the wall time of one Run of an agent that runs outside testbed.
type Timing struct {
	// Total is the whole Run.
	Total time.Duration
	// Start is from starting the program to its first sign of life (its
	// first call or its first reply): the process start, its runtime and
	// imports, and a service's wait until it listens. Zero when a kept
	// (keep_alive) program served the run.
	Start time.Duration
	// Calls is the time spent answering the program's calls through its
	// proxy session: the traffic decoding and the cassette.
	Calls time.Duration
}

// Input is what a user says over one conversation.
type Input struct {
	Turns []string
	// Attachments are files the user sends with the first turn.
	Attachments []Attachment
}

// Attachment is a file a user sends.
type Attachment struct {
	Name        string
	MIME        string
	Description string
	Data        []byte
}

// Artifact is an output an agent produces besides its text, such as a chart
// specification; agents report it with Tracer.Note(NoteArtifact, artifact).
type Artifact struct {
	Kind  string          `json:"kind"` // e.g. "vega-lite"
	Title string          `json:"title,omitempty"`
	Spec  json.RawMessage `json:"spec"`
}

// Answer holds one Reply per user turn, in order.
type Answer struct {
	Replies []Reply
}

// Reply is the agent's answer to one user turn.
type Reply struct {
	// Text is what the user sees.
	Text string
	// Data is the structured envelope behind Text (for example ODBchat's
	// {mode, text, source, confidence, raw}); it must marshal to JSON.
	Data any
}

// Config is everything an agent is built from.
type Config struct {
	Model     llm.Client        // provider-neutral chat, built over HTTP
	Endpoint  llm.Endpoint      // the endpoint Model talks to (an agent outside testbed calls it by HTTP)
	Embedder  llm.Embedder      // embeddings, for agents whose Info names an endpoint; else nil
	HTTP      *http.Client      // every upstream call goes through it
	Clock     func() time.Time  // the scenario's "now"; agents never call time.Now
	Tracer    Tracer            // what the harness cannot see from HTTP alone
	Upstreams map[string]string // logical base URLs by name ("ghrsst", …)
	Variant   map[string]any    // the variant's config block, decoded strictly by the agent
	Secrets   map[string]string // keys from the environment; never logged, never recorded
	Data      fs.FS             // read-only data the agent ships with (knowledge bases); may be nil
	Logger    *slog.Logger      // where the agent logs; nil discards
	Prompts   fs.FS             // where a variant's prompt files are looked up; may be nil
	Cache     *Cache            // indexes built from Data, shared by a run's agents (LoadOnce); nil builds afresh
	// KeptBy names the runs the harness runs one after the other, in the
	// same order every time, for one kept-alive program to serve (an agent
	// outside testbed, keep_alive); "" when the run has a program of its own.
	KeptBy string
}

// Tracer receives what an agent knows and HTTP does not show.
type Tracer interface {
	// Tool reports one tool call: the raw upstream bytes and the text that
	// was put into the model's context.
	Tool(name string, args json.RawMessage, raw []byte, context string, err error)
	// Note records a named fact, such as "route" or "t_classify_ms".
	Note(key string, value any)
}

// ModelTracer is implemented by the harness's Tracer. An agent that calls
// its model over raw HTTP rather than through Config.Model (an agent outside
// testbed) reports each call to it, as Config.Model does for the others:
// the request and response as read from the wire, and how long the call
// took on the scenario's clock.
type ModelTracer interface {
	ModelCall(req llm.Request, model string, resp llm.Response, err error, took time.Duration)
}

// EmbedTracer is implemented by the harness's Tracer. An agent that calls
// an embeddings endpoint over raw HTTP rather than through Config.Embedder
// reports each call to it: the model, the texts embedded (tokens counts
// inputs sent as token ids), the input tokens the provider reported (-1
// for none), what the request asked of its vectors (their encoding formats
// and dimensions, each when it said), and how long the call took on the
// scenario's clock.
type EmbedTracer interface {
	EmbedCall(model string, texts []string, tokens, reported int, asked llm.EmbedParams, err error, took time.Duration)
}

// ToolCallTracer is implemented by the harness's Tracer: Tracer.Tool with
// the id of the model's tool call that was run (llm.ToolCall.ID), which
// pairs the tool's report with the call the model asked for. Agents report
// through ReportTool, which falls back to Tool.
type ToolCallTracer interface {
	ToolCall(id, name string, args json.RawMessage, raw []byte, context string, err error)
}

// ReportTool reports one tool call to t as Tracer.Tool does, with id, the
// id of the model's call of the tool ("" when no call of the model's asked
// for it), when t takes one (ToolCallTracer).
func ReportTool(t Tracer, id, name string, args json.RawMessage, raw []byte, context string, err error) {
	if ct, ok := t.(ToolCallTracer); ok {
		ct.ToolCall(id, name, args, raw, context, err)
		return
	}
	t.Tool(name, args, raw, context, err)
}

// Route is the routing decision an agent notes under the key "route".
type Route struct {
	Mode string `json:"mode"`           // e.g. "tool", "explain", "code"
	Tool string `json:"tool,omitempty"` // the tool executed, if any
}

// Tracer.Note keys with a meaning to the harness.
const (
	// NoteRoute carries a Route.
	NoteRoute = "route"
	// NoteTurn carries the 0-based index of the user turn an agent starts
	// answering; Run notes it before each turn so that the harness can
	// attribute what follows to that turn.
	NoteTurn = "turn"
	// NoteArtifact carries an Artifact.
	NoteArtifact = "artifact"
	// NoteIsolation carries how an agent's program was kept off the
	// network, as a report's hermeticity line says it ("hermetic by network
	// namespace", "not isolated: …"); only agents run as programs note it.
	NoteIsolation = "isolation"
)

// Constructor builds an agent.
type Constructor func(Config) (Agent, error)

// Entry is one agent system as the harness knows it.
type Entry struct {
	Info Info
	New  Constructor
}

// Info describes an agent to the harness: its name and the endpoints it
// calls by default.
type Info struct {
	Name  string
	Model llm.Endpoint
	// Embeddings is the embeddings endpoint, if the agent uses one.
	Embeddings *llm.Endpoint
	Upstreams  map[string]string
	// Keys names the secrets the agent requires in Config.Secrets; replays
	// and stand-in recordings get placeholders.
	Keys []string
	// Secrets names credentials the agent reads from Config.Secrets when
	// given (an upstream's token). Like Keys, their values are redacted from
	// recordings and scanned for in cassettes, by name and by value.
	Secrets []string
	// Config names the keys a variant's config: block may set (VariantKeys
	// of the struct the agent decodes it into); any other key is refused.
	Config []string
}

// NopTracer discards everything; use it in production.
type NopTracer struct{}

// Tool implements Tracer.
func (NopTracer) Tool(string, json.RawMessage, []byte, string, error) {}

// Note implements Tracer.
func (NopTracer) Note(string, any) {}

// Last returns the final reply, or the zero Reply when there is none.
func (a Answer) Last() Reply {
	if len(a.Replies) == 0 {
		return Reply{}
	}
	return a.Replies[len(a.Replies)-1]
}

// PromptSet is one system prompt an agent sends and the tools the model has
// when it does.
type PromptSet struct {
	Name   string   // e.g. "router" or "prompts/minimal.md"
	Text   string   // the prompt as sent
	Active []string // tools the model can call with this prompt
	Known  []string // every tool name the agent knows, in any configuration
}

// Prompted is implemented by agents whose prompts name tools, so that a lint
// can check every named tool is one the model actually has.
type Prompted interface {
	PromptSets() []PromptSet
}

// VariantKeys returns the keys DecodeVariant accepts for dst, a struct or a
// pointer to one: the JSON names of its exported fields, in field order.
func VariantKeys(dst any) []string {
	t := reflect.TypeOf(dst)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
		case name == "":
			keys = append(keys, f.Name)
		default:
			keys = append(keys, name)
		}
	}
	return keys
}

// DecodeVariant decodes a variant's config block into dst strictly: an
// unknown key is an error. An empty block leaves dst as it is, so dst holds
// the defaults.
func DecodeVariant(v map[string]any, dst any) error {
	if len(v) == 0 {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}
