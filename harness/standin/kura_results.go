package standin

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// kuraResultRules are the executor's rules for a tool result of each
// action; result(action, more) matches a result of that action for which
// more (if any) holds.
func kuraResultRules(result func(string, func(*kuraStepTurn) bool) func(*kuraStepTurn) bool) []rule[*kuraStepTurn] {
	return []rule[*kuraStepTurn]{
		{name: "geocode-none", doc: "Geocode found nothing (ZERO_RESULTS or no result): an error",
			match: result("Geocode", func(t *kuraStepTurn) bool { return t.res["status"] == "ZERO_RESULTS" || len(t.results()) == 0 }),
			act: func(t *kuraStepTurn) (llm.Message, error) {
				return t.fail(t.call.Name, fmt.Sprintf("no place found for '%s'", t.arg("address")))
			}},
		{name: "geocode-ambiguous", doc: "Geocode found several places: context.candidates and an error",
			match: result("Geocode", func(t *kuraStepTurn) bool { return len(t.results()) > 1 }),
			act: func(t *kuraStepTurn) (llm.Message, error) {
				address := t.arg("address")
				var cands []string
				for _, r := range t.results() {
					cands = append(cands, kuraString(r, "formatted_address"))
				}
				return kuraReply(map[string]any{
					"deltaState": map[string]any{
						"context": map[string]any{"candidates": map[string]any{address: cands}},
						"errors": []any{map[string]any{"step": t.step.ID, "tool": t.call.Name,
							"message": fmt.Sprintf("'%s' is ambiguous: %d places match", address, len(t.results()))}},
					},
					"snippet": t.prose.say("'%s' matches %d places.", address, len(t.results())),
				})
			}},
		{name: "geocode-found", doc: "Geocode found one place: context.places[address]",
			match: result("Geocode", nil),
			act: func(t *kuraStepTurn) (llm.Message, error) {
				first := t.results()[0]
				formatted := kuraString(first, "formatted_address")
				loc := kuraPath(first, "geometry", "location")
				place := map[string]any{"name": strings.TrimSpace(strings.SplitN(formatted, ",", 2)[0]), "address": formatted,
					"lat": kuraPath(loc, "lat"), "lng": kuraPath(loc, "lng")}
				return t.delta(map[string]any{"places": map[string]any{t.arg("address"): place}}, t.prose.say("Found %s.", formatted))
			}},
		{name: "geolocated", doc: "Geolocate answered: context.location with its accuracy",
			match: result("Geolocate", nil),
			act: func(t *kuraStepTurn) (llm.Message, error) {
				loc := kuraPath(t.res, "location")
				return t.delta(map[string]any{"location": map[string]any{"lat": kuraPath(loc, "lat"), "lng": kuraPath(loc, "lng"), "accuracy": t.res["accuracy"]}},
					t.prose.say("Located you to within %s meters.", kuraNumber(t.res["accuracy"])))
			}},
		{name: "reverse-none", doc: "ReverseGeocode found no address: an error",
			match: result("ReverseGeocode", func(t *kuraStepTurn) bool { return len(t.results()) == 0 }),
			act: func(t *kuraStepTurn) (llm.Message, error) {
				return t.fail(t.call.Name, "no address found for your location")
			}},
		{name: "reverse-found", doc: "ReverseGeocode found an address: context.reverse_geocode_result",
			match: result("ReverseGeocode", nil),
			act: func(t *kuraStepTurn) (llm.Message, error) {
				formatted := kuraString(t.results()[0], "formatted_address")
				return t.delta(map[string]any{"reverse_geocode_result": map[string]any{"formatted_address": formatted}},
					t.prose.say("You are at %s.", formatted))
			}},
		{name: "weather-now", doc: "Weather answered: context.weather[location] and context.lastWeather, in the result's units",
			match: result("Weather", nil), act: kuraWeatherDelta},
		{name: "transit-none", doc: "Transit found no route: an error",
			match: result("Transit", func(t *kuraStepTurn) bool { r, _ := t.res["routes"].([]any); return len(r) == 0 }),
			act:   func(t *kuraStepTurn) (llm.Message, error) { return t.fail(t.call.Name, "no transit route found") }},
		{name: "transit-route", doc: "Transit found routes: context.transit from the first (line, stops and departure of its first ride, arrival of its last)",
			match: result("Transit", nil), act: kuraTransitDelta},
		{name: "places-found", doc: "Places answered: the first five as context.places_found",
			match: result("Places", nil),
			act: func(t *kuraStepTurn) (llm.Message, error) {
				found := []any{}
				places, _ := t.res["places"].([]any)
				for _, p := range places[:min(5, len(places))] {
					found = append(found, map[string]any{"name": kuraString(p, "displayName", "text"),
						"address": kuraString(p, "formattedAddress"), "rating": kuraPath(p, "rating")})
				}
				return t.delta(map[string]any{"places_found": found}, t.prose.say("Found %d places for %s.", len(found), t.arg("query")))
			}},
	}
}

// kuraWeatherDelta is the delta of a Weather result.
func kuraWeatherDelta(t *kuraStepTurn) (llm.Message, error) {
	location := t.arg("location")
	var callArgs struct {
		Units string `json:"units"`
	}
	json.Unmarshal(t.call.Arguments, &callArgs)
	units := callArgs.Units
	switch kuraString(t.res, "temperature", "unit") {
	case "FAHRENHEIT":
		units = "imperial"
	case "CELSIUS":
		units = "metric"
	}
	if units == "" {
		units = "imperial"
	}
	w := map[string]any{"location": location, "temp": kuraPath(t.res, "temperature", "degrees"),
		"feels_like": kuraPath(t.res, "feelsLikeTemperature", "degrees"),
		"summary":    kuraString(t.res, "weatherCondition", "description", "text"),
		"humidity":   t.res["relativeHumidity"], "wind_speed": kuraPath(t.res, "wind", "speed", "value"), "units": units}
	snippet := t.prose.say("It is %s in %s.", kuraDegrees(instructionsOf(t.r), w["temp"], units), location)
	if sum := kuraString(w, "summary"); sum != "" {
		snippet = t.prose.say("It is %s and %s in %s.", kuraDegrees(instructionsOf(t.r), w["temp"], units), strings.ToLower(sum), location)
	}
	return t.delta(map[string]any{"weather": map[string]any{location: w}, "lastWeather": w}, snippet)
}

// kuraTransitDelta is the delta of a Transit result with routes.
func kuraTransitDelta(t *kuraStepTurn) (llm.Message, error) {
	routes, _ := t.res["routes"].([]any)
	route := routes[0]
	secs, _ := strconv.Atoi(strings.TrimSuffix(kuraString(route, "duration"), "s"))
	tr := map[string]any{"duration": secs}
	var rides []any
	legs, _ := kuraPath(route, "legs").([]any)
	for _, leg := range legs {
		steps, _ := kuraPath(leg, "steps").([]any)
		for _, s := range steps {
			if d := kuraPath(s, "transitDetails"); d != nil {
				rides = append(rides, d)
			}
		}
	}
	if len(rides) == 0 {
		return t.delta(map[string]any{"transit": tr}, t.prose.say("The only route found takes %d minutes without transit.", kuraMinutes(secs)))
	}
	first, last := rides[0], rides[len(rides)-1]
	line := kuraString(first, "transitLine", "nameShort")
	if line == "" {
		line = kuraString(first, "transitLine", "name")
	}
	tr["departure"] = kuraString(first, "stopDetails", "departureTime")
	tr["arrival"] = kuraString(last, "stopDetails", "arrivalTime")
	tr["line"] = line
	tr["from"] = kuraString(first, "stopDetails", "departureStop", "name")
	tr["to"] = kuraString(last, "stopDetails", "arrivalStop", "name")
	tr["stops"] = kuraPath(first, "stopCount")
	return t.delta(map[string]any{"transit": tr}, t.prose.say("The %s goes from %s to %s in about %d minutes.", line, tr["from"], tr["to"], kuraMinutes(secs)))
}
