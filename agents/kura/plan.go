package kura

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Plan actions.
const (
	ActionGeolocate      = "Geolocate"
	ActionReverseGeocode = "ReverseGeocode"
	ActionGeocode        = "Geocode"
	ActionWeather        = "Weather"
	ActionTransit        = "Transit"
	ActionPlaces         = "Places"
	ActionConversation   = "Conversation"
)

func knownAction(a string) bool {
	switch a {
	case ActionGeolocate, ActionReverseGeocode, ActionGeocode, ActionWeather, ActionTransit, ActionPlaces, ActionConversation:
		return true
	}
	return false
}

// Plan is the Planner's strict output.
type Plan struct {
	Steps      []Step  `json:"steps"`
	Status     string  `json:"status"`
	Confidence float64 `json:"confidence"`
}

// Step is one plan step; ForEach repeats it once per item, with "{item}"
// in string args replaced by the item. Reasoning is the planner's note on
// why, as the real planner writes it; nothing acts on it.
type Step struct {
	ID        string         `json:"id"`
	Action    string         `json:"action"`
	Args      map[string]any `json:"args"`
	ForEach   []string       `json:"forEach,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
}

// ParsePlan reads and validates a plan: the text must be one JSON object
// with at least one step, each with a known action.
func ParsePlan(text string) (*Plan, error) {
	rd := strings.NewReader(strings.TrimSpace(text))
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("planner output is not a valid plan JSON: %w (output: %q)", err, clip(text, 120))
	}
	// Anything after the plan, even a stray "}" that Decoder.More does not
	// report, makes it not one strict plan.
	rest, _ := io.ReadAll(io.MultiReader(dec.Buffered(), rd))
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("planner output has text after the plan JSON: %q", clip(string(rest), 40))
	}
	if len(p.Steps) == 0 {
		return nil, fmt.Errorf("planner output has no steps")
	}
	for i, s := range p.Steps {
		if !knownAction(s.Action) {
			return nil, fmt.Errorf("planner step %d has unknown action %q", i+1, s.Action)
		}
		if s.Args == nil {
			p.Steps[i].Args = map[string]any{}
		}
		if s.ID == "" {
			p.Steps[i].ID = fmt.Sprintf("S%d", i+1)
		}
	}
	return &p, nil
}

// Expand returns the steps with every forEach unrolled, in order.
func (p *Plan) Expand() []Step {
	var out []Step
	for _, s := range p.Steps {
		if len(s.ForEach) == 0 {
			out = append(out, s)
			continue
		}
		for i, item := range s.ForEach {
			args := map[string]any{}
			for k, v := range s.Args {
				if str, ok := v.(string); ok {
					v = strings.ReplaceAll(str, "{item}", item)
				}
				args[k] = v
			}
			out = append(out, Step{ID: fmt.Sprintf("%s.%d", s.ID, i+1), Action: s.Action, Args: args})
		}
	}
	return out
}

// plan asks the Planner.
func (a *Agent) plan(ctx context.Context, state State, q string) (*Plan, error) {
	in, _ := json.Marshal(map[string]any{"query": q, "world_state": state.Compact()})
	resp, err := a.cfg.Model.Chat(ctx, llm.Request{Role: "planner", Output: llm.OutputJSON, Temperature: llm.Float(0.2), Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: a.planner}, {Role: llm.RoleUser, Content: string(in)}}})
	if err != nil {
		return nil, fmt.Errorf("planner: %w", err)
	}
	return ParsePlan(resp.Message.Content)
}
