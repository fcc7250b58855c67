package standin

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	_ "time/tzdata" // user time zones resolve the same on every host

	"github.com/agentreplay/testbed/agents/llm"
)

// kuraExecutor answers the Kura executor: one tool call per plan step, then
// the step's delta from the tool result.
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
