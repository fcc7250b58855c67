package weather

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// forecastClient calls the SkyCast forecast API.
type forecastClient struct {
	http *http.Client
	base string
}

// forecast is the part of SkyCast's answer the agent reads.
type forecast struct {
	City    string `json:"city"`
	Country string `json:"country"`
	Daily   []day  `json:"daily"`
}

// day is one day's summary.
type day struct {
	Date     string  `json:"date"`
	Summary  string  `json:"summary"`
	HighC    float64 `json:"high_c"`
	LowC     float64 `json:"low_c"`
	RainMM   float64 `json:"precipitation_mm"`
	RainProb int     `json:"precipitation_probability"`
	WindKPH  float64 `json:"wind_kph"`
}

// get fetches days of forecast for city and returns the raw body with
// what it says. An answer that is not 200 is an error naming its status.
func (c *forecastClient) get(ctx context.Context, city string, days int) ([]byte, forecast, error) {
	if c.base == "" {
		return nil, forecast{}, fmt.Errorf("forecast for %s: no base URL for the skycast upstream", city)
	}
	q := url.Values{"city": {city}, "days": {strconv.Itoa(days)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v1/forecast?"+q.Encode(), nil)
	if err != nil {
		return nil, forecast{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, forecast{}, fmt.Errorf("forecast for %s: %w", city, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, forecast{}, fmt.Errorf("forecast for %s: %w", city, err)
	}
	if resp.StatusCode != http.StatusOK {
		return raw, forecast{}, fmt.Errorf("forecast for %s: the forecast service answered %s", city, resp.Status)
	}
	var fc forecast
	if err := json.Unmarshal(raw, &fc); err != nil {
		return raw, forecast{}, fmt.Errorf("forecast for %s: unreadable answer: %w", city, err)
	}
	return raw, fc, nil
}

// summary is the first days of fc, one line each: what an answer needs.
func (fc forecast) summary(days int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s\n", fc.City, fc.Country)
	for i, d := range fc.Daily {
		if i == days {
			break
		}
		fmt.Fprintf(&b, "%s: %s, %.0f to %.0f °C, rain %.1f mm (%d%%), wind %.0f km/h\n",
			d.Date, d.Summary, d.LowC, d.HighC, d.RainMM, d.RainProb, d.WindKPH)
	}
	return b.String()
}
