// Package odbchat is ODBchat's single-pass classifier+router: one LLM call
// decides mcp | explain | code and, for mcp, picks a GHRSST tool and its
// arguments; the server validates and normalizes them, calls the GHRSST tool
// on the upstream MCP server, and renders a one-line answer in the user's
// language. Explain and code
// questions go to a one-pass RAG answer over a small ODB knowledge base.
//
// The legacy variant is the behaviour the router replaces: a two-way
// classifier (explain | code) followed by the one-pass answer, so SST
// questions end in code mode after two LLM hops.
package odbchat

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

//go:embed prompts
var prompts embed.FS

// Name is the agent's registry name.
const Name = "odbchat"

// Info describes ODBchat's default endpoints: a local Ollama serving
// gemma3:4b, and the ODB GHRSST service.
func Info() agents.Info {
	return agents.Info{
		Config:    agents.VariantKeys(options{}),
		Name:      Name,
		Model:     llm.Endpoint{Provider: llm.ProviderOpenAI, BaseURL: "http://localhost:11434/v1", Model: "gemma3:4b"},
		Upstreams: map[string]string{"ghrsst": "https://eco.odb.ntu.edu.tw"},
	}
}

// Routers a variant may choose.
const (
	RouterSinglePass = "single-pass"
	RouterLegacy     = "legacy"
)

// Tz is the time zone dates are resolved in.
const Tz = "Asia/Taipei"

// taipei is Tz, read from the system's zone database once per process (Go
// reads the file again on every time.LoadLocation); without one, UTC+8, which
// Taipei has kept since 1979.
var taipei = sync.OnceValue(func() *time.Location {
	if loc, err := time.LoadLocation(Tz); err == nil {
		return loc
	}
	return time.FixedZone("CST", 8*3600)
})

// options is the variant's config block.
type options struct {
	Router       string `json:"router"`
	RouterPrompt string `json:"router_prompt"` // a file in Config.Prompts replacing prompts/router.md
	FewShots     *int   `json:"fewshots"`      // how many few-shot examples to send (default all)
	TopK         int    `json:"top_k"`         // passages retrieved for one-pass answers (default 3)
	// UpstreamTimeout bounds each GHRSST tool call (default RequestTimeout).
	UpstreamTimeout agents.Duration `json:"upstream_timeout"`
}

// Agent is one ODBchat instance.
type Agent struct {
	cfg      agents.Config
	opts     options
	loc      *time.Location
	router   string // system prompt of the router
	classify string // system prompt of the legacy classifier
	onepass  string // system prompt of the one-pass answer
	fewshots []fewshot
	kb       *knowledgeBase
	ghrsst   *ghrsstClient
}

// New builds an ODBchat agent from cfg.
func New(cfg agents.Config) (agents.Agent, error) {
	a, err := NewAgent(cfg)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// NewAgent is New with the concrete type, for the MCP server.
func NewAgent(cfg agents.Config) (*Agent, error) {
	opts, err := decodeOptions(cfg.Variant)
	if err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, opts: opts, loc: taipei()}
	if a.cfg.Tracer == nil {
		a.cfg.Tracer = agents.NopTracer{}
	}
	if a.router, err = readPrompt(prompts, "prompts/router.md"); err != nil {
		return nil, err
	}
	if opts.RouterPrompt != "" {
		if cfg.Prompts == nil {
			return nil, fmt.Errorf("odbchat: router_prompt %q set but no prompt folder given", opts.RouterPrompt)
		}
		if a.router, err = readPrompt(cfg.Prompts, opts.RouterPrompt); err != nil {
			return nil, err
		}
	}
	if a.classify, err = readPrompt(prompts, "prompts/classifier.md"); err != nil {
		return nil, err
	}
	if a.onepass, err = readPrompt(prompts, "prompts/onepass.md"); err != nil {
		return nil, err
	}
	if a.fewshots, err = loadFewShots(); err != nil {
		return nil, err
	}
	if opts.FewShots != nil && *opts.FewShots < len(a.fewshots) {
		a.fewshots = a.fewshots[:*opts.FewShots]
	}
	if cfg.Data == nil {
		return nil, fmt.Errorf("odbchat: no data folder given (it holds the knowledge base under kb/)")
	}
	if a.kb, err = loadKnowledgeBase(cfg.Cache, cfg.Data, "kb"); err != nil {
		return nil, err
	}
	if cfg.HTTP == nil {
		return nil, fmt.Errorf("odbchat: no HTTP client given (every GHRSST call goes through it, so that a cassette sees it)")
	}
	base, ok := cfg.Upstreams["ghrsst"]
	if !ok {
		base = Info().Upstreams["ghrsst"]
	}
	a.ghrsst = newGHRSSTClient(base, cfg.HTTP, time.Duration(opts.UpstreamTimeout))
	return a, nil
}

func decodeOptions(v map[string]any) (options, error) {
	opts := options{Router: RouterSinglePass, TopK: 3, UpstreamTimeout: agents.Duration(RequestTimeout)}
	if err := agents.DecodeVariant(v, &opts); err != nil {
		return opts, fmt.Errorf("odbchat: variant config: %w (known keys: %s)", err, strings.Join(agents.VariantKeys(options{}), ", "))
	}
	if opts.Router != RouterSinglePass && opts.Router != RouterLegacy {
		return opts, fmt.Errorf("odbchat: variant config: router %q: want %s or %s", opts.Router, RouterSinglePass, RouterLegacy)
	}
	if opts.TopK <= 0 {
		opts.TopK = 3
	}
	return opts, nil
}

func readPrompt(fsys fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", fmt.Errorf("odbchat: prompt: %w", err)
	}
	return string(b), nil
}

// Run answers each turn independently, as ODBchat's router does.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	var ans agents.Answer
	for i, q := range in.Turns {
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		env, err := a.Answer(ctx, q)
		if err != nil {
			return ans, err
		}
		ans.Replies = append(ans.Replies, agents.Reply{Text: env.Text, Data: env})
	}
	return ans, nil
}

// Tools returns every tool the agent executes: the router's catalog, which
// the model chooses from, and rag.search, which the explain and code
// branches run themselves.
func (a *Agent) Tools() []string {
	var out []string
	for _, t := range toolCatalog() {
		out = append(out, t.Name)
	}
	return append(out, "rag.search")
}

// PromptSets implements agents.Prompted: the router sees the tool catalog;
// the classifier and the one-pass answer have no tools.
func (a *Agent) PromptSets() []agents.PromptSet {
	var catalog []string
	for _, t := range toolCatalog() {
		catalog = append(catalog, t.Name)
	}
	return []agents.PromptSet{
		{Name: "router", Text: a.router, Active: catalog, Known: catalog},
		{Name: "prompts/classifier.md", Text: a.classify, Known: catalog},
		{Name: "prompts/onepass.md", Text: a.onepass, Known: catalog},
	}
}
