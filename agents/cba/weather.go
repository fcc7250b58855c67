package cba

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentreplay/testbed/agents"
)

// geocoder resolves places with the Open-Meteo geocoding API and fetches
// JSON from the other upstreams.
type geocoder struct {
	http      *http.Client
	upstreams map[string]string
	timeout   time.Duration // per request
}

// RequestTimeout is how long the assistant waits for one weather or
// geocoding request. The real tools set none of their own; 30 s is our
// choice, the timeout most HTTP clients default to.
const RequestTimeout = 30 * time.Second

type place struct {
	Name, Country string
	Lat, Lon      float64
}

func (g *geocoder) base(name string) string {
	if b, ok := g.upstreams[name]; ok {
		return strings.TrimRight(b, "/")
	}
	return strings.TrimRight(Info().Upstreams[name], "/")
}

// get fetches base+path?q and returns the body of a 200.
func (g *geocoder) get(ctx context.Context, upstream, path string, q url.Values) ([]byte, error) {
	u := g.base(upstream) + path + "?" + q.Encode()
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := g.http.Do(req)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s did not answer within %s", upstream, g.timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("%s did not answer", upstream)
	}
	defer resp.Body.Close()
	body, err := agents.ReadBody(resp)
	if err != nil {
		return nil, fmt.Errorf("%s's answer %s", upstream, agents.Unreadable(err))
	}
	if resp.StatusCode != http.StatusOK {
		return body, fmt.Errorf("%s returned HTTP %d: %s", upstream, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return body, nil
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// locate geocodes a place name.
func (g *geocoder) locate(ctx context.Context, name string) (place, error) {
	if name == "" {
		return place{}, fmt.Errorf("a place name is required")
	}
	body, err := g.get(ctx, "geocoding", "/v1/search", url.Values{"name": {name}, "count": {"1"}, "language": {"en"}, "format": {"json"}})
	if err != nil {
		return place{}, err
	}
	var out struct {
		Results []struct {
			Name      string  `json:"name"`
			Country   string  `json:"country"`
			Latitude  float64 `json:"latitude"`
			Longitude float64 `json:"longitude"`
		} `json:"results"`
	}
	if json.Unmarshal(body, &out) != nil || len(out.Results) == 0 {
		//lint:ignore ST1005 the tool's answer to the model, worded as the real tool words it
		return place{}, fmt.Errorf("Could not find location: %s", name)
	}
	r := out.Results[0]
	return place{Name: r.Name, Country: r.Country, Lat: r.Latitude, Lon: r.Longitude}, nil
}

// wmo names the WMO weather codes Open-Meteo reports.
func wmo(code int) string {
	names := map[int]string{0: "Clear sky", 1: "Mainly clear", 2: "Partly cloudy", 3: "Overcast", 45: "Fog", 48: "Depositing rime fog",
		51: "Light drizzle", 53: "Moderate drizzle", 55: "Dense drizzle", 61: "Slight rain", 63: "Moderate rain", 65: "Heavy rain",
		71: "Slight snow", 73: "Moderate snow", 75: "Heavy snow", 80: "Slight rain showers", 81: "Moderate rain showers",
		82: "Violent rain showers", 95: "Thunderstorm", 96: "Thunderstorm with slight hail", 99: "Thunderstorm with heavy hail"}
	if n, ok := names[code]; ok {
		return n
	}
	return fmt.Sprintf("Weather code %d", code)
}

func (a *Agent) currentWeather(ctx context.Context, args map[string]any) (string, []byte, error) {
	p, err := a.geo.locate(ctx, str(args, "city"))
	if err != nil {
		return "", nil, err
	}
	body, err := a.geo.get(ctx, "forecast", "/v1/forecast", url.Values{"latitude": {ff(p.Lat)}, "longitude": {ff(p.Lon)},
		"current":  {"temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m,wind_direction_10m"},
		"timezone": {"auto"}})
	if err != nil {
		return "", body, err
	}
	var w struct {
		Current struct {
			Temp     float64 `json:"temperature_2m"`
			Humidity float64 `json:"relative_humidity_2m"`
			Feels    float64 `json:"apparent_temperature"`
			Precip   float64 `json:"precipitation"`
			Code     int     `json:"weather_code"`
			Wind     float64 `json:"wind_speed_10m"`
			WindDir  float64 `json:"wind_direction_10m"`
		} `json:"current"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return "", body, fmt.Errorf("unexpected weather answer: %v", err)
	}
	c := w.Current
	return fmt.Sprintf("Current Weather for %s, %s:\n- Conditions: %s\n- Temperature: %.1f°C\n- Feels Like: %.1f°C\n- Humidity: %.0f%%\n- Wind: %.1f km/h from %.0f°\n- Precipitation: %.1f mm",
		p.Name, p.Country, wmo(c.Code), c.Temp, c.Feels, c.Humidity, c.Wind, c.WindDir, c.Precip), body, nil
}

func (a *Agent) forecast(ctx context.Context, args map[string]any) (string, []byte, error) {
	p, err := a.geo.locate(ctx, str(args, "city"))
	if err != nil {
		return "", nil, err
	}
	days := 7
	if d, ok := args["days"].(float64); ok && d >= 1 && d <= 7 {
		days = int(d)
	}
	body, err := a.geo.get(ctx, "forecast", "/v1/forecast", url.Values{"latitude": {ff(p.Lat)}, "longitude": {ff(p.Lon)},
		"daily":         {"weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,wind_speed_10m_max"},
		"forecast_days": {"7"}, "timezone": {"auto"}})
	if err != nil {
		return "", body, err
	}
	var f struct {
		Daily struct {
			Time   []string  `json:"time"`
			Code   []int     `json:"weather_code"`
			Max    []float64 `json:"temperature_2m_max"`
			Min    []float64 `json:"temperature_2m_min"`
			Precip []float64 `json:"precipitation_sum"`
			Wind   []float64 `json:"wind_speed_10m_max"`
		} `json:"daily"`
	}
	if err := json.Unmarshal(body, &f); err != nil {
		return "", body, fmt.Errorf("unexpected forecast answer: %v", err)
	}
	d := f.Daily
	var b strings.Builder
	fmt.Fprintf(&b, "Forecast for %s, %s:\n", p.Name, p.Country)
	for i := 0; i < days && i < len(d.Time) && i < len(d.Max) && i < len(d.Min) && i < len(d.Code) && i < len(d.Precip) && i < len(d.Wind); i++ {
		fmt.Fprintf(&b, "- %s: %s, %.1f–%.1f°C, %.1f mm, wind up to %.0f km/h\n", d.Time[i], wmo(d.Code[i]), d.Min[i], d.Max[i], d.Precip[i], d.Wind[i])
	}
	return strings.TrimRight(b.String(), "\n"), body, nil
}

// climateNormals aggregates 30 years of daily values into 12 monthly rows.
func (a *Agent) climateNormals(ctx context.Context, args map[string]any) (string, []byte, error) {
	p, err := a.geo.locate(ctx, str(args, "city"))
	if err != nil {
		return "", nil, err
	}
	body, err := a.geo.get(ctx, "climate", "/v1/climate", url.Values{"latitude": {ff(p.Lat)}, "longitude": {ff(p.Lon)},
		"start_date": {"1991-01-01"}, "end_date": {"2020-12-31"}, "models": {"EC_Earth3P_HR"},
		"daily": {"temperature_2m_mean,temperature_2m_max,temperature_2m_min,precipitation_sum"}})
	if err != nil {
		return "", body, err
	}
	// A run's scenarios are often given the same 30 years of daily data
	// (about 1 MB): a run makes each table once.
	table, err := agents.BuildOnce(a.cfg.Cache, "climate normals", func() (string, error) {
		return normalsTable(body, p.Name, p.Country)
	}, body, []byte(p.Name), []byte(p.Country))
	return table, body, err
}

// normalsTable averages a climate answer's daily data by month into the
// table climate_normals answers with, for the place name, country.
func normalsTable(body []byte, name, country string) (string, error) {
	var c struct {
		Daily normals `json:"daily"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return "", fmt.Errorf("unexpected climate answer: %v", err)
	}
	d := c.Daily
	type acc struct{ mean, max, min, precip, n, nPrecip float64 }
	var months [12]acc
	years := map[string]bool{}
	for i, day := range d.Time {
		if len(day) < 7 || i >= len(d.Mean) || i >= len(d.Max) || i >= len(d.Min) || d.Mean[i] == nil || d.Max[i] == nil || d.Min[i] == nil {
			continue
		}
		m, err := strconv.Atoi(day[5:7])
		if err != nil || m < 1 || m > 12 {
			continue
		}
		years[day[:4]] = true
		s := &months[m-1]
		s.mean, s.max, s.min, s.n = s.mean+*d.Mean[i], s.max+*d.Max[i], s.min+*d.Min[i], s.n+1
		if i < len(d.Precip) && d.Precip[i] != nil {
			s.precip, s.nPrecip = s.precip+*d.Precip[i], s.nPrecip+1
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Climate Normals for %s, %s (1991-2020):\nMonth | Avg Temp | Avg Max | Avg Min | Precip (mm/month)\n", name, country)
	names := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	nYears := float64(max(1, len(years)))
	for i, s := range months {
		if s.n == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s | %.1f°C | %.1f°C | %.1f°C | %.0f\n", names[i], s.mean/s.n, s.max/s.n, s.min/s.n, s.precip/nYears)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// normals is the daily data of a climate answer; a null value is nil.
type normals struct {
	Time   []string   `json:"time"`
	Mean   []*float64 `json:"temperature_2m_mean"`
	Max    []*float64 `json:"temperature_2m_max"`
	Min    []*float64 `json:"temperature_2m_min"`
	Precip []*float64 `json:"precipitation_sum"`
}
