package kura

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// WorldState mirrors the real project's blackboard. The agent keeps it as a
// JSON-shaped map (State) and changes it only through DeepMerge; this type
// gives the initial shape and is the contract every delta is checked
// against (CheckDelta).
type WorldState struct {
	Meta     Meta           `json:"meta"`
	User     User           `json:"user"`
	Query    Query          `json:"query"`
	Slots    Slots          `json:"slots"`
	Context  Context        `json:"context"`
	Evidence map[string]any `json:"evidence"`
	Errors   []any          `json:"errors"`
	Memory   map[string]any `json:"memory"`
}

// Meta identifies the session.
type Meta struct {
	SessionID    string `json:"sessionId"`
	Version      string `json:"version"`
	Architecture string `json:"architecture"`
	Now          string `json:"now"`
}

// User holds the user's locale settings.
type User struct {
	Locale   string `json:"locale"`
	Timezone string `json:"timezone"`
}

// Query is the user's message.
type Query struct {
	Raw string `json:"raw"`
}

// Slots are what the plan fills in.
type Slots struct {
	Origin        map[string]any `json:"origin"`
	Destination   map[string]any `json:"destination"`
	DepartureTime string         `json:"departureTime"`
	ModePrefs     []string       `json:"modePrefs"`
}

// Context is what the steps find: the real project's fields, and the keys
// the executor prompt asks each tool's step to write.
type Context struct {
	City            string         `json:"city"`
	Units           string         `json:"units"`
	Plan            map[string]any `json:"plan"`
	CompletedSteps  []any          `json:"completed_steps"`
	ExecutionResult map[string]any `json:"execution_result,omitempty"`
	LastPlanning    any            `json:"last_planning,omitempty"`
	LastExecution   any            `json:"last_execution,omitempty"`
	FinalResponse   string         `json:"final_response,omitempty"`

	Places               map[string]any `json:"places"`
	Candidates           map[string]any `json:"candidates,omitempty"`
	Weather              map[string]any `json:"weather"`
	LastWeather          map[string]any `json:"lastWeather,omitempty"`
	Location             map[string]any `json:"location,omitempty"`
	ReverseGeocodeResult map[string]any `json:"reverse_geocode_result,omitempty"`
	Transit              map[string]any `json:"transit,omitempty"`
	PlacesFound          []any          `json:"places_found,omitempty"`
}

// State is the world state as merged JSON.
type State map[string]any

// NewState returns the initial world state of a session.
func NewState(now time.Time, units string) State {
	ws := WorldState{
		Meta:     Meta{SessionID: "session-1", Version: "2.0", Architecture: "A2A", Now: now.Format(time.RFC3339)},
		User:     User{Locale: "en-US", Timezone: "America/New_York"},
		Slots:    Slots{Origin: map[string]any{}, Destination: map[string]any{}, ModePrefs: []string{"transit"}},
		Context:  Context{City: "New York", Units: units, Plan: map[string]any{"steps": []any{}, "status": "none", "confidence": 0.0}, CompletedSteps: []any{}, Places: map[string]any{}, Weather: map[string]any{}},
		Evidence: map[string]any{},
		Errors:   []any{},
		Memory:   map[string]any{},
	}
	b, _ := json.Marshal(ws)
	var s State
	json.Unmarshal(b, &s)
	return s
}

// DeepMerge merges src into dst, as the real utils/state.deepMerge does:
// maps merge recursively; lists and scalars replace. It returns dst.
func DeepMerge(dst, src map[string]any) map[string]any {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				dst[k] = DeepMerge(dv, sv)
				continue
			}
			dst[k] = DeepMerge(map[string]any{}, sv)
			continue
		}
		dst[k] = v
	}
	return dst
}

// Clone returns a deep copy of s: its JSON read back by encoding/json.
func (s State) Clone() State {
	b, _ := json.Marshal(s)
	var out State
	_ = json.Unmarshal(b, &out)
	return out
}

// Compact keeps what the executor and synthesizer need: the query, the
// units, places with coordinates, weather, location and address, transit,
// places found, candidates, the plan's status and counts, and the errors.
func (s State) Compact() State {
	ctx, _ := s["context"].(map[string]any)
	out := State{"query": s["query"], "user": s["user"], "meta": map[string]any{"now": get(s, "meta", "now")}, "errors": s["errors"]}
	c := map[string]any{"units": ctx["units"]}
	for _, k := range []string{"places", "weather", "lastWeather", "location", "reverse_geocode_result", "transit", "places_found", "candidates"} {
		if v, ok := ctx[k]; ok {
			if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
				continue
			}
			c[k] = compactValue(k, v)
		}
	}
	if plan, ok := ctx["plan"].(map[string]any); ok {
		steps, _ := plan["steps"].([]any)
		done, _ := ctx["completed_steps"].([]any)
		c["plan"] = map[string]any{"status": plan["status"], "steps": len(steps), "completed": len(done)}
	}
	out["context"] = c
	return out
}

// compactValue drops raw payloads kept for evidence.
func compactValue(key string, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		if k == "raw" {
			continue
		}
		if sub, ok := x.(map[string]any); ok {
			out[k] = compactValue(k, sub)
			continue
		}
		out[k] = x
	}
	return out
}

func get(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// Diff lists the top-level paths whose values differ between before and
// after, for the merge log.
func Diff(before, after map[string]any) []string {
	var out []string
	var walk func(prefix string, a, b any)
	walk = func(prefix string, a, b any) {
		am, aok := a.(map[string]any)
		bm, bok := b.(map[string]any)
		if aok && bok {
			keys := map[string]bool{}
			for k := range am {
				keys[k] = true
			}
			for k := range bm {
				keys[k] = true
			}
			for _, k := range slices.Sorted(maps.Keys(keys)) {
				walk(prefix+"."+k, am[k], bm[k])
			}
			return
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			out = append(out, fmt.Sprintf("%s: %s → %s", prefix, clip(string(ja), 60), clip(string(jb), 60)))
		}
	}
	walk("", map[string]any(before), map[string]any(after))
	return out
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
