package check

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// ObservedRoute is the last route noted in events (Note key
// agents.NoteRoute), formatted "mode" or "mode:tool"; "" if none. The noted
// value may be an agents.Route, a *agents.Route, or its JSON form (such as a
// map[string]any after a round trip through JSON). An agent that notes no
// route but calls tools (Kura, the family assistant) is routed by its first
// tool call: "tool:<name>".
func ObservedRoute(events []trace.Event) string {
	r, ok := lastRoute(events)
	if !ok {
		return ""
	}
	return formatRoute(r.Mode, r.Tool)
}

// FormatRoute formats an expected route as ObservedRoute formats an observed
// one; "" for nil.
func FormatRoute(r *scenario.Route) string {
	if r == nil {
		return ""
	}
	return formatRoute(r.Mode, r.Tool)
}

func formatRoute(mode, tool string) string {
	if tool == "" {
		return mode
	}
	return mode + ":" + tool
}

// lastRoute returns the last decodable route note in events, else the
// first tool called.
func lastRoute(events []trace.Event) (agents.Route, bool) {
	notes := trace.Notes(events, agents.NoteRoute)
	for i := len(notes) - 1; i >= 0; i-- {
		if r, ok := decodeRoute(notes[i]); ok {
			return r, true
		}
	}
	for _, e := range events {
		if e.Kind == trace.KindTool && e.Tool != nil {
			return agents.Route{Mode: "tool", Tool: e.Tool.Name}, true
		}
	}
	return agents.Route{}, false
}

// decodeRoute reads a noted route value in any of the shapes it may take.
func decodeRoute(v any) (agents.Route, bool) {
	switch v := v.(type) {
	case agents.Route:
		return v, true
	case *agents.Route:
		if v == nil {
			return agents.Route{}, false
		}
		return *v, true
	case string:
		mode, tool, _ := strings.Cut(v, ":")
		return agents.Route{Mode: mode, Tool: tool}, mode != ""
	case nil:
		return agents.Route{}, false
	}
	// map[string]any, map[string]string, json.RawMessage, or any struct
	// with the same JSON form.
	b, err := json.Marshal(v)
	if err != nil {
		return agents.Route{}, false
	}
	var r agents.Route
	if err := json.Unmarshal(b, &r); err != nil || r.Mode == "" {
		return agents.Route{}, false
	}
	return r, true
}

// checkRoute compares the observed route with exp: the mode must be equal
// when exp names one (a route block's mode is "not checked" by default),
// and the tool too when exp names one.
func checkRoute(exp *scenario.Route, events []trace.Event) string {
	r, ok := lastRoute(events)
	if !ok {
		return fmt.Sprintf("want %s, got no route noted and no tool called", FormatRoute(exp))
	}
	if (exp.Mode == "" || r.Mode == exp.Mode) && (exp.Tool == "" || r.Tool == exp.Tool) {
		return ""
	}
	return fmt.Sprintf("want %s, got %s", FormatRoute(exp), formatRoute(r.Mode, r.Tool))
}
