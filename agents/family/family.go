// Package family is the family assistant's large-attachment handling: Home
// Assistant history downloaded as attachments, attachments shown to the model
// as the framework decides (inline, JSON Schema, CSV summary, or the
// placeholder that caused the original bug), jq queries over attachments,
// and delegation to a data_visualization profile that must produce a
// Vega-Lite chart without the model ever seeing the data.
package family

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/family/attach"
	"github.com/agentreplay/testbed/agents/llm"
)

//go:embed prompts
var prompts embed.FS

// Name is the agent's registry name.
const Name = "family"

// Info describes the family assistant's default endpoints: an OpenAI model
// and a Home Assistant instance on the home network.
func Info() agents.Info {
	return agents.Info{
		Config:    agents.VariantKeys(options{}),
		Name:      Name,
		Model:     llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1-mini", KeyEnv: "OPENAI_API_KEY"},
		Upstreams: map[string]string{"homeassistant": "http://homeassistant.local:8123"},
		Secrets:   []string{secretHAToken},
	}
}

// options is the variant's config block.
type options struct {
	Attachments   attach.Mode `json:"attachments"`    // schema (default), inline or placeholder
	Mandatory     *bool       `json:"mandatory"`      // data_visualization must call create_vega_chart (default true)
	MaxIterations int         `json:"max_iterations"` // model calls per profile run
	Prompt        string      `json:"prompt"`         // a file in Config.Prompts replacing prompts/default.md
	VizPrompt     string      `json:"viz_prompt"`     // a file in Config.Prompts replacing prompts/data_visualization.md
	// UpstreamTimeout bounds each Home Assistant request (default
	// RequestTimeout).
	UpstreamTimeout agents.Duration `json:"upstream_timeout"`
}

// Agent is one family-assistant conversation.
type Agent struct {
	cfg   agents.Config
	opts  options
	store *attach.Store
	ha    *homeAssistant
	main  profile
	viz   profile
}

// profile is a processing profile: a system prompt, its tools, and the
// tools it must call before it may finish.
type profile struct {
	name      string
	system    string
	tools     []llm.Tool
	mandatory []string
}

// New builds a family assistant from cfg.
func New(cfg agents.Config) (agents.Agent, error) {
	opts := options{Attachments: attach.ModeSchema, MaxIterations: 8, UpstreamTimeout: agents.Duration(RequestTimeout)}
	if err := agents.DecodeVariant(cfg.Variant, &opts); err != nil {
		return nil, fmt.Errorf("family: variant config: %w (known keys: %s)", err, strings.Join(agents.VariantKeys(options{}), ", "))
	}
	switch opts.Attachments {
	case attach.ModeSchema, attach.ModeInline, attach.ModePlaceholder:
	default:
		return nil, fmt.Errorf("family: variant config: attachments %q: want schema, inline or placeholder", opts.Attachments)
	}
	if opts.MaxIterations <= 0 {
		return nil, fmt.Errorf("family: variant config: max_iterations must be positive")
	}
	a := &Agent{cfg: cfg, opts: opts, store: attach.NewStore()}
	if a.cfg.Tracer == nil {
		a.cfg.Tracer = agents.NopTracer{}
	}
	mainPrompt, err := readPrompt(cfg, "prompt", opts.Prompt, "prompts/default.md")
	if err != nil {
		return nil, err
	}
	vizPrompt, err := readPrompt(cfg, "viz_prompt", opts.VizPrompt, "prompts/data_visualization.md")
	if err != nil {
		return nil, err
	}
	a.main = profile{name: "default", system: string(mainPrompt),
		tools: []llm.Tool{toolHistory(), toolDelegate(), toolJQ()}}
	a.viz = profile{name: "data_visualization", system: string(vizPrompt),
		tools: []llm.Tool{toolJQ(), toolChart()}}
	if opts.Mandatory == nil || *opts.Mandatory {
		a.viz.mandatory = []string{ToolChart}
	}
	base, ok := cfg.Upstreams["homeassistant"]
	if !ok {
		base = Info().Upstreams["homeassistant"]
	}
	a.ha = &homeAssistant{base: base, http: cfg.HTTP, token: cfg.Secrets[secretHAToken], timeout: time.Duration(opts.UpstreamTimeout)}
	return a, nil
}

// readPrompt reads the prompt file the variant's key names from the
// prompt folder, else the embedded one (def).
func readPrompt(cfg agents.Config, key, file, def string) ([]byte, error) {
	src, name := fs.FS(prompts), def
	if file != "" {
		if cfg.Prompts == nil {
			return nil, fmt.Errorf("family: %s %q set but no prompt folder given", key, file)
		}
		src, name = cfg.Prompts, file
	}
	b, err := fs.ReadFile(src, name)
	if err != nil {
		return nil, fmt.Errorf("family: %s: %w", key, err)
	}
	return b, nil
}

// Reply is the structured answer to one turn.
type Reply struct {
	Text        string   `json:"text"`
	Tools       []string `json:"tools_used"`
	Attachments []string `json:"attachments"` // ids known after the turn
	Charts      int      `json:"charts"`
	Error       string   `json:"error,omitempty"`
}

// Run answers the turns in order, keeping the conversation across turns.
// The user's attachments arrive with the first turn.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	var ans agents.Answer
	system := a.main.system + "\nThe current time is " + a.cfg.Clock().UTC().Format(time.RFC3339) + "."
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}}
	for i, q := range in.Turns {
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		content := q
		if i == 0 {
			for _, at := range in.Attachments {
				att := a.store.Put(at.Name, at.MIME, at.Description, at.Data)
				content += "\n\n" + a.inject(att)
			}
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: content})
		run := a.runProfile(ctx, a.main, msgs)
		msgs = run.msgs
		reply := Reply{Text: run.text, Tools: run.tools, Charts: run.charts, Error: run.err}
		for _, att := range a.store.All() {
			reply.Attachments = append(reply.Attachments, att.ID)
		}
		ans.Replies = append(ans.Replies, agents.Reply{Text: reply.Text, Data: reply})
	}
	return ans, nil
}

// inject renders an attachment for the model's context, as the variant's
// framework would. The rendering is a function of the attachment's fields
// and the mode, and a run's scenarios are often given the same file under
// the same id (a history answer, a user's file): a run renders each once
// (agents.BuildOnce).
func (a *Agent) inject(att attach.Attachment) string {
	out, _ := agents.BuildOnce(a.cfg.Cache, "attachment injection", func() (string, error) {
		return attach.Inject(att, a.opts.Attachments), nil
	}, []byte(att.ID), []byte(att.Name), []byte(att.MIME), []byte(att.Description), att.Data, []byte(a.opts.Attachments))
	return out
}

// run is the outcome of one profile run.
type run struct {
	msgs   []llm.Message
	text   string
	tools  []string
	charts int
	err    string
}

// runProfile runs the model–tool loop of p until the model answers in text
// and every mandatory tool has been called. A model that tries to finish
// early is reminded once; if it still does not call the tool, the run fails
// with a reason that names the tool.
func (a *Agent) runProfile(ctx context.Context, p profile, msgs []llm.Message) run {
	r := run{}
	reminded := false
	for step := 0; step < a.opts.MaxIterations; step++ {
		resp, err := a.cfg.Model.Chat(ctx, llm.Request{Role: p.name, Messages: msgs, Tools: p.tools, Temperature: llm.Float(0)})
		if err != nil {
			r.msgs, r.err = msgs, err.Error()
			r.text = fmt.Sprintf("The %s model could not be reached, so I cannot finish this request.", p.name)
			return r
		}
		msgs = append(msgs, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			missing := missingTools(p.mandatory, r.tools)
			if len(missing) == 0 {
				r.msgs, r.text = msgs, resp.Message.Content
				return r
			}
			if !reminded {
				reminded = true
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf(
					"[System: You must call %s before you finish.]", missing[0])})
				continue
			}
			r.msgs = msgs
			r.err = "mandatory_tool_not_called"
			r.text = fmt.Sprintf("The %s service finished without calling %s, a mandatory tool, so no chart was produced. Its last words: %s",
				p.name, missing[0], clip(resp.Message.Content, 200))
			return r
		}
		for _, tc := range resp.Message.ToolCalls {
			res := fail("tool %q is not available in the %s profile", tc.Name, p.name)
			if offered(p, tc.Name) {
				res = a.execute(ctx, tc)
			}
			if res.ok {
				r.tools = append(r.tools, tc.Name)
			}
			r.charts += res.charts
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: res.text})
			if res.inject != "" {
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: res.inject})
			}
		}
	}
	r.msgs, r.err = msgs, "max_iterations"
	r.text = fmt.Sprintf("The %s profile did not finish within %d steps.", p.name, a.opts.MaxIterations)
	return r
}

// offered reports whether profile p offers the named tool.
func offered(p profile, name string) bool {
	for _, t := range p.tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func missingTools(want, called []string) []string {
	var out []string
	for _, w := range want {
		found := false
		for _, c := range called {
			found = found || c == w
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// PromptSets implements agents.Prompted: each profile's prompt with its
// own tools.
func (a *Agent) PromptSets() []agents.PromptSet {
	names := func(ts []llm.Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	known := []string{ToolHistory, ToolDelegate, ToolJQ, ToolChart}
	main, viz := "prompts/default.md", "prompts/data_visualization.md"
	if a.opts.Prompt != "" {
		main = a.opts.Prompt
	}
	if a.opts.VizPrompt != "" {
		viz = a.opts.VizPrompt
	}
	return []agents.PromptSet{
		{Name: main, Text: a.main.system, Active: names(a.main.tools), Known: known},
		{Name: viz, Text: a.viz.system, Active: names(a.viz.tools), Known: known},
	}
}
