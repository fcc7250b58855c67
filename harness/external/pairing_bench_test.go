package external_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/external"
)

// BenchmarkPairFetches is the pairing of one model answer's three tool
// calls with the three upstream bodies fetched for them, in the reverse
// order (a program running its tools at once), each body a 4 KB forecast:
// what a model request costs the traffic scorer when the answer before it
// asked for several calls: told apart by the arguments their requests
// carry, and, with the cities out of the arguments, by the words their
// results took from the bodies.
func BenchmarkPairFetches(b *testing.B) {
	cities := []struct {
		name     string
		lat, lon float64
	}{{"Lima", -12.05, -77.04}, {"Oslo", 59.91, 10.75}, {"Tokyo", 35.68, 139.69}}
	var args, results, urls, bodies []string
	for _, c := range cities {
		args = append(args, fmt.Sprintf(`{"city": %q, "latitude": %v, "longitude": %v, "unit": "celsius"}`, c.name, c.lat, c.lon))
		results = append(results, fmt.Sprintf("%s: 14.2 °C now, humidity 81%%, wind 12 km/h", c.name))
	}
	for i := len(cities) - 1; i >= 0; i-- {
		c := cities[i]
		urls = append(urls, fmt.Sprintf("https://api.open-meteo.com/v1/forecast?latitude=%v&longitude=%v&current=temperature_2m%%2Crelative_humidity_2m&temperature_unit=celsius", c.lat, c.lon))
		hours := strings.Repeat(`"2026-03-02T08:00", `, 200)
		bodies = append(bodies, fmt.Sprintf(`{"name": %q, "latitude": %v, "longitude": %v, "timezone": "GMT", "hourly": {"time": [%s]}, "current": {"temperature_2m": 14.2, "relative_humidity_2m": 81}}`, c.name, c.lat, c.lon, hours))
	}
	noArgs := []string{`{}`, `{"unit": "celsius"}`, `{"verbose": true}`}
	for _, bc := range []struct {
		name string
		args []string
	}{{"arguments", args}, {"words", noArgs}} {
		b.Run(bc.name, func(b *testing.B) {
			if got := external.PairFetches(bc.args, results, urls, bodies); fmt.Sprint(got) != "[2 1 0]" {
				b.Fatalf("paired %v, want [2 1 0]", got)
			}
			b.ReportAllocs()
			for b.Loop() {
				external.PairFetches(bc.args, results, urls, bodies)
			}
		})
	}
}
