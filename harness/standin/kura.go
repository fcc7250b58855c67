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
//     its lowercase particles); a phrase starting with a house number ("123
//     Nowhere Lane, Atlantis") is one address up to the end of the sentence.
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

type kuraExecutor struct{}

func (kuraExecutor) Name() string { return "kura/executor" }

func (kuraExecutor) Accepts(r Request) bool {
	return strings.Contains(r.System(), "You are the Executor of Vaya")
}

// kuraTools names the tool of each action.
var kuraTools = map[string]string{
	"Geocode": "geocode", "ReverseGeocode": "reverse_geocode", "Geolocate": "geolocate",
	"Weather": "weather", "Transit": "transit_directions", "Places": "places_search",
}

func (kuraExecutor) Answer(r Request) (llm.Message, error) {
	first := ""
	for _, m := range r.Messages {
		if m.Role == llm.RoleUser {
			first = m.Content
			break
		}
	}
	var in struct {
		Step struct {
			ID     string         `json:"id"`
			Action string         `json:"action"`
			Args   map[string]any `json:"args"`
		} `json:"step"`
		WorldState map[string]any `json:"world_state"`
	}
	if err := json.Unmarshal([]byte(first), &in); err != nil {
		return llm.Message{}, fmt.Errorf("executor input is not JSON: %w", err)
	}
	step, ws := in.Step, in.WorldState
	arg := func(k string) string { s, _ := step.Args[k].(string); return s }
	fail := func(tool, message string) (llm.Message, error) {
		return kuraReply(map[string]any{
			"deltaState": map[string]any{"errors": []any{map[string]any{"step": step.ID, "tool": tool, "message": message}}},
			"snippet":    fmt.Sprintf("The %s step failed: %s.", step.Action, strings.TrimSuffix(message, ".")),
		})
	}
	if step.Action == "Conversation" {
		return kuraReply(map[string]any{"deltaState": map[string]any{}, "snippet": "Nothing to look up for a conversation."})
	}
	tool, ok := kuraTools[step.Action]
	if !ok {
		return fail("", fmt.Sprintf("unknown action %q", step.Action))
	}
	if len(r.Tools) > 0 && !slices.ContainsFunc(r.Tools, func(t llm.Tool) bool { return t.Name == tool }) {
		return fail(tool, fmt.Sprintf("no %s tool is available", tool))
	}

	call := lastCall(r.Messages)
	if call == nil || !slices.ContainsFunc(r.Messages, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == call.ID }) {
		args := map[string]any{}
		coords := func(place, latKey, lngKey string) {
			if lat, lng, ok := kuraCoords(ws, place); ok {
				args[latKey], args[lngKey] = lat, lng
			}
		}
		switch step.Action {
		case "Geocode":
			args["address"] = arg("address")
		case "ReverseGeocode":
			coords("current", "lat", "lng")
		case "Weather":
			coords(arg("location"), "lat", "lng")
			args["units"] = "imperial"
			if u := kuraString(ws, "context", "units"); u != "" {
				args["units"] = u
			}
		case "Transit":
			coords(arg("origin"), "origin_lat", "origin_lng")
			coords(arg("destination"), "destination_lat", "destination_lng")
			if t := arg("departureTime"); t != "" {
				args["departure_time"] = t
			}
		case "Places":
			args["query"] = arg("query")
			coords(arg("near"), "lat", "lng")
		}
		return toolCaller(r)(tool, args)
	}

	var res map[string]any
	if err := json.Unmarshal([]byte(resultOf(r.Messages, call.ID)), &res); err != nil {
		return fail(call.Name, "the tool returned something that is not JSON")
	}
	if e, ok := res["error"]; ok {
		msg, _ := e.(string)
		if m, ok := e.(map[string]any); ok { // Google's {"error": {"message"}}
			msg, _ = m["message"].(string)
		}
		return fail(call.Name, msg)
	}
	delta := func(context map[string]any, snippet string) (llm.Message, error) {
		return kuraReply(map[string]any{"deltaState": map[string]any{"context": context}, "snippet": snippet})
	}
	switch step.Action {
	case "Geocode":
		address := arg("address")
		results, _ := res["results"].([]any)
		switch {
		case res["status"] == "ZERO_RESULTS" || len(results) == 0:
			return fail(call.Name, fmt.Sprintf("no place found for '%s'", address))
		case len(results) > 1:
			var cands []string
			for _, r := range results {
				cands = append(cands, kuraString(r, "formatted_address"))
			}
			return kuraReply(map[string]any{
				"deltaState": map[string]any{
					"context": map[string]any{"candidates": map[string]any{address: cands}},
					"errors": []any{map[string]any{"step": step.ID, "tool": call.Name,
						"message": fmt.Sprintf("'%s' is ambiguous: %d places match", address, len(results))}},
				},
				"snippet": fmt.Sprintf("'%s' matches %d places.", address, len(results)),
			})
		}
		formatted := kuraString(results[0], "formatted_address")
		loc := kuraPath(results[0], "geometry", "location")
		place := map[string]any{"name": strings.TrimSpace(strings.SplitN(formatted, ",", 2)[0]), "address": formatted,
			"lat": kuraPath(loc, "lat"), "lng": kuraPath(loc, "lng")}
		return delta(map[string]any{"places": map[string]any{address: place}}, fmt.Sprintf("Found %s.", formatted))
	case "Geolocate":
		loc := kuraPath(res, "location")
		return delta(map[string]any{"location": map[string]any{"lat": kuraPath(loc, "lat"), "lng": kuraPath(loc, "lng"), "accuracy": res["accuracy"]}},
			fmt.Sprintf("Located you to within %s meters.", kuraNumber(res["accuracy"])))
	case "ReverseGeocode":
		results, _ := res["results"].([]any)
		if len(results) == 0 {
			return fail(call.Name, "no address found for your location")
		}
		formatted := kuraString(results[0], "formatted_address")
		return delta(map[string]any{"reverse_geocode_result": map[string]any{"formatted_address": formatted}},
			fmt.Sprintf("You are at %s.", formatted))
	case "Weather":
		location := arg("location")
		var callArgs struct {
			Units string `json:"units"`
		}
		json.Unmarshal(call.Arguments, &callArgs)
		units := callArgs.Units
		switch kuraString(res, "temperature", "unit") {
		case "FAHRENHEIT":
			units = "imperial"
		case "CELSIUS":
			units = "metric"
		}
		if units == "" {
			units = "imperial"
		}
		w := map[string]any{"location": location, "temp": kuraPath(res, "temperature", "degrees"),
			"feels_like": kuraPath(res, "feelsLikeTemperature", "degrees"),
			"summary":    kuraString(res, "weatherCondition", "description", "text"),
			"humidity":   res["relativeHumidity"], "wind_speed": kuraPath(res, "wind", "speed", "value"), "units": units}
		snippet := fmt.Sprintf("It is %s in %s.", kuraDegrees(w["temp"], units), location)
		if sum := kuraString(w, "summary"); sum != "" {
			snippet = fmt.Sprintf("It is %s and %s in %s.", kuraDegrees(w["temp"], units), strings.ToLower(sum), location)
		}
		return delta(map[string]any{"weather": map[string]any{location: w}, "lastWeather": w}, snippet)
	case "Transit":
		routes, _ := res["routes"].([]any)
		if len(routes) == 0 {
			return fail(call.Name, "no transit route found")
		}
		route := routes[0]
		secs, _ := strconv.Atoi(strings.TrimSuffix(kuraString(route, "duration"), "s"))
		t := map[string]any{"duration": secs}
		var transit []any
		legs, _ := kuraPath(route, "legs").([]any)
		for _, leg := range legs {
			steps, _ := kuraPath(leg, "steps").([]any)
			for _, s := range steps {
				if d := kuraPath(s, "transitDetails"); d != nil {
					transit = append(transit, d)
				}
			}
		}
		if len(transit) == 0 {
			return delta(map[string]any{"transit": t}, fmt.Sprintf("The only route found takes %d minutes without transit.", kuraMinutes(secs)))
		}
		first, last := transit[0], transit[len(transit)-1]
		line := kuraString(first, "transitLine", "nameShort")
		if line == "" {
			line = kuraString(first, "transitLine", "name")
		}
		t["departure"] = kuraString(first, "stopDetails", "departureTime")
		t["arrival"] = kuraString(last, "stopDetails", "arrivalTime")
		t["line"] = line
		t["from"] = kuraString(first, "stopDetails", "departureStop", "name")
		t["to"] = kuraString(last, "stopDetails", "arrivalStop", "name")
		t["stops"] = kuraPath(first, "stopCount")
		return delta(map[string]any{"transit": t}, fmt.Sprintf("The %s goes from %s to %s in about %d minutes.", line, t["from"], t["to"], kuraMinutes(secs)))
	case "Places":
		found := []any{}
		places, _ := res["places"].([]any)
		for _, p := range places[:min(5, len(places))] {
			found = append(found, map[string]any{"name": kuraString(p, "displayName", "text"),
				"address": kuraString(p, "formattedAddress"), "rating": kuraPath(p, "rating")})
		}
		return delta(map[string]any{"places_found": found}, fmt.Sprintf("Found %d places for %s.", len(found), arg("query")))
	}
	return fail(call.Name, "unexpected tool result")
}

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
