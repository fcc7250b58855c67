package odbchat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

// Envelope is router.answer's uniform output.
type Envelope struct {
	Mode       string  `json:"mode"` // tool | explain | code | error
	Text       string  `json:"text"`
	Source     string  `json:"source"`
	Confidence float64 `json:"confidence"`
	Raw        Raw     `json:"raw"`
}

// Raw carries the plan, the tool result and the timings behind an Envelope.
type Raw struct {
	Plan       *Plan       `json:"plan"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
	Citations  []Citation  `json:"citations,omitempty"`
	Trace      *Timings    `json:"trace,omitempty"` // always from Answer; router.answer sends it with debug
}

// Timings are measured on the injected clock.
type Timings struct {
	ClassifyMS       int64 `json:"t_classify_ms"`
	MCPMS            int64 `json:"t_mcp_ms"`
	AnswerMS         int64 `json:"t_answer_ms"`
	TotalMS          int64 `json:"t_total_ms"`
	RetriedYesterday bool  `json:"retried_yesterday"`
}

// Plan is the router's strict JSON output.
type Plan struct {
	Decision         string    `json:"decision"`
	Confidence       float64   `json:"confidence"`
	Tool             *PlanTool `json:"tool"`
	Rationale        string    `json:"rationale"`
	NeedsFollowup    bool      `json:"needs_followup"`
	FollowupQuestion *string   `json:"followup_question"`
}

// PlanTool is the tool the router picked.
type PlanTool struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Decisions of a Plan.
const (
	DecisionMCP     = "mcp"
	DecisionExplain = "explain"
	DecisionCode    = "code"
)

// Answer is router.answer: classify and route query, execute, render.
func (a *Agent) Answer(ctx context.Context, query string) (Envelope, error) {
	start := a.cfg.Clock()
	lang := languageOf(query)
	var (
		plan *Plan
		err  error
	)
	if a.opts.Router == RouterLegacy {
		plan, err = a.classifyLegacy(ctx, query)
	} else {
		plan, err = a.route(ctx, query, start.In(a.loc))
	}
	tClassify := a.cfg.Clock().Sub(start)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return Envelope{}, err
		}
		// Any other model failure (an error status, a timeout, a body that
		// is not JSON) is the model not answering.
		env := a.failure(lang, CodeUnavailable, "the language model is not answering", plan)
		env.Raw.Trace = timings(tClassify, 0, 0, a.cfg.Clock().Sub(start), false)
		a.cfg.Tracer.Note("error", err.Error())
		return env, nil
	}

	var env Envelope
	var tMCP, tAnswer time.Duration
	var retried bool
	switch plan.Decision {
	case DecisionMCP:
		t0 := a.cfg.Clock()
		env, retried = a.runTool(ctx, query, plan, lang, start.In(a.loc))
		tMCP = a.cfg.Clock().Sub(t0)
	default:
		t0 := a.cfg.Clock()
		mode := DecisionExplain
		if plan.Decision == DecisionCode {
			mode = DecisionCode
		}
		a.cfg.Tracer.Note(agents.NoteRoute, agents.Route{Mode: mode})
		env, err = a.onepassAnswer(ctx, query, mode, lang)
		if err != nil {
			return Envelope{}, err
		}
		tAnswer = a.cfg.Clock().Sub(t0)
	}
	env.Confidence = plan.Confidence
	env.Raw.Plan = plan
	env.Raw.Trace = timings(tClassify, tMCP, tAnswer, a.cfg.Clock().Sub(start), retried)
	a.cfg.Tracer.Note("t_classify_ms", env.Raw.Trace.ClassifyMS)
	a.cfg.Tracer.Note("t_mcp_ms", env.Raw.Trace.MCPMS)
	a.cfg.Tracer.Note("t_total_ms", env.Raw.Trace.TotalMS)
	return env, nil
}

func timings(classify, mcp, answer, total time.Duration, retried bool) *Timings {
	return &Timings{ClassifyMS: classify.Milliseconds(), MCPMS: mcp.Milliseconds(), AnswerMS: answer.Milliseconds(),
		TotalMS: total.Milliseconds(), RetriedYesterday: retried}
}

// routerInput is the JSON user message of a router call.
type routerInput struct {
	Query       string               `json:"query"`
	Now         string               `json:"now"`
	Tz          string               `json:"tz,omitempty"`
	ToolCatalog []catalogEntry       `json:"tool_catalog,omitempty"`
	GeoRegistry map[string][]float64 `json:"geo_registry,omitempty"`
}

type fewshot struct {
	User routerInput     `json:"user"`
	Plan json.RawMessage `json:"plan"`
}

func loadFewShots() ([]fewshot, error) {
	b, err := prompts.ReadFile("prompts/fewshots.json")
	if err != nil {
		return nil, err
	}
	var out []fewshot
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("odbchat: prompts/fewshots.json: %w", err)
	}
	return out, nil
}

// route makes the single router call.
func (a *Agent) route(ctx context.Context, query string, now time.Time) (*Plan, error) {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: a.router}}
	for _, f := range a.fewshots {
		u, _ := json.Marshal(f.User)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleUser, Content: string(u)},
			llm.Message{Role: llm.RoleAssistant, Content: compactJSON(f.Plan)})
	}
	in, _ := json.Marshal(routerInput{
		Query: query, Now: now.Format(time.DateOnly), Tz: Tz,
		ToolCatalog: toolCatalog(), GeoRegistry: geoRegistry(),
	})
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: string(in)})
	resp, err := a.cfg.Model.Chat(ctx, llm.Request{
		Role: "router", Messages: msgs, Temperature: llm.Float(0), MaxTokens: 256, Output: llm.OutputJSON,
	})
	if err != nil {
		return nil, err
	}
	return parsePlan(resp.Message.Content), nil
}

// parsePlan reads the router's JSON. Output that is not a valid plan
// degrades to explain with confidence 0, so the envelope is always valid.
func parsePlan(s string) *Plan {
	var p Plan
	obj := llm.FirstJSONObject(s)
	if obj == "" || json.Unmarshal([]byte(obj), &p) != nil {
		return &Plan{Decision: DecisionExplain, Rationale: "router output was not valid JSON; answered as explain"}
	}
	switch p.Decision {
	case DecisionMCP, "mcp_tools":
		p.Decision = DecisionMCP
		if p.Tool == nil {
			return &Plan{Decision: DecisionExplain, Confidence: p.Confidence, Rationale: "mcp decision without a tool; answered as explain"}
		}
	case DecisionExplain, DecisionCode:
	default:
		p.Decision = DecisionExplain
	}
	return &p
}

// classifyLegacy is the two-way classifier the router replaces.
func (a *Agent) classifyLegacy(ctx context.Context, query string) (*Plan, error) {
	resp, err := a.cfg.Model.Chat(ctx, llm.Request{
		Role: "classifier",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: a.classify},
			{Role: llm.RoleUser, Content: query},
		},
		Temperature: llm.Float(0), MaxTokens: 64, Output: llm.OutputJSON,
	})
	if err != nil {
		return nil, err
	}
	var out struct {
		Mode       string  `json:"mode"`
		Confidence float64 `json:"confidence"`
	}
	plan := &Plan{Decision: DecisionExplain, Rationale: "legacy two-way classifier"}
	if json.Unmarshal([]byte(llm.FirstJSONObject(resp.Message.Content)), &out) == nil {
		plan.Confidence = out.Confidence
		if out.Mode == DecisionCode {
			plan.Decision = DecisionCode
		}
	}
	return plan, nil
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
