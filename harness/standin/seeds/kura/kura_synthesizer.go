package kura

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // user time zones resolve the same on every host

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/instruct"
	"github.com/agentreplay/testbed/harness/standin/lexicon"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// Synthesizer answers the Kura synthesizer: the reply from the
// world state the executor built.
type Synthesizer struct{}

// Name is "kura/synthesizer".
func (Synthesizer) Name() string { return "kura/synthesizer" }

// Accepts reports whether r follows its protocol.
func (Synthesizer) Accepts(r policy.Request) bool {
	return strings.Contains(r.System(), "You are the Synthesizer of Vaya")
}

// kuraWorld is what the synthesizer rules read, and the sentences they
// have said so far.
type kuraWorld struct {
	query string
	ws    map[string]any
	out   []string
	ins   instruct.Set  // what the prompt instructs
	prose lexicon.Prose // how it writes: the prompt's language and length
	// hideCoords: the prompt forbids showing coordinates (the default
	// shows them).
	hideCoords bool
}

// say adds a sentence, unless it repeats one or holds a raw coordinate
// the prompt forbids showing.
func (k *kuraWorld) say(format string, a ...any) {
	s := k.prose.Say(format, a...)
	if !(k.hideCoords && kuraCoordinate.MatchString(s)) && !slices.Contains(k.out, s) {
		k.out = append(k.out, s)
	}
}

// Decide answers by kuraSynthesizerRules. Unlike the other tables every
// rule that matches adds its sentences, in table order; the name lists
// them joined by "+".
func (Synthesizer) Decide(r policy.Request) (llm.Message, string, error) {
	var in struct {
		Query      string         `json:"query"`
		WorldState map[string]any `json:"world_state"`
	}
	if err := json.Unmarshal([]byte(r.LastUser()), &in); err != nil {
		return llm.Message{}, "", fmt.Errorf("synthesizer input is not JSON: %w", err)
	}
	k := &kuraWorld{query: in.Query, ws: in.WorldState, ins: policy.InstructionsOf(r)}
	k.prose = lexicon.ProseOf(k.ins, in.Query)
	k.hideCoords = k.ins.Forbids("show", "", "coordinates")
	var names []string
	for _, ru := range kuraSynthesizerRules() {
		if ru.Match(k) {
			ru.Act(k)
			names = append(names, ru.Name)
		}
	}
	k.out, names = kuraLength(k, names)
	return llm.Message{Role: llm.RoleAssistant, Content: strings.Join(k.out, " ")}, strings.Join(names, "+"), nil
}

// RuleNames lists the names of its rules, in table order.
func (Synthesizer) RuleNames() []string { return policy.Names(kuraSynthesizerRules()) }

// kuraSynthesizerRules are the synthesizer's sections, in reply order.
func kuraSynthesizerRules() []policy.Rule[*kuraWorld] {
	// A section says its sentences into the world; its message is unused.
	section := func(f func(*kuraWorld)) func(*kuraWorld) (llm.Message, error) {
		return func(k *kuraWorld) (llm.Message, error) { f(k); return llm.Message{}, nil }
	}
	return []policy.Rule[*kuraWorld]{
		{Name: "address", Doc: "a reverse-geocoded address: where the user is, or, when the prompt forbids showing coordinates and it is only coordinates, that there is no street address",
			Match: func(k *kuraWorld) bool {
				return kuraString(k.ws, "context", "reverse_geocode_result", "formatted_address") != ""
			},
			Act: section(func(k *kuraWorld) {
				if a := kuraString(k.ws, "context", "reverse_geocode_result", "formatted_address"); k.hideCoords && kuraCoordinate.MatchString(a) {
					k.say("I couldn't find a street address for where you are.")
				} else {
					k.say("You're at %s.", a)
				}
			})},
		{Name: "weather", Doc: "weather in context: each location's, in the order the query names them",
			Match: func(k *kuraWorld) bool { return len(kuraWeathers(k.ws)) > 0 }, Act: section(kuraSayWeather)},
		{Name: "transit", Doc: "a transit route: the line, stops and departure in the user's time zone, and the duration in whole minutes",
			Match: func(k *kuraWorld) bool { _, ok := kuraPath(k.ws, "context", "transit").(map[string]any); return ok },
			Act:   section(kuraSayTransit)},
		{Name: "places", Doc: "places found: up to three with ratings, or that none was found",
			Match: func(k *kuraWorld) bool { _, ok := kuraPath(k.ws, "context", "places_found").([]any); return ok },
			Act: section(func(k *kuraWorld) {
				found, _ := kuraPath(k.ws, "context", "places_found").([]any)
				var names []string
				for _, p := range found[:min(3, len(found))] {
					n := kuraString(p, "name")
					if r, ok := kuraPath(p, "rating").(float64); ok {
						n += fmt.Sprintf(" (%.1f★)", r)
					}
					names = append(names, n)
				}
				if len(names) == 0 {
					k.say("I couldn't find any matching places nearby.")
				} else {
					k.say("Nearby: %s.", strings.Join(names, ", "))
				}
			})},
		{Name: "errors", Doc: "errors: one sentence each (no match, several matches with the candidates, or the tool's message)",
			Match: func(k *kuraWorld) bool { e, _ := kuraPath(k.ws, "errors").([]any); return len(e) > 0 },
			Act:   section(kuraSayErrors)},
		{Name: "greeting", Doc: "nothing said and no error: the reply a routing rule for a greeting prescribes (warm, offering the help it lists), else a plain greeting",
			Match: func(k *kuraWorld) bool {
				e, _ := kuraPath(k.ws, "errors").([]any)
				return len(k.out) == 0 && len(e) == 0
			},
			Act: section(func(k *kuraWorld) {
				for _, rt := range k.ins.Routes {
					if rt.Reply != "" && lexicon.Read(rt.When).Has("greeting") {
						k.say("%s", greetingReply(k.prose, rt.Reply))
						return
					}
				}
				k.say("Hello! How can I help you today?")
			})},
	}
}

// kuraWeathers is context.weather, or context.lastWeather by its location.
func kuraWeathers(ws map[string]any) map[string]any {
	weather, _ := kuraPath(ws, "context", "weather").(map[string]any)
	if len(weather) == 0 {
		if w, ok := kuraPath(ws, "context", "lastWeather").(map[string]any); ok {
			weather = map[string]any{kuraString(w, "location"): w}
		}
	}
	return weather
}

func kuraSayWeather(k *kuraWorld) {
	weather := kuraWeathers(k.ws)
	q := strings.ToLower(k.query)
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
		temp := kuraDegrees(k.ins, kuraPath(w, "temp"), units)
		rest := ""
		if sum := kuraString(w, "summary"); sum != "" {
			rest += k.prose.Say(" and %s", strings.ToLower(sum))
		}
		if fl := kuraDegrees(k.ins, kuraPath(w, "feels_like"), units); fl != "" && k.mentionFeelsLike(fl, temp) {
			rest += k.prose.Say(", feels like %s", fl)
		}
		if l == "current" || l == "" {
			k.say("Where you are it's %s%s.", temp, rest)
		} else {
			k.say("In %s it's %s%s.", l, temp, rest)
		}
	}
}

func kuraSayTransit(k *kuraWorld) {
	t, _ := kuraPath(k.ws, "context", "transit").(map[string]any)
	mins := kuraMinutes(int(kuraFloat(t["duration"])))
	line := kuraString(t, "line")
	if line == "" {
		k.say("The trip takes about %d minutes.", mins)
		return
	}
	at := ""
	if dep, err := time.Parse(time.RFC3339, kuraString(t, "departure")); err == nil {
		if loc, err := time.LoadLocation(kuraString(k.ws, "user", "timezone")); err == nil {
			dep = dep.In(loc)
		}
		at = k.prose.Say(" at %s", dep.Format("3:04 PM"))
	}
	k.say("Take the %s from %s%s and arrive at %s about %d minutes later.", line, kuraString(t, "from"), at, kuraString(t, "to"), mins)
}

func kuraSayErrors(k *kuraWorld) {
	errs, _ := kuraPath(k.ws, "errors").([]any)
	for _, e := range errs {
		msg, tool := kuraString(e, "message"), kuraString(e, "tool")
		if a, ok := strings.CutPrefix(msg, "no place found for '"); ok {
			k.say("I couldn't find %s.", strings.TrimSuffix(a, "'"))
			continue
		}
		if a, _, ok := strings.Cut(msg, "' is ambiguous"); ok && strings.HasPrefix(a, "'") {
			a = a[1:]
			var cands []string
			c, _ := kuraPath(k.ws, "context", "candidates", a).([]any)
			for _, x := range c {
				if s, ok := x.(string); ok {
					cands = append(cands, s)
				}
			}
			if len(cands) > 1 {
				k.say("Which %s do you mean: %s or %s?", a, strings.Join(cands[:len(cands)-1], ", "), cands[len(cands)-1])
			} else {
				k.say("%s matches several places; which one do you mean?", a)
			}
			continue
		}
		msg = strings.TrimSuffix(msg, ".")
		if tool == "" {
			k.say("I couldn't complete that: %s.", msg)
			continue
		}
		k.say("I couldn't complete the %s lookup: %s.", tool, msg)
	}
}

// mentionFeelsLike reports whether the felt temperature fl is said beside
// temp: by the prompt's conditional mention of it (a condition that says
// the values differ), else always (the default).
func (k *kuraWorld) mentionFeelsLike(fl, temp string) bool {
	when, ok := k.ins.Mentioned("feels like")
	if ok && lexicon.Read(when).Has("differ") {
		return fl != temp
	}
	return true
}

// kuraLength cuts the reply to the number of sentences the prompt allows;
// without a limit (the default) it adds a closing offer of more help, as a
// verbose model does (prose.limit).
func kuraLength(k *kuraWorld, names []string) ([]string, []string) {
	out, cut, verbose := k.prose.Limit(k.out)
	switch {
	case cut:
		names = append(names, "length")
	case verbose:
		names = append(names, "verbose")
	}
	return out, names
}

// offerRe finds what a prescribed reply offers help with.
var offerRe = regexp.MustCompile(`(?i)\boffer\s+(?:help|assistance)\s+(?:with|on)\s+(.+)`)

// greetingReply is the warm one-sentence greeting a reply rule prescribes,
// offering the help it lists, in its words, written in p's language.
func greetingReply(p lexicon.Prose, reply string) string {
	if m := offerRe.FindStringSubmatch(reply); m != nil {
		return p.Say("Hi there, happy to help with %s!", strings.TrimRight(m[1], "."))
	}
	return p.Say("Hi there, happy to help!")
}
