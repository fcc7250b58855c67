// Package cba is the CBA indicators assistant: a sustainable-agriculture data
// agent with many tools (weather and climate normals from Open-Meteo, soil
// properties from SoilGrids, and a knowledge base of CBA monitoring
// indicators and their methods). A reduced or full tool set is chosen by
// configuration; the reduced set is the real project's (without
// run_tools_parallel). The internal help tools (list_tools,
// list_tools_by_category, search_tools, describe_tool) are always enabled:
// appended at construction, held by the instance, never shown in a
// user-facing catalogue, and not counted in the tool count users see. Only
// help: false turns them off, to model the design's "before" state.
package cba

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

//go:embed prompts
var prompts embed.FS

// Name is the agent's registry name.
const Name = "cba"

// Info describes the default endpoints: qwen3:14b on a local Ollama, as the
// real project's default provider, and the public weather, soil, country and
// World Bank APIs.
func Info() agents.Info {
	return agents.Info{
		Config: agents.VariantKeys(options{}),
		Name:   Name,
		Model:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "http://localhost:11434/v1", Model: "qwen3:14b"},
		Upstreams: map[string]string{
			"geocoding":     "https://geocoding-api.open-meteo.com",
			"forecast":      "https://api.open-meteo.com",
			"climate":       "https://climate-api.open-meteo.com",
			"soilgrids":     "https://rest.isric.org",
			"restcountries": "https://restcountries.com",
			"worldbank":     "https://api.worldbank.org",
		},
	}
}

// Tool sets and prompts a variant may choose.
const (
	SetReduced = "reduced"
	SetFull    = "full"
)

type options struct {
	Tools    string `json:"tools"`     // reduced (default) or full
	Prompt   string `json:"prompt"`    // minimal (default), minimal-help, full, or a file under Config.Prompts
	Help     bool   `json:"help"`      // append the help tools (default true; false is the "before" state)
	MaxSteps int    `json:"max_steps"` // model calls per turn
	// UpstreamTimeout bounds each request to a weather or geocoding API
	// (default RequestTimeout).
	UpstreamTimeout agents.Duration `json:"upstream_timeout"`
}

// Agent is one CBA assistant with its active tool set.
type Agent struct {
	cfg    agents.Config
	opts   options
	system string
	prompt string  // the prompt's name, for the lint
	active []*tool // the user-facing tools
	model  []*tool // what the model gets: active plus help tools
	kb     *knowledgeBase
	geo    *geocoder
}

// New builds a CBA assistant from cfg.
func New(cfg agents.Config) (agents.Agent, error) {
	opts := options{Tools: SetReduced, Prompt: "minimal", Help: true, MaxSteps: 8, UpstreamTimeout: agents.Duration(RequestTimeout)}
	if err := agents.DecodeVariant(cfg.Variant, &opts); err != nil {
		return nil, fmt.Errorf("cba: variant config: %w (known keys: %s)", err, strings.Join(agents.VariantKeys(options{}), ", "))
	}
	if opts.Tools != SetReduced && opts.Tools != SetFull {
		return nil, fmt.Errorf("cba: variant config: tools %q: want %s or %s", opts.Tools, SetReduced, SetFull)
	}
	if opts.MaxSteps <= 0 {
		return nil, fmt.Errorf("cba: variant config: max_steps must be positive")
	}
	a := &Agent{cfg: cfg, opts: opts}
	if a.cfg.Tracer == nil {
		a.cfg.Tracer = agents.NopTracer{}
	}
	src, name := fs.FS(prompts), "prompts/"+opts.Prompt+".md"
	if !slices.Contains([]string{"minimal", "minimal-help", "full"}, opts.Prompt) {
		if cfg.Prompts == nil {
			return nil, fmt.Errorf("cba: prompt %q is not built in and no prompt folder was given", opts.Prompt)
		}
		src, name = cfg.Prompts, opts.Prompt
	}
	b, err := fs.ReadFile(src, name)
	if err != nil {
		return nil, fmt.Errorf("cba: prompt: %w", err)
	}
	a.system, a.prompt = string(b), name
	if cfg.Data == nil {
		return nil, fmt.Errorf("cba: no data folder given (it holds the knowledge base under kb/)")
	}
	if a.kb, err = loadKnowledgeBase(cfg.Cache, cfg.Data); err != nil {
		return nil, err
	}
	a.geo = &geocoder{http: cfg.HTTP, upstreams: cfg.Upstreams, timeout: time.Duration(opts.UpstreamTimeout)}
	all := a.tools()
	for _, t := range all {
		if opts.Tools == SetFull || t.reduced {
			a.active = append(a.active, t)
		}
	}
	a.model = append([]*tool(nil), a.active...)
	if opts.Help {
		a.model = append(a.model, a.helpTools()...)
	}
	return a, nil
}

// ToolCount is the number of tools users are told about: the help tools
// are internal and not counted.
func (a *Agent) ToolCount() int { return len(a.active) }

// Reply is the structured answer to one turn.
type Reply struct {
	Text      string   `json:"text"`
	Tools     []string `json:"tools_used"`
	ToolCount int      `json:"tool_count"`
	Error     string   `json:"error,omitempty"`
}

// Run answers the turns in order, keeping the conversation.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	var ans agents.Answer
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: a.system}}
	var defs []llm.Tool
	for _, t := range a.model {
		defs = append(defs, t.def())
	}
	for i, q := range in.Turns {
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: q})
		reply := Reply{ToolCount: a.ToolCount()}
		route := agents.Route{Mode: "answer"}
		done := false
		for step := 0; step < a.opts.MaxSteps && !done; step++ {
			resp, err := a.cfg.Model.Chat(ctx, llm.Request{Role: "assistant", Messages: msgs, Tools: defs, Temperature: llm.Float(0.1)})
			if err != nil {
				reply.Error = err.Error()
				reply.Text = "I could not reach the language model, so I cannot answer right now."
				break
			}
			msgs = append(msgs, resp.Message)
			if len(resp.Message.ToolCalls) == 0 {
				reply.Text, done = resp.Message.Content, true
				break
			}
			for _, tc := range resp.Message.ToolCalls {
				out := a.call(ctx, tc)
				reply.Tools = append(reply.Tools, tc.Name)
				if route.Mode == "answer" && !isHelp(tc.Name) {
					route = agents.Route{Mode: "tool", Tool: tc.Name}
				}
				msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: out})
			}
		}
		if !done && reply.Error == "" {
			reply.Error = "max_steps"
			reply.Text = "I could not finish this request within the allowed number of steps."
		}
		a.cfg.Tracer.Note(agents.NoteRoute, route)
		ans.Replies = append(ans.Replies, agents.Reply{Text: reply.Text, Data: reply})
	}
	return ans, nil
}

// call runs one tool and reports it: raw is what the upstream sent (or the
// tool's own output), context what the model gets.
func (a *Agent) call(ctx context.Context, tc llm.ToolCall) string {
	var t *tool
	for _, m := range a.model {
		if m.name == tc.Name {
			t = m
		}
	}
	if t == nil {
		msg := fmt.Sprintf("Error: unknown tool %q.", tc.Name)
		agents.ReportTool(a.cfg.Tracer, tc.ID, tc.Name, tc.Arguments, nil, msg, fmt.Errorf("unknown tool"))
		return msg
	}
	var args map[string]any
	if err := json.Unmarshal(tc.Arguments, &args); err != nil {
		args = map[string]any{}
	}
	out, raw, err := t.run(ctx, args)
	if err != nil {
		out = "Error: " + err.Error()
	}
	if raw == nil {
		raw = []byte(out)
	}
	agents.ReportTool(a.cfg.Tracer, tc.ID, tc.Name, tc.Arguments, raw, out, err)
	return out
}

// PromptSets implements agents.Prompted.
func (a *Agent) PromptSets() []agents.PromptSet {
	var active, known []string
	for _, t := range a.model {
		active = append(active, t.name)
	}
	for _, t := range append(a.tools(), a.helpTools()...) {
		known = append(known, t.name)
	}
	return []agents.PromptSet{{Name: a.prompt, Text: a.system, Active: active, Known: known}}
}
