package standin_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/llm"
)

// The Kura prompts are read from the agent's source, so that these specs
// break when a prompt edit loses the first line the stand-in recognises.
const kuraPrompts = "../../agents/kura/prompts/"

// kuraNow is 10:30 in New York (EST) on Thursday 6 November 2025.
const kuraNow = "2025-11-06T15:30:00Z"

// kuraDecimals is a number with two or more decimals: a coordinate, never a
// temperature or a rating, which the synthesizer prints with one.
var kuraDecimals = regexp.MustCompile(`\d\.\d{2,}`)

func kuraPrompt(name string) string {
	b, err := os.ReadFile(kuraPrompts + name)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

func kuraJSON(v any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// kuraWorld is a world state as the agent seeds it, with context merged
// over the defaults.
func kuraWorld(query string, context map[string]any) map[string]any {
	ctx := map[string]any{"city": "New York", "units": "imperial"}
	maps.Copy(ctx, context)
	return map[string]any{
		"meta":    map[string]any{"sessionId": "s1", "version": "2.0", "architecture": "A2A", "now": kuraNow},
		"user":    map[string]any{"locale": "en-US", "timezone": "America/New_York"},
		"query":   map[string]any{"raw": query},
		"context": ctx,
		"errors":  []any{},
	}
}

// kuraGeocoded is a context holding geocoded places and the user's
// location, whose coordinates no answer may show.
func kuraGeocoded() map[string]any {
	return map[string]any{
		"places": map[string]any{
			"Paris":        map[string]any{"name": "Paris", "address": "Paris, France", "lat": 48.8575475, "lng": 2.3513765},
			"Tokyo":        map[string]any{"name": "Tokyo", "address": "Tokyo, Japan", "lat": 35.6764225, "lng": 139.650027},
			"Lima":         map[string]any{"name": "Lima", "address": "Lima, Peru", "lat": -12.0463731, "lng": -77.042754},
			"Penn Station": map[string]any{"name": "Penn Station", "address": "Penn Station, New York, NY 10001, USA", "lat": 40.7505045, "lng": -73.9934387},
			"Times Square": map[string]any{"name": "Times Square", "address": "Times Square, New York, NY 10036, USA", "lat": 40.7579747, "lng": -73.9855426},
			"Union Square": map[string]any{"name": "Union Square", "address": "Union Square, New York, NY 10003, USA", "lat": 40.7358633, "lng": -73.9910835},
		},
		"location": map[string]any{"lat": 40.7484405, "lng": -73.9856644, "accuracy": 35.0},
	}
}

func kuraPlannerRequest(query string, ws map[string]any) llm.Request {
	return llm.Request{Role: "planner", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: kuraPrompt("planner.md")},
		{Role: llm.RoleUser, Content: kuraJSON(map[string]any{"query": query, "world_state": ws})},
	}, Temperature: llm.Float(0.2), MaxTokens: 1024, Output: llm.OutputJSON}
}

// kuraExecutorRequest is the executor call for step; after holds the tool
// call and its result once the tool has answered.
func kuraExecutorRequest(step, ws map[string]any, after ...llm.Message) llm.Request {
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: kuraPrompt("executor.md")},
		{Role: llm.RoleUser, Content: kuraJSON(map[string]any{"step": step, "world_state": ws})},
	}
	return llm.Request{Role: "executor", Messages: append(msgs, after...), Tools: kuraTools(), Temperature: llm.Float(0.2), MaxTokens: 1024}
}

func kuraSynthesizerRequest(query string, ws map[string]any, snippets []string) llm.Request {
	if snippets == nil {
		snippets = []string{}
	}
	return llm.Request{Role: "synthesizer", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: kuraPrompt("synthesizer.md")},
		{Role: llm.RoleUser, Content: kuraJSON(map[string]any{"query": query, "world_state": ws, "snippets": snippets})},
	}, Temperature: llm.Float(0.2), MaxTokens: 512}
}

// kuraTools are the executor's tools as the agent declares them.
func kuraTools() []llm.Tool {
	tool := func(name, description string, props ...string) llm.Tool {
		p := map[string]any{}
		for _, k := range props {
			typ := "number"
			if k == "address" || k == "query" || k == "units" || k == "departure_time" {
				typ = "string"
			}
			p[k] = map[string]string{"type": typ}
		}
		return llm.Tool{Name: name, Description: description,
			Parameters: json.RawMessage(kuraJSON(map[string]any{"type": "object", "properties": p}))}
	}
	return []llm.Tool{
		tool("geocode", "Coordinates of an address (Google Geocoding API).", "address"),
		tool("reverse_geocode", "The address at coordinates (Google Geocoding API).", "lat", "lng"),
		tool("geolocate", "Where the user is now (Google Geolocation API)."),
		tool("weather", "Current conditions at coordinates (Google Weather API).", "lat", "lng", "units"),
		tool("transit_directions", "A public transport route (Google Routes API).",
			"origin_lat", "origin_lng", "destination_lat", "destination_lng", "departure_time"),
		tool("places_search", "Places matching a text near coordinates (Google Places API).", "query", "lat", "lng"),
	}
}

// Canned tool results, in the shapes Google's APIs return.

// kuraKnown are the coordinates of the addresses the specs geocode.
var kuraKnown = map[string][2]float64{
	"Paris, France":                         {48.8575475, 2.3513765},
	"Tokyo, Japan":                          {35.6764225, 139.650027},
	"Penn Station, New York, NY 10001, USA": {40.7505045, -73.9934387},
	"Times Square, New York, NY 10036, USA": {40.7579747, -73.9855426},
}

func kuraGeocodeResult(addresses ...string) string {
	results := []any{}
	for i, a := range addresses {
		at, ok := kuraKnown[a]
		if !ok {
			at = [2]float64{39.7817213 + float64(i), -89.6501481}
		}
		results = append(results, map[string]any{
			"formatted_address": a,
			"geometry": map[string]any{"location": map[string]any{"lat": at[0], "lng": at[1]},
				"location_type": "APPROXIMATE"},
			"place_id": fmt.Sprintf("ChIJD7fiBh9u5kcRYJSMaMOCCwQ%d", i),
			"types":    []string{"locality", "political"},
		})
	}
	status := "OK"
	if len(results) == 0 {
		status = "ZERO_RESULTS"
	}
	return kuraJSON(map[string]any{"results": results, "status": status})
}

func kuraWeatherResult(temp, feels float64, unit, text string) string {
	speed := "MILES_PER_HOUR"
	if unit == "CELSIUS" {
		speed = "KILOMETERS_PER_HOUR"
	}
	return kuraJSON(map[string]any{
		"currentTime": kuraNow, "timeZone": map[string]any{"id": "Europe/Paris"}, "isDaytime": true,
		"weatherCondition": map[string]any{"iconBaseUri": "https://maps.gstatic.com/weather/v1/partly_cloudy",
			"description": map[string]any{"text": text, "languageCode": "en"}, "type": strings.ToUpper(strings.ReplaceAll(text, " ", "_"))},
		"temperature":          map[string]any{"degrees": temp, "unit": unit},
		"feelsLikeTemperature": map[string]any{"degrees": feels, "unit": unit},
		"relativeHumidity":     71,
		"wind":                 map[string]any{"direction": map[string]any{"degrees": 240, "cardinal": "WEST_SOUTHWEST"}, "speed": map[string]any{"value": 9, "unit": speed}},
	})
}

const kuraGeolocateResult = `{"location": {"lat": 40.7484405, "lng": -73.9856644}, "accuracy": 35}`

// kuraRide is one TRANSIT step of a Routes API route.
func kuraRide(line, name, from, dep, to, arr string, stops int) map[string]any {
	tl := map[string]any{"name": name, "vehicle": map[string]any{"type": "SUBWAY"}}
	if line != "" {
		tl["nameShort"] = line
	}
	return map[string]any{"travelMode": "TRANSIT", "transitDetails": map[string]any{
		"stopDetails": map[string]any{
			"departureStop": map[string]any{"name": from, "location": map[string]any{"latLng": map[string]any{"latitude": 40.750568, "longitude": -73.993519}}},
			"departureTime": dep,
			"arrivalStop":   map[string]any{"name": to, "location": map[string]any{"latLng": map[string]any{"latitude": 40.757308, "longitude": -73.989735}}},
			"arrivalTime":   arr,
		},
		"headsign": "Inwood-207 St", "transitLine": tl, "stopCount": stops,
	}}
}

func kuraRoutesResult(duration string, rides ...map[string]any) string {
	steps := []any{map[string]any{"travelMode": "WALK", "staticDuration": "120s"}}
	for _, r := range rides {
		steps = append(steps, r)
	}
	steps = append(steps, map[string]any{"travelMode": "WALK", "staticDuration": "240s"})
	return kuraJSON(map[string]any{"routes": []any{map[string]any{
		"legs": []any{map[string]any{"steps": steps}}, "duration": duration, "distanceMeters": 2100,
	}}})
}

func kuraPlacesResult(n int) string {
	all := []struct {
		name   string
		rating float64
	}{{"Blue Bottle Coffee", 4.6}, {"Joe Coffee", 4.4}, {"Think Coffee", 4.3}, {"Irving Farm", 4.5}, {"Stumptown", 4.2}, {"Gregorys Coffee", 4.0}}
	places := []any{}
	for i, p := range all[:n] {
		places = append(places, map[string]any{"displayName": map[string]any{"text": p.name, "languageCode": "en"},
			"formattedAddress": fmt.Sprintf("%d E 14th St, New York, NY 10003, USA", 10+i), "rating": p.rating})
	}
	return kuraJSON(map[string]any{"places": places})
}

// kuraWeather is a context.weather entry as the executor writes it.
func kuraWeather(location string, temp, feels float64, summary, units string) map[string]any {
	return map[string]any{"location": location, "temp": temp, "feels_like": feels, "summary": summary,
		"humidity": 71, "wind_speed": 9, "units": units}
}

// kuraMerge merges a deltaState into the world state as the agent does:
// maps merge, other values replace, and errors accumulate.
func kuraMerge(dst, src map[string]any) {
	for k, v := range src {
		if k == "errors" {
			old, _ := dst["errors"].([]any)
			dst["errors"] = append(old, v.([]any)...)
			continue
		}
		sm, ok1 := v.(map[string]any)
		dm, ok2 := dst[k].(map[string]any)
		if ok1 && ok2 {
			kuraMerge(dm, sm)
			continue
		}
		dst[k] = v
	}
}

// kuraFakeTools answers a tool call from the canned results above.
func kuraFakeTools(tc llm.ToolCall) string {
	var a map[string]any
	Expect(json.Unmarshal(tc.Arguments, &a)).To(Succeed())
	_, located := a["lat"]
	switch tc.Name {
	case "geocode":
		switch a["address"] {
		case "Paris":
			return kuraGeocodeResult("Paris, France")
		case "Tokyo":
			return kuraGeocodeResult("Tokyo, Japan")
		case "Penn Station":
			return kuraGeocodeResult("Penn Station, New York, NY 10001, USA")
		case "Times Square":
			return kuraGeocodeResult("Times Square, New York, NY 10036, USA")
		}
		return kuraGeocodeResult()
	case "geolocate":
		return kuraGeolocateResult
	case "reverse_geocode":
		return kuraGeocodeResult("350 5th Ave, New York, NY 10118, USA")
	case "weather":
		switch {
		case !located:
			return `{"error": "lat and lng are required"}`
		case a["lat"] == 48.8575475:
			return kuraWeatherResult(54.3, 51.8, "FAHRENHEIT", "Partly cloudy")
		}
		return kuraWeatherResult(61.2, 61.2, "FAHRENHEIT", "Clear")
	case "transit_directions":
		return kuraRoutesResult("840s", kuraRide("A", "8 Avenue Express", "34 St-Penn Station", "2025-11-07T13:05:00Z", "Times Sq-42 St", "2025-11-07T13:09:00Z", 1))
	}
	Fail("kuraFakeTools: unexpected tool " + tc.Name)
	return ""
}

// kuraTurn plays one Vaya turn as the agent does: plan, run each step
// (forEach expanded, "{item}" filled in) through the executor with the fake
// tools, merge the deltas, synthesize. It returns the answer and every tool
// call made.
func kuraTurn(c llm.Client, query string) (string, []llm.ToolCall) {
	ws := kuraWorld(query, nil)
	resp := chat(c, kuraPlannerRequest(query, ws))
	var plan struct {
		Steps []struct {
			ID      string         `json:"id"`
			Action  string         `json:"action"`
			Args    map[string]any `json:"args"`
			ForEach []string       `json:"forEach"`
		} `json:"steps"`
	}
	Expect(json.Unmarshal([]byte(resp.Message.Content), &plan)).To(Succeed(), "plan %q", resp.Message.Content)
	var calls []llm.ToolCall
	var snippets []string
	for _, s := range plan.Steps {
		items := s.ForEach
		if items == nil {
			items = []string{""}
		}
		for _, item := range items {
			args := map[string]any{}
			for k, v := range s.Args {
				if str, ok := v.(string); ok {
					v = strings.ReplaceAll(str, "{item}", item)
				}
				args[k] = v
			}
			step := map[string]any{"id": s.ID, "action": s.Action, "args": args}
			first := chat(c, kuraExecutorRequest(step, ws)).Message
			var after []llm.Message
			if len(first.ToolCalls) > 0 {
				Expect(first.ToolCalls).To(HaveLen(1))
				tc := first.ToolCalls[0]
				calls = append(calls, tc)
				after = []llm.Message{first, toolSays(tc.ID, tc.Name, kuraFakeTools(tc))}
			}
			reply := first.Content
			if after != nil {
				reply = chat(c, kuraExecutorRequest(step, ws, after...)).Message.Content
			}
			var out struct {
				DeltaState map[string]any `json:"deltaState"`
				Snippet    string         `json:"snippet"`
			}
			Expect(json.Unmarshal([]byte(reply), &out)).To(Succeed(), "executor reply %q", reply)
			kuraMerge(ws, out.DeltaState)
			snippets = append(snippets, out.Snippet)
		}
	}
	return chat(c, kuraSynthesizerRequest(query, ws, snippets)).Message.Content, calls
}
