// Package kura is the stand-in's policies for Kura (Vaya, agents/kura): its
// planner (Planner), executor (Executor) and synthesizer (Synthesizer),
// each reading the JSON user message the agent builds.
package kura

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	_ "time/tzdata" // user time zones resolve the same on every host

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/policy"
	"github.com/agentreplay/testbed/harness/wire"
)

// The Kura (Vaya) policies follow the three prompts of its planner → executor
// → synthesizer pipeline. Each reads the JSON user message the agent builds.
//
// Planner ({"query", "world_state"}): a table of named rules
// (kuraPlannerRules, kura_planner.go) over the shared lexicon's concepts
// (from/to/go-to/in/near/find/here words, weather words, where-am-I words,
// day words) and place phrases: a capitalised phrase (with its lowercase
// particles), a house-number address up to the end of its sentence, or a
// run of Han characters. A query without a letter in any script is prose,
// not JSON; "from X to Y" and "go to Y" plan Transit (a clock time resolved
// against world_state.meta.now in world_state.user.timezone, a time already
// past with no day word meaning the next day); "find T near P" plans
// Places; a weather word plans Geocode and Weather for each place after an
// in word (forEach for a list), or Geolocate and Weather "current"; a
// where-am-I word plans Geolocate and ReverseGeocode; anything else is one
// Conversation step.
//
// Executor ({"step", "world_state"}): with no tool result yet it calls the
// one tool of the step's action, taking coordinates from
// world_state.context.places[<address>] (exact key, else case-insensitive)
// or, for "current", from context.location, and units from context.units
// (imperial by default). Coordinates it cannot find are left out of the
// call, so the tool's error reports them missing. After the tool result it
// replies {"deltaState", "snippet"} as the prompt lists: the first geocoding
// result becomes context.places[<address>] (ZERO_RESULTS and several results
// are errors, the latter with context.candidates), the Weather API's current
// conditions become context.weather[<location>] and context.lastWeather, the
// first Routes API route becomes context.transit (line, stops and departure
// of its first transit step, arrival stop and time of its last), the first
// five Places API results become context.places_found; an {"error"} result
// becomes errors [{step, tool, message}]. A Conversation step calls nothing.
//
// Synthesizer ({"query", "world_state", "snippets"}): the reverse-geocoded
// address, then the weather of each location in the order the query names
// them, the transit route (departure in the user's time zone, duration in
// whole minutes), up to three places with ratings, and then one sentence per
// error: "I couldn't find X." for no match, "Which X do you mean: A, B or
// C?" for several, "I couldn't complete the <tool> lookup: <message>."
// otherwise. With no data and no error it greets. It never shows raw
// coordinates: a reverse-geocoded "address" that is only coordinates is
// reported as no street address, and any other sentence holding a number
// with three or more decimals is dropped.

// kuraCoordinate is a number with three or more decimals: a raw
// coordinate the synthesizer never shows.
var kuraCoordinate = regexp.MustCompile(`-?\d{1,3}\.\d{3,}`)

// kuraIsCurrent reports whether a plan's place means where the user is.
func kuraIsCurrent(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "current", "here", "me":
		return true
	}
	return false
}

// kuraStep is one step of a plan.
type kuraStep struct {
	ID        string         `json:"id"`
	Action    string         `json:"action"`
	Args      map[string]any `json:"args"`
	ForEach   []string       `json:"forEach,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
}

// kuraReply is an assistant message holding v as JSON.
func kuraReply(v any) (llm.Message, error) {
	b, err := wire.MarshalPlain(v)
	if err != nil {
		return llm.Message{}, err
	}
	return llm.Message{Role: llm.RoleAssistant, Content: string(b)}, nil
}

// kuraPath walks nested JSON objects; nil when a key is missing.
func kuraPath(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func kuraString(v any, keys ...string) string {
	s, _ := kuraPath(v, keys...).(string)
	return s
}

func kuraFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}

// kuraCoords returns the coordinates of a geocoded place in the world state,
// or of the user's location for "current".
func kuraCoords(ws map[string]any, place string) (lat, lng float64, ok bool) {
	var p any
	if kuraIsCurrent(place) {
		p = kuraPath(ws, "context", "location")
	} else if places, _ := kuraPath(ws, "context", "places").(map[string]any); places != nil {
		p = places[place]
		for k, v := range places {
			if p == nil && strings.EqualFold(k, place) {
				p = v
			}
		}
	}
	lat, ok1 := kuraPath(p, "lat").(float64)
	lng, ok2 := kuraPath(p, "lng").(float64)
	return lat, lng, ok1 && ok2
}

// kuraDegrees writes a temperature as ins's format for temperatures says
// (formatted), or "" when there is none.
func kuraDegrees(ins instruct.Set, v any, units string) string {
	f, ok := v.(float64)
	if !ok {
		return ""
	}
	format, stated := ins.FormatOf("temperature")
	return policy.Formatted(format, stated, f, units)
}

func kuraMinutes(secs int) int { return int(math.Round(float64(secs) / 60)) }

func kuraNumber(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return "an unknown number of"
}
