package kura

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/agents/llm"
)

// google calls the Google Maps Platform APIs with the key in the
// X-Goog-Api-Key header, never in the URL and never from ambient
// credentials.
type google struct {
	http      *http.Client
	key       string
	upstreams map[string]string
	timeout   time.Duration // per request
}

func (g *google) base(name string) string {
	if b, ok := g.upstreams[name]; ok {
		return strings.TrimRight(b, "/")
	}
	return strings.TrimRight(Info().Upstreams[name], "/")
}

// do sends a request and returns the raw body of a 200, or an error that
// names the API and the status.
func (g *google) do(ctx context.Context, method, api, path string, q url.Values, body any, fieldMask string) ([]byte, error) {
	u := g.base(api) + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Goog-Api-Key", g.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if fieldMask != "" {
		req.Header.Set("X-Goog-FieldMask", fieldMask)
	}
	resp, err := g.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s API did not answer within %s", api, g.timeout)
		}
		return nil, fmt.Errorf("%s API did not answer: %w", api, err)
	}
	defer resp.Body.Close()
	out, err := agents.ReadBody(resp)
	if err != nil {
		return nil, fmt.Errorf("%s API answer %s", api, agents.Unreadable(err))
	}
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("%s API returned HTTP %d", api, resp.StatusCode)
	}
	return out, nil
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// tools are the Executor's tools.
func (a *Agent) tools() []llm.Tool {
	num := `{"type":"number"}`
	return []llm.Tool{
		{Name: "geocode", Description: "Find the coordinates of an address or place name (Google Geocoding).",
			Parameters: json.RawMessage(`{"type":"object","properties":{"address":{"type":"string"}},"required":["address"]}`)},
		{Name: "reverse_geocode", Description: "Find the address at coordinates (Google Geocoding).",
			Parameters: json.RawMessage(`{"type":"object","properties":{"lat":` + num + `,"lng":` + num + `},"required":["lat","lng"]}`)},
		{Name: "geolocate", Description: "Find where the user is now (Google Geolocation).",
			Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "weather", Description: "Current weather conditions at coordinates (Google Weather).",
			Parameters: json.RawMessage(`{"type":"object","properties":{"lat":` + num + `,"lng":` + num + `,"units":{"type":"string","enum":["imperial","metric"]}},"required":["lat","lng"]}`)},
		{Name: "transit_directions", Description: "Public-transit directions between two points (Google Routes, travelMode TRANSIT).",
			Parameters: json.RawMessage(`{"type":"object","properties":{"origin_lat":` + num + `,"origin_lng":` + num + `,"destination_lat":` + num + `,"destination_lng":` + num + `,"departure_time":{"type":"string","description":"RFC 3339"}},"required":["origin_lat","origin_lng","destination_lat","destination_lng"]}`)},
		{Name: "places_search", Description: "Search places by text near a point (Google Places text search).",
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"lat":` + num + `,"lng":` + num + `},"required":["query"]}`)},
	}
}

// runTool runs one Executor tool and returns the text for the model: the
// raw API JSON, or {"error": …}. A missing required argument is an error,
// never a guess.
func (a *Agent) runTool(ctx context.Context, tc llm.ToolCall) string {
	var args map[string]any
	if err := json.Unmarshal(tc.Arguments, &args); err != nil {
		args = map[string]any{}
	}
	raw, err := a.callTool(ctx, tc.Name, args)
	text := string(raw)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		text = string(b)
	}
	agents.ReportTool(a.cfg.Tracer, tc.ID, tc.Name, tc.Arguments, raw, text, err)
	return text
}

func number(args map[string]any, key string) (float64, bool) {
	v, ok := args[key].(float64)
	return v, ok
}

func need(args map[string]any, keys ...string) ([]float64, error) {
	var out []float64
	var missing []string
	for _, k := range keys {
		v, ok := number(args, k)
		if !ok {
			missing = append(missing, k)
		}
		out = append(out, v)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing required argument %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func (a *Agent) callTool(ctx context.Context, name string, args map[string]any) ([]byte, error) {
	g := a.google
	switch name {
	case "geocode":
		addr, _ := args["address"].(string)
		if strings.TrimSpace(addr) == "" {
			return nil, fmt.Errorf("missing required argument address")
		}
		return g.do(ctx, http.MethodGet, "maps", "/maps/api/geocode/json", url.Values{"address": {addr}}, nil, "")
	case "reverse_geocode":
		v, err := need(args, "lat", "lng")
		if err != nil {
			return nil, err
		}
		return g.do(ctx, http.MethodGet, "maps", "/maps/api/geocode/json", url.Values{"latlng": {ff(v[0]) + "," + ff(v[1])}}, nil, "")
	case "geolocate":
		return g.do(ctx, http.MethodPost, "geolocation", "/geolocation/v1/geolocate", nil, map[string]any{"considerIp": true}, "")
	case "weather":
		v, err := need(args, "lat", "lng")
		if err != nil {
			return nil, err
		}
		// The executor may leave units out: the variant's units then apply.
		u, _ := args["units"].(string)
		if u == "" {
			u = a.opts.Units
		}
		units := "IMPERIAL"
		if strings.EqualFold(u, "metric") {
			units = "METRIC"
		}
		return g.do(ctx, http.MethodGet, "weather", "/v1/currentConditions:lookup",
			url.Values{"location.latitude": {ff(v[0])}, "location.longitude": {ff(v[1])}, "unitsSystem": {units}}, nil, "")
	case "transit_directions":
		v, err := need(args, "origin_lat", "origin_lng", "destination_lat", "destination_lng")
		if err != nil {
			return nil, err
		}
		point := func(lat, lng float64) map[string]any {
			return map[string]any{"location": map[string]any{"latLng": map[string]any{"latitude": lat, "longitude": lng}}}
		}
		body := map[string]any{"origin": point(v[0], v[1]), "destination": point(v[2], v[3]), "travelMode": "TRANSIT"}
		if t, _ := args["departure_time"].(string); t != "" {
			body["departureTime"] = t
		}
		return g.do(ctx, http.MethodPost, "routes", "/directions/v2:computeRoutes", nil, body,
			"routes.duration,routes.distanceMeters,routes.legs.steps,routes.localizedValues")
	case "places_search":
		q, _ := args["query"].(string)
		if strings.TrimSpace(q) == "" {
			return nil, fmt.Errorf("missing required argument query")
		}
		body := map[string]any{"textQuery": q}
		if v, err := need(args, "lat", "lng"); err == nil {
			body["locationBias"] = map[string]any{"circle": map[string]any{"center": map[string]any{"latitude": v[0], "longitude": v[1]}, "radius": 1000.0}}
		}
		return g.do(ctx, http.MethodPost, "places", "/v1/places:searchText", nil, body,
			"places.displayName,places.formattedAddress,places.rating,places.userRatingCount,places.location")
	}
	return nil, fmt.Errorf("unknown tool %q", name)
}
