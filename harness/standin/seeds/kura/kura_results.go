package kura

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin/policy"
)

// kuraResultRules are the executor's rules for a tool result of each
// action; result(action, more) matches a result of that action for which
// more (if any) holds.
func kuraResultRules(result func(string, func(*kuraStepTurn) bool) func(*kuraStepTurn) bool) []policy.Rule[*kuraStepTurn] {
	return []policy.Rule[*kuraStepTurn]{
		{Name: "geocode-none", Doc: "Geocode found nothing (ZERO_RESULTS or no result): an error",
			Match: result("Geocode", func(t *kuraStepTurn) bool { return t.res["status"] == "ZERO_RESULTS" || len(t.results()) == 0 }),
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				return t.fail(t.call.Name, fmt.Sprintf("no place found for '%s'", t.arg("address")))
			}},
		{Name: "geocode-ambiguous", Doc: "Geocode found several places: context.candidates and an error",
			Match: result("Geocode", func(t *kuraStepTurn) bool { return len(t.results()) > 1 }),
			Act: func(t *kuraStepTurn) (llm.Message, error) {
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
					"snippet": t.prose.Say("'%s' matches %d places.", address, len(t.results())),
				})
			}},
		{Name: "geocode-found", Doc: "Geocode found one place: context.places[address]",
			Match: result("Geocode", nil),
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				first := t.results()[0]
				formatted := kuraString(first, "formatted_address")
				loc := kuraPath(first, "geometry", "location")
				place := map[string]any{"name": strings.TrimSpace(strings.SplitN(formatted, ",", 2)[0]), "address": formatted,
					"lat": kuraPath(loc, "lat"), "lng": kuraPath(loc, "lng")}
				return t.delta(map[string]any{"places": map[string]any{t.arg("address"): place}}, t.prose.Say("Found %s.", formatted))
			}},
		{Name: "geolocated", Doc: "Geolocate answered: context.location with its accuracy",
			Match: result("Geolocate", nil),
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				loc := kuraPath(t.res, "location")
				return t.delta(map[string]any{"location": map[string]any{"lat": kuraPath(loc, "lat"), "lng": kuraPath(loc, "lng"), "accuracy": t.res["accuracy"]}},
					t.prose.Say("Located you to within %s meters.", kuraNumber(t.res["accuracy"])))
			}},
		{Name: "reverse-none", Doc: "ReverseGeocode found no address: an error",
			Match: result("ReverseGeocode", func(t *kuraStepTurn) bool { return len(t.results()) == 0 }),
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				return t.fail(t.call.Name, "no address found for your location")
			}},
		{Name: "reverse-found", Doc: "ReverseGeocode found an address: context.reverse_geocode_result",
			Match: result("ReverseGeocode", nil),
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				formatted := kuraString(t.results()[0], "formatted_address")
				return t.delta(map[string]any{"reverse_geocode_result": map[string]any{"formatted_address": formatted}},
					t.prose.Say("You are at %s.", formatted))
			}},
		{Name: "weather-now", Doc: "Weather answered: context.weather[location] and context.lastWeather, in the result's units",
			Match: result("Weather", nil), Act: kuraWeatherDelta},
		{Name: "transit-none", Doc: "Transit found no route: an error",
			Match: result("Transit", func(t *kuraStepTurn) bool { r, _ := t.res["routes"].([]any); return len(r) == 0 }),
			Act:   func(t *kuraStepTurn) (llm.Message, error) { return t.fail(t.call.Name, "no transit route found") }},
		{Name: "transit-route", Doc: "Transit found routes: context.transit from the first (line, stops and departure of its first ride, arrival of its last)",
			Match: result("Transit", nil), Act: kuraTransitDelta},
		{Name: "places-found", Doc: "Places answered: the first five as context.places_found",
			Match: result("Places", nil),
			Act: func(t *kuraStepTurn) (llm.Message, error) {
				found := []any{}
				places, _ := t.res["places"].([]any)
				for _, p := range places[:min(5, len(places))] {
					found = append(found, map[string]any{"name": kuraString(p, "displayName", "text"),
						"address": kuraString(p, "formattedAddress"), "rating": kuraPath(p, "rating")})
				}
				return t.delta(map[string]any{"places_found": found}, t.prose.Say("Found %d places for %s.", len(found), t.arg("query")))
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
	snippet := t.prose.Say("It is %s in %s.", kuraDegrees(policy.InstructionsOf(t.r), w["temp"], units), location)
	if sum := kuraString(w, "summary"); sum != "" {
		snippet = t.prose.Say("It is %s and %s in %s.", kuraDegrees(policy.InstructionsOf(t.r), w["temp"], units), strings.ToLower(sum), location)
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
		return t.delta(map[string]any{"transit": tr}, t.prose.Say("The only route found takes %d minutes without transit.", kuraMinutes(secs)))
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
	return t.delta(map[string]any{"transit": tr}, t.prose.Say("The %s goes from %s to %s in about %d minutes.", line, tr["from"], tr["to"], kuraMinutes(secs)))
}
