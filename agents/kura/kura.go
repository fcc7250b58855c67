// Package kura is Vaya, the Kura public-transport assistant: three LLM roles
// on Gemini. The Planner turns a query into a strict plan of steps; the
// Executor carries out one step at a time with exactly one tool and returns
// a world-state patch and a snippet; the Synthesizer alone writes the
// answer. The world state changes only through DeepMerge. Tools call the
// Google Maps Platform APIs with the key passed explicitly in the
// X-Goog-Api-Key header; they return raw data or fail, never invented data.
package kura

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"time"
	"unicode"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

//go:embed prompts
var prompts embed.FS

// Name is the agent's registry name.
const Name = "kura"

// KeyMaps names the Google Maps Platform key, which the agent requires.
const KeyMaps = "GOOGLE_API_KEY"

// Info describes Vaya's endpoints: Gemini for the three roles and the
// Google Maps Platform APIs. Both keys are required and explicit.
func Info() agents.Info {
	return agents.Info{
		Config: agents.VariantKeys(options{}),
		Name:   Name,
		Model:  llm.Endpoint{Provider: llm.ProviderGemini, BaseURL: "https://generativelanguage.googleapis.com", Model: "gemini-1.5-flash", KeyEnv: "GEMINI_API_KEY"},
		Upstreams: map[string]string{
			"maps":        "https://maps.googleapis.com",
			"geolocation": "https://www.googleapis.com",
			"weather":     "https://weather.googleapis.com",
			"routes":      "https://routes.googleapis.com",
			"places":      "https://places.googleapis.com",
		},
		Keys: []string{KeyMaps},
	}
}

// State modes of a variant: what the executor and synthesizer see.
const (
	StateFull    = "full"
	StateCompact = "compact"
)

type options struct {
	State string `json:"state"` // full (default) or compact
	Units string `json:"units"` // imperial (default) or metric
	// SynthesizerPrompt is a file in Config.Prompts replacing
	// prompts/synthesizer.md.
	SynthesizerPrompt string `json:"synthesizer_prompt"`
	// UpstreamTimeout bounds each Google Maps Platform request (default
	// RequestTimeout).
	UpstreamTimeout agents.Duration `json:"upstream_timeout"`
}

// RequestTimeout is how long Vaya waits for one upstream request, as the
// real project's requests calls do (timeout=20).
const RequestTimeout = 20 * time.Second

// Agent is one Vaya session.
type Agent struct {
	cfg                          agents.Config
	opts                         options
	planner, executor, synthesis string
	google                       *google
	log                          *slog.Logger
}

// New builds Vaya from cfg. The Maps key must be in cfg.Secrets.
func New(cfg agents.Config) (agents.Agent, error) {
	opts := options{State: StateFull, Units: "imperial", UpstreamTimeout: agents.Duration(RequestTimeout)}
	if err := agents.DecodeVariant(cfg.Variant, &opts); err != nil {
		return nil, fmt.Errorf("kura: variant config: %w (known keys: %s)", err, strings.Join(agents.VariantKeys(options{}), ", "))
	}
	if opts.State != StateFull && opts.State != StateCompact {
		return nil, fmt.Errorf("kura: variant config: state %q: want %s or %s", opts.State, StateFull, StateCompact)
	}
	if opts.Units != "imperial" && opts.Units != "metric" {
		return nil, fmt.Errorf("kura: variant config: units %q: want imperial or metric", opts.Units)
	}
	key := cfg.Secrets[KeyMaps]
	if key == "" {
		return nil, fmt.Errorf("kura: %s is required: the Maps key is passed explicitly, never taken from ambient credentials", KeyMaps)
	}
	a := &Agent{cfg: cfg, opts: opts}
	if a.cfg.Tracer == nil {
		a.cfg.Tracer = agents.NopTracer{}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a.log = logger.With("logger", "kura")
	for name, dst := range map[string]*string{"planner": &a.planner, "executor": &a.executor, "synthesizer": &a.synthesis} {
		b, err := prompts.ReadFile("prompts/" + name + ".md")
		if err != nil {
			return nil, err
		}
		*dst = string(b)
	}
	if opts.SynthesizerPrompt != "" {
		if cfg.Prompts == nil {
			return nil, fmt.Errorf("kura: synthesizer_prompt %q set but no prompt folder given", opts.SynthesizerPrompt)
		}
		b, err := fs.ReadFile(cfg.Prompts, opts.SynthesizerPrompt)
		if err != nil {
			return nil, fmt.Errorf("kura: synthesizer_prompt: %w", err)
		}
		a.synthesis = string(b)
	}
	a.google = &google{http: cfg.HTTP, key: key, upstreams: cfg.Upstreams, timeout: time.Duration(opts.UpstreamTimeout)}
	return a, nil
}

// Reply is the structured answer to one turn.
type Reply struct {
	Text       string   `json:"text"`
	Plan       *Plan    `json:"plan,omitempty"`
	Snippets   []string `json:"snippets"`
	WorldState State    `json:"world_state"`
	Error      string   `json:"error,omitempty"`
}

// Run answers the turns in order with one world state.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Answer, error) {
	var ans agents.Answer
	state := NewState(a.cfg.Clock(), a.opts.Units)
	for i, q := range in.Turns {
		a.cfg.Tracer.Note(agents.NoteTurn, i)
		r := a.runTurn(ctx, state, q)
		ans.Replies = append(ans.Replies, agents.Reply{Text: r.Text, Data: r})
	}
	return ans, nil
}

// merge applies a patch to the world state and logs what changed.
func (a *Agent) merge(state State, patch map[string]any, why string) {
	before := state.Clone()
	DeepMerge(state, patch)
	a.log.Info("merged delta", "step", why, "changes", Diff(before, state))
}

// runTurn seeds the query, plans, executes each step, merges, synthesizes.
// Any failure becomes a friendly message; the trace keeps the cause.
func (a *Agent) runTurn(ctx context.Context, state State, q string) Reply {
	// A new turn starts with no errors and no completed steps (lists replace).
	a.merge(state, map[string]any{"query": map[string]any{"raw": q}, "errors": []any{},
		"context": map[string]any{"completed_steps": []any{}}}, "seed")
	fail := func(text string, err error) Reply {
		a.cfg.Tracer.Note("error", err.Error())
		a.log.Error("turn failed", "error", err.Error())
		return Reply{Text: text, WorldState: state.Clone(), Error: err.Error()}
	}
	var plan *Plan
	if casual(q) {
		plan = &Plan{Steps: []Step{{ID: "S1", Action: ActionConversation, Args: map[string]any{}}}, Status: "complete", Confidence: 1}
	} else {
		var err error
		if plan, err = a.plan(ctx, state, q); err != nil {
			var unavailable *llm.StatusError
			if errors.As(err, &unavailable) {
				return fail("I couldn't complete that request: my planning service is busy. Please try again in a moment.", err)
			}
			return fail("I couldn't understand that request. Could you say it another way?", err)
		}
	}
	planJSON, _ := json.Marshal(plan)
	a.log.Info("plan", "plan", string(planJSON))
	a.merge(state, map[string]any{"context": map[string]any{"plan": map[string]any{"steps": toAny(plan.Steps), "status": plan.Status, "confidence": plan.Confidence}}}, "plan")
	var snippets []string
	for _, step := range plan.Expand() {
		if step.Action == ActionConversation {
			continue
		}
		out, err := a.execute(ctx, state, step)
		if err != nil {
			return fail("I couldn't complete that request. Please try again in a moment.", fmt.Errorf("step %s (%s): %w", step.ID, step.Action, err))
		}
		// A delta that breaks the world state contract is not merged as
		// it is: what does not fit becomes an error the synthesizer tells
		// the user about.
		delta, violations := CheckDelta(out.DeltaState)
		for _, v := range violations {
			a.cfg.Tracer.Note("delta_rejected", step.ID+": "+v.String())
			errs, _ := delta["errors"].([]any)
			delta["errors"] = append(errs, map[string]any{"step": step.ID, "field": v.Path,
				"message": "part of the " + step.Action + " result was not in the expected form and was left out"})
		}
		out.DeltaState = delta
		// Lists replace under deepMerge, so a step's errors are added to
		// the earlier ones in the patch itself.
		if errs, ok := out.DeltaState["errors"].([]any); ok {
			prev, _ := state["errors"].([]any)
			out.DeltaState["errors"] = append(append([]any(nil), prev...), errs...)
		}
		a.merge(state, out.DeltaState, step.ID)
		done, _ := get(state, "context", "completed_steps").([]any)
		a.merge(state, map[string]any{"context": map[string]any{"completed_steps": append(done, step.ID)}}, step.ID)
		snippets = append(snippets, out.Snippet)
	}
	text, err := a.synthesize(ctx, state, q, snippets)
	if err != nil {
		return fail("I couldn't complete that request. Please try again in a moment.", err)
	}
	a.merge(state, map[string]any{"context": map[string]any{"final_response": text}}, "final")
	final, _ := json.Marshal(state)
	a.log.Info("final world state", "state", string(final))
	return Reply{Text: text, Plan: plan, Snippets: snippets, WorldState: state.Clone()}
}

// view is the world state the executor and synthesizer see.
func (a *Agent) view(state State) State {
	if a.opts.State == StateCompact {
		return state.Compact()
	}
	return state
}

// casual reports whether q is small talk: five words at most, every one
// of them a greeting or thanks word ("Hey, where am I?" is not).
func casual(q string) bool {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) == 0 || len(words) > 5 {
		return false
	}
	small := map[string]bool{"hi": true, "hello": true, "hey": true, "thanks": true, "thank": true, "you": true, "good": true,
		"morning": true, "afternoon": true, "evening": true, "bye": true, "there": true, "vaya": true, "so": true, "much": true, "a": true, "lot": true}
	for _, w := range words {
		if !small[w] {
			return false
		}
	}
	return true
}

func toAny(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// synthesize asks the Synthesizer for the answer.
func (a *Agent) synthesize(ctx context.Context, state State, q string, snippets []string) (string, error) {
	if snippets == nil {
		snippets = []string{}
	}
	in, _ := json.Marshal(map[string]any{"query": q, "world_state": a.view(state), "snippets": snippets})
	resp, err := a.cfg.Model.Chat(ctx, llm.Request{Role: "synthesizer", Temperature: llm.Float(0.2), Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: a.synthesis}, {Role: llm.RoleUser, Content: string(in)}}})
	if err != nil {
		return "", fmt.Errorf("synthesizer: %w", err)
	}
	text := strings.TrimSpace(resp.Message.Content)
	if text == "" {
		return "", fmt.Errorf("synthesizer: empty answer")
	}
	return text, nil
}

// PromptSets implements agents.Prompted: only the Executor has tools.
func (a *Agent) PromptSets() []agents.PromptSet {
	var names []string
	for _, t := range a.tools() {
		names = append(names, t.Name)
	}
	synthesizer := "prompts/synthesizer.md"
	if a.opts.SynthesizerPrompt != "" {
		synthesizer = a.opts.SynthesizerPrompt
	}
	return []agents.PromptSet{
		{Name: "prompts/planner.md", Text: a.planner, Known: names},
		{Name: "prompts/executor.md", Text: a.executor, Active: names, Known: names},
		{Name: synthesizer, Text: a.synthesis, Known: names},
	}
}
