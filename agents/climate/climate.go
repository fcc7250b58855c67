// Package climate is the Climate Advisor of CityCatalyst: a tool-calling
// agent over an OpenAI-compatible model that finds a user's city
// greenhouse-gas inventories, drills into one, describes its possible data
// sources, and answers climate questions from a vector-searched knowledge
// base. Tool payloads are trimmed before they reach the model (package trim);
// the variant decides how.
package climate

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

//go:embed prompts
var prompts embed.FS

// Name is the agent's registry name.
const Name = "climate"

// Info describes the Climate Advisor's default endpoints: GPT-4.1 through
// OpenRouter, OpenAI embeddings, and the CityCatalyst API.
func Info() agents.Info {
	return agents.Info{
		Config: agents.VariantKeys(options{}),
		Name:   Name,
		Model:  llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://openrouter.ai/api/v1", Model: "openai/gpt-4.1", KeyEnv: "OPENROUTER_API_KEY"},
		Embeddings: &llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1",
			Model: "text-embedding-3-small", Dimensions: 64, KeyEnv: "OPENAI_API_KEY"},
		Upstreams: map[string]string{"citycatalyst": "https://citycatalyst.openearth.dev"},
		Secrets:   []string{secretToken, secretServiceKey},
	}
}

// Trimming modes of a variant.
const (
	TrimNone = "none" // raw payloads to the model
	TrimOurs = "ours" // package trim, real and seed shapes
	TrimSeed = "seed" // the seed project's datasource trimmer, as it behaves on the real shape
)

// options is the variant's config block.
type options struct {
	Trim     string  `json:"trim"`
	TopK     int     `json:"top_k"`     // vector matches put into context
	MinScore float64 `json:"min_score"` // vector matches below are dropped
	Prompt   string  `json:"prompt"`    // a file in Config.Prompts replacing prompts/default.md
	MaxSteps int     `json:"max_steps"` // model calls per turn
	// UpstreamTimeout bounds each CityCatalyst request (default
	// RequestTimeout; a datasource request waits at least
	// DatasourceTimeout).
	UpstreamTimeout agents.Duration `json:"upstream_timeout"`
}

// Agent is one Climate Advisor conversation.
type Agent struct {
	cfg    agents.Config
	opts   options
	system string
	cc     *client
	kb     *knowledgeBase
}

// New builds a Climate Advisor from cfg.
func New(cfg agents.Config) (agents.Agent, error) {
	opts, err := decodeOptions(cfg.Variant)
	if err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, opts: opts}
	if a.cfg.Tracer == nil {
		a.cfg.Tracer = agents.NopTracer{}
	}
	src, name := fs.FS(prompts), "prompts/default.md"
	if opts.Prompt != "" {
		if cfg.Prompts == nil {
			return nil, fmt.Errorf("climate: prompt %q set but no prompt folder given", opts.Prompt)
		}
		src, name = cfg.Prompts, opts.Prompt
	}
	b, err := fs.ReadFile(src, name)
	if err != nil {
		return nil, fmt.Errorf("climate: prompt: %w", err)
	}
	a.system = string(b)
	if cfg.Data == nil {
		return nil, fmt.Errorf("climate: no data folder given (it holds the knowledge base under kb/)")
	}
	if a.kb, err = loadKnowledgeBase(cfg.Cache, cfg.Data, "kb"); err != nil {
		return nil, err
	}
	base, ok := cfg.Upstreams["citycatalyst"]
	if !ok {
		base = Info().Upstreams["citycatalyst"]
	}
	a.cc = newClient(base, cfg.HTTP, cfg.Secrets, time.Duration(opts.UpstreamTimeout))
	return a, nil
}

func decodeOptions(v map[string]any) (options, error) {
	opts := options{Trim: TrimOurs, TopK: 3, MinScore: 0.6, MaxSteps: 6, UpstreamTimeout: agents.Duration(RequestTimeout)}
	if err := agents.DecodeVariant(v, &opts); err != nil {
		return opts, fmt.Errorf("climate: variant config: %w (known keys: %s)", err, strings.Join(agents.VariantKeys(options{}), ", "))
	}
	switch opts.Trim {
	case TrimNone, TrimOurs, TrimSeed:
	default:
		return opts, fmt.Errorf("climate: variant config: trim %q: want %s, %s or %s", opts.Trim, TrimNone, TrimOurs, TrimSeed)
	}
	if opts.TopK <= 0 || opts.MaxSteps <= 0 {
		return opts, fmt.Errorf("climate: variant config: top_k and max_steps must be positive")
	}
	return opts, nil
}

// Reply is the structured answer to one turn.
type Reply struct {
	Text  string     `json:"text"`
	Tools []ToolUsed `json:"tools_used"`
	Error string     `json:"error,omitempty"`
}

// ToolUsed records one tool call of a turn, as the service's done event does.
type ToolUsed struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Success   bool            `json:"success"`
	ErrorCode string          `json:"error_code,omitempty"`
}

// Run answers the turns in order, keeping the conversation (tool calls and
// results included) across turns.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	var ans agents.Answer
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: a.system}}
	for i, q := range in.Turns {
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: q})
		var reply Reply
		msgs, reply = a.turn(ctx, msgs)
		ans.Replies = append(ans.Replies, agents.Reply{Text: reply.Text, Data: reply})
	}
	return ans, nil
}

// turn runs the model–tool loop until the model answers in text.
func (a *Agent) turn(ctx context.Context, msgs []llm.Message) ([]llm.Message, Reply) {
	var reply Reply
	route := agents.Route{Mode: "answer"}
	defer func() { a.cfg.Tracer.Note(agents.NoteRoute, route) }()
	for step := 0; step < a.opts.MaxSteps; step++ {
		resp, err := a.cfg.Model.Chat(ctx, llm.Request{
			Role: "advisor", Messages: msgs, Tools: toolDefs(), Temperature: llm.Float(0.1), MaxTokens: 1024,
		})
		if err != nil {
			reply.Error = err.Error()
			reply.Text = "I could not reach the language model, so I cannot answer right now. Please try again."
			return msgs, reply
		}
		msgs = append(msgs, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			reply.Text = resp.Message.Content
			return msgs, reply
		}
		for _, tc := range resp.Message.ToolCalls {
			if route.Mode == "answer" {
				route = agents.Route{Mode: "tool", Tool: tc.Name}
			}
			out := a.execute(ctx, tc)
			reply.Tools = append(reply.Tools, ToolUsed{Name: tc.Name, Arguments: tc.Arguments, Success: out.success, ErrorCode: out.code})
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: out.content})
		}
	}
	reply.Text = "I could not finish this request within the allowed number of steps."
	reply.Error = "max_steps"
	return msgs, reply
}

// PromptSets implements agents.Prompted: the system prompt is sent with
// all five tools.
func (a *Agent) PromptSets() []agents.PromptSet {
	var names []string
	for _, t := range toolDefs() {
		names = append(names, t.Name)
	}
	name := "prompts/default.md"
	if a.opts.Prompt != "" {
		name = a.opts.Prompt
	}
	return []agents.PromptSet{{Name: name, Text: a.system, Active: names, Known: names}}
}
