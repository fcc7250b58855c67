package standin

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // user time zones resolve the same on every host
	"unicode"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
)

// The Kura (Vaya) policies follow the three prompts of its planner → executor
// → synthesizer pipeline. Each reads the JSON user message the agent builds.
//
// Planner ({"query", "world_state"}), first match wins:
//   - a query without a single Latin letter (emoji, punctuation, digits) →
//     the prose "I'm not sure what you need.", not JSON, as a confused model
//     would answer;
//   - "from X to Y" with X and Y capitalised (or a street number; "here" or
//     "my location" as X is the current location), or "get/go/directions to
//     Y" with an optional "from X" → Geocode each end (Geolocate for the
//     current location), then Transit. A clock time "at 8am", "at 8:30 pm",
//     "at 18:00", with "today", "tonight" or "tomorrow" anywhere in the query,
//     is resolved against world_state.meta.now in world_state.user.timezone
//     into departureTime (RFC 3339 with offset); a time already past with no
//     day word means the next day; a day word without a clock time sets no
//     departureTime;
//   - "find/any/search for/look for <thing> near/around/close to <P>" →
//     Geocode P, then Places {query, near}; "near me", "nearby" or "near
//     here" → Geolocate, then Places {query};
//   - a weather word (weather, temperature, hot, cold, rain, raining, rainy)
//     → the places written after in/for/at: the leading capitalised phrase
//     of each item of a list split on "," and "and" ("Rio de Janeiro" keeps
//     its lowercase particles); a phrase starting with a house number ("12 Any
//     Street, Town") is one address up to the end of the sentence.
//     One place → Geocode, Weather; several → one Geocode and one Weather
//     step with forEach and "{item}"; none ("here", "where I am", "outside")
//     → Geolocate, Weather {location: "current"};
//   - "where am I" → Geolocate, ReverseGeocode;
//   - anything else → Conversation.
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

var (
	kuraLatin      = regexp.MustCompile(`\p{Latin}`)
	kuraWhereAmI   = regexp.MustCompile(`(?i)\bwhere am i\b`)
	kuraWeatherCue = regexp.MustCompile(`(?i)\b(?:weather|temperature|hot|cold|rain|raining|rainy)\b`)
	kuraPrep       = regexp.MustCompile(`(?i)\b(?:in|for|at)\s+`)
	kuraListSep    = regexp.MustCompile(`\s*,\s*|\s+and\s+`)
	kuraSentence   = regexp.MustCompile(`[?!;]|\.(?:\s|$)`)
	kuraStreet     = regexp.MustCompile(`^\d+[A-Za-z]?\s+\p{Lu}`)
	kuraFromTo     = regexp.MustCompile(`(?i)\bfrom\s+(.+?)\s+to\s+(.+?)` + kuraStop)
	kuraGetTo      = regexp.MustCompile(`(?i)\b(?:get|go|take me|directions|route)\s+to\s+(.+?)` + kuraStop)
	kuraFrom       = regexp.MustCompile(`(?i)\bfrom\s+(.+?)` + kuraStop)
	kuraClock      = regexp.MustCompile(`(?i)\bat\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?:\W|$)`)
	kuraDayWord    = regexp.MustCompile(`(?i)\b(today|tonight|tomorrow)\b`)
	kuraNear       = regexp.MustCompile(`(?i)\b(?:find|any|search for|look for|looking for)\s+(?:me\s+)?(?:(?:a|an|some|the)\s+)?(.+?)\s+(?:near|around|close to|nearby)\b\s*(.*?)\s*(?:[?!;]|\.(?:\s|$)|$)`)
	kuraCoordinate = regexp.MustCompile(`-?\d{1,3}\.\d{3,}`)
)

// kuraStop ends a place phrase of a transit query: a time or mode word, or
// punctuation.
const kuraStop = `\s*(?:\b(?:today|tonight|tomorrow|at|by|on|via|using|from|to|leaving|departing|around|please)\b|[?!;,]|\.(?:\s|$)|$)`

// kuraParticles may sit inside a capitalised place name.
var kuraParticles = []string{"de", "da", "do", "del", "dos", "das", "la", "le", "of", "the", "upon", "am", "sur"}

// kuraIsPlace reports whether a phrase looks like a place name: capitalised
// or a house number.
func kuraIsPlace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// kuraIsCurrent reports whether a phrase means where the user is.
func kuraIsCurrent(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "current", "here", "me", "my location", "where i am", "my current location", "current location":
		return true
	}
	return false
}

// kuraCapitalised returns the leading capitalised phrase of s.
func kuraCapitalised(s string) string {
	words := strings.Fields(s)
	n := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if kuraIsPlace(w) && !unicode.IsDigit([]rune(w)[0]) {
			n = i + 1
			continue
		}
		if slices.Contains(kuraParticles, w) && i+1 < len(words) && kuraIsPlace(words[i+1]) {
			continue
		}
		break
	}
	return strings.Join(words[:n], " ")
}

// kuraSentenceOf returns s up to the end of its first sentence.
func kuraSentenceOf(s string) string {
	if loc := kuraSentence.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	return strings.TrimSpace(s)
}

// kuraWeatherPlaces returns the places named after in/for/at.
func kuraWeatherPlaces(q string) []string {
	for _, loc := range kuraPrep.FindAllStringIndex(q, -1) {
		tail := kuraSentenceOf(q[loc[1]:])
		if kuraStreet.MatchString(tail) {
			return []string{tail}
		}
		var out []string
		for _, item := range kuraListSep.Split(tail, -1) {
			p := kuraCapitalised(item)
			if p == "" {
				break
			}
			out = append(out, p)
			if p != strings.TrimSpace(item) {
				break // the phrase ended inside the item: the list is over
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// kuraDeparture resolves a clock time in q against now in tz; "" when q
// names none.
func kuraDeparture(q string, ws map[string]any) string {
	m := kuraClock.FindStringSubmatch(q)
	if m == nil {
		return ""
	}
	hour, _ := strconv.Atoi(m[1])
	minute, _ := strconv.Atoi(m[2])
	day := strings.ToLower(kuraDayWord.FindString(q))
	switch ampm := strings.ToLower(strings.ReplaceAll(m[3], ".", "")); {
	case ampm == "pm" && hour < 12, ampm == "" && day == "tonight" && hour < 12:
		hour += 12
	case ampm == "am" && hour == 12:
		hour = 0
	}
	if hour > 23 || minute > 59 {
		return ""
	}
	now, err := time.Parse(time.RFC3339, kuraString(ws, "meta", "now"))
	if err != nil {
		return ""
	}
	if loc, err := time.LoadLocation(kuraString(ws, "user", "timezone")); err == nil {
		now = now.In(loc)
	}
	t := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, now.Location())
	switch {
	case day == "tomorrow":
		t = t.AddDate(0, 0, 1)
	case day == "" && t.Before(now):
		t = t.AddDate(0, 0, 1)
	}
	return t.Format(time.RFC3339)
}

// kuraStep is one step of a plan.
type kuraStep struct {
	ID        string         `json:"id"`
	Action    string         `json:"action"`
	Args      map[string]any `json:"args"`
	ForEach   []string       `json:"forEach,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
}

type kuraPlanner struct{}

func (kuraPlanner) Name() string { return "kura/planner" }

func (kuraPlanner) Accepts(r Request) bool {
	return strings.Contains(r.System(), "You are the Planner of Vaya")
}

func (kuraPlanner) Answer(r Request) (llm.Message, error) {
	var in struct {
		Query      string         `json:"query"`
		WorldState map[string]any `json:"world_state"`
	}
	if err := json.Unmarshal([]byte(r.LastUser()), &in); err != nil {
		return llm.Message{}, fmt.Errorf("planner input is not JSON: %w", err)
	}
	q := in.Query
	if !kuraLatin.MatchString(q) {
		return llm.Message{Role: llm.RoleAssistant, Content: "I'm not sure what you need."}, nil
	}
	var steps []kuraStep
	// A plan format that shows a "reasoning" field on its steps (as the
	// real planner's does) gets one: which action the step takes.
	reasons := strings.Contains(r.System(), `"reasoning"`)
	add := func(action string, args map[string]any, forEach ...string) {
		if args == nil {
			args = map[string]any{}
		}
		step := kuraStep{ID: "S" + strconv.Itoa(len(steps)+1), Action: action, Args: args, ForEach: forEach}
		if reasons {
			step.Reasoning = "the query needs a " + action + " step"
		}
		steps = append(steps, step)
	}
	locate := func(place string) string {
		if kuraIsCurrent(place) {
			add("Geolocate", nil)
			return "current"
		}
		add("Geocode", map[string]any{"address": place})
		return place
	}
	transit := func(from, to string) {
		origin := locate(from)
		dest := locate(to)
		args := map[string]any{"origin": origin, "destination": dest}
		if t := kuraDeparture(q, in.WorldState); t != "" {
			args["departureTime"] = t
		}
		add("Transit", args)
	}

	ft := kuraFromTo.FindStringSubmatch(q)
	gt := kuraGetTo.FindStringSubmatch(q)
	near := kuraNear.FindStringSubmatch(q)
	switch {
	case ft != nil && (kuraIsPlace(ft[1]) || kuraIsCurrent(ft[1])) && kuraIsPlace(ft[2]):
		transit(ft[1], ft[2])
	case gt != nil && kuraIsPlace(gt[1]):
		from := "current"
		if m := kuraFrom.FindStringSubmatch(q); m != nil && kuraIsPlace(m[1]) {
			from = m[1]
		}
		transit(from, gt[1])
	case near != nil && (kuraIsPlace(near[2]) || kuraIsCurrent(near[2])):
		args := map[string]any{"query": near[1]}
		if p := locate(near[2]); p != "current" {
			args["near"] = p
		}
		add("Places", args)
	case kuraWeatherCue.MatchString(q):
		switch places := kuraWeatherPlaces(q); len(places) {
		case 0:
			add("Geolocate", nil)
			add("Weather", map[string]any{"location": "current"})
		case 1:
			add("Geocode", map[string]any{"address": places[0]})
			add("Weather", map[string]any{"location": places[0]})
		default:
			add("Geocode", map[string]any{"address": "{item}"}, places...)
			add("Weather", map[string]any{"location": "{item}"}, places...)
		}
	case kuraWhereAmI.MatchString(q):
		add("Geolocate", nil)
		add("ReverseGeocode", nil)
	default:
		add("Conversation", nil)
	}
	return kuraReply(map[string]any{"steps": steps, "status": "planning", "confidence": 0.8})
}

// kuraReply is an assistant message holding v as JSON.
func kuraReply(v any) (llm.Message, error) {
	b, err := marshalPlain(v)
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

// kuraDegrees formats a temperature like "77.1°F", or "" when there is none.
func kuraDegrees(v any, units string) string {
	f, ok := v.(float64)
	if !ok {
		return ""
	}
	if units == "metric" {
		return fmt.Sprintf("%.1f°C", f)
	}
	return fmt.Sprintf("%.1f°F", f)
}

func kuraMinutes(secs int) int { return int(math.Round(float64(secs) / 60)) }

func kuraNumber(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return "an unknown number of"
}
