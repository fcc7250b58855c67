package standin

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // user time zones resolve the same on every host

	"github.com/agentreplay/testbed/agents/llm"
)

// kuraSynthesizer answers the Kura synthesizer: the reply from the
// world state the executor built.
type kuraSynthesizer struct{}

func (kuraSynthesizer) Name() string { return "kura/synthesizer" }

func (kuraSynthesizer) Accepts(r Request) bool {
	return strings.Contains(r.System(), "You are the Synthesizer of Vaya")
}

func (kuraSynthesizer) Answer(r Request) (llm.Message, error) {
	var in struct {
		Query      string         `json:"query"`
		WorldState map[string]any `json:"world_state"`
	}
	if err := json.Unmarshal([]byte(r.LastUser()), &in); err != nil {
		return llm.Message{}, fmt.Errorf("synthesizer input is not JSON: %w", err)
	}
	ws := in.WorldState
	var out []string
	say := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		if !kuraCoordinate.MatchString(s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}

	switch a := kuraString(ws, "context", "reverse_geocode_result", "formatted_address"); {
	case kuraCoordinate.MatchString(a):
		say("I couldn't find a street address for where you are.")
	case a != "":
		say("You're at %s.", a)
	}
	weather, _ := kuraPath(ws, "context", "weather").(map[string]any)
	if len(weather) == 0 {
		if w, ok := kuraPath(ws, "context", "lastWeather").(map[string]any); ok {
			weather = map[string]any{kuraString(w, "location"): w}
		}
	}
	q := strings.ToLower(in.Query)
	locations := make([]string, 0, len(weather))
	for l := range weather {
		locations = append(locations, l)
	}
	pos := func(l string) int {
		if i := strings.Index(q, strings.ToLower(l)); i >= 0 {
			return i
		}
		return len(q)
	}
	slices.SortFunc(locations, func(a, b string) int {
		if c := pos(a) - pos(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, l := range locations {
		w := weather[l]
		units := kuraString(w, "units")
		where := "In " + l
		if l == "current" || l == "" {
			where = "Where you are"
		}
		s := fmt.Sprintf("%s it's %s", where, kuraDegrees(kuraPath(w, "temp"), units))
		if sum := kuraString(w, "summary"); sum != "" {
			s += " and " + strings.ToLower(sum)
		}
		if fl := kuraDegrees(kuraPath(w, "feels_like"), units); fl != "" && fl != kuraDegrees(kuraPath(w, "temp"), units) {
			s += ", feels like " + fl
		}
		say("%s.", s)
	}
	if t, ok := kuraPath(ws, "context", "transit").(map[string]any); ok {
		mins := kuraMinutes(int(kuraFloat(t["duration"])))
		line := kuraString(t, "line")
		switch {
		case line == "":
			say("The trip takes about %d minutes.", mins)
		default:
			at := ""
			if dep, err := time.Parse(time.RFC3339, kuraString(t, "departure")); err == nil {
				if loc, err := time.LoadLocation(kuraString(ws, "user", "timezone")); err == nil {
					dep = dep.In(loc)
				}
				at = " at " + dep.Format("3:04 PM")
			}
			say("Take the %s from %s%s and arrive at %s about %d minutes later.", line, kuraString(t, "from"), at, kuraString(t, "to"), mins)
		}
	}
	if found, ok := kuraPath(ws, "context", "places_found").([]any); ok {
		var names []string
		for _, p := range found[:min(3, len(found))] {
			n := kuraString(p, "name")
			if r, ok := kuraPath(p, "rating").(float64); ok {
				n += fmt.Sprintf(" (%.1f★)", r)
			}
			names = append(names, n)
		}
		if len(names) == 0 {
			say("I couldn't find any matching places nearby.")
		} else {
			say("Nearby: %s.", strings.Join(names, ", "))
		}
	}

	errs, _ := kuraPath(ws, "errors").([]any)
	for _, e := range errs {
		msg, tool := kuraString(e, "message"), kuraString(e, "tool")
		if a, ok := strings.CutPrefix(msg, "no place found for '"); ok {
			say("I couldn't find %s.", strings.TrimSuffix(a, "'"))
			continue
		}
		if a, _, ok := strings.Cut(msg, "' is ambiguous"); ok && strings.HasPrefix(a, "'") {
			a = a[1:]
			var cands []string
			c, _ := kuraPath(ws, "context", "candidates", a).([]any)
			for _, x := range c {
				if s, ok := x.(string); ok {
					cands = append(cands, s)
				}
			}
			if len(cands) > 1 {
				say("Which %s do you mean: %s or %s?", a, strings.Join(cands[:len(cands)-1], ", "), cands[len(cands)-1])
			} else {
				say("%s matches several places; which one do you mean?", a)
			}
			continue
		}
		msg = strings.TrimSuffix(msg, ".")
		if tool == "" {
			say("I couldn't complete that: %s.", msg)
			continue
		}
		say("I couldn't complete the %s lookup: %s.", tool, msg)
	}
	if len(out) == 0 && len(errs) == 0 {
		say("Hi! I'm Vaya — ask me about transit directions, places nearby or the weather.")
	}
	return llm.Message{Role: llm.RoleAssistant, Content: strings.Join(out, " ")}, nil
}
