package anyjson_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentreplay/testbed/agents/anyjson"
)

// history is a Home Assistant history of the shape the family agent reads:
// a list of lists of state objects with attributes, about 0.3 MB.
func history() []byte {
	var lists [][]map[string]any
	for e := range 3 {
		var states []map[string]any
		for i := range 400 {
			states = append(states, map[string]any{
				"entity_id":    fmt.Sprintf("sensor.room_%d_temperature", e),
				"state":        fmt.Sprintf("%.1f", 20+float64(i%50)/10),
				"attributes":   map[string]any{"unit_of_measurement": "°C", "friendly_name": fmt.Sprintf("Room %d <temperature>", e), "device_class": "temperature", "state_class": "measurement", "precision": 0.1},
				"last_changed": fmt.Sprintf("2026-02-22T%02d:%02d:00.000000+00:00", i/60%24, i%60),
				"last_updated": fmt.Sprintf("2026-02-22T%02d:%02d:00.000000+00:00", i/60%24, i%60),
			})
		}
		lists = append(lists, states)
	}
	b, err := json.Marshal(lists)
	if err != nil {
		panic(err)
	}
	return b
}

// sideBySide runs each of the named functions as a sub-benchmark over the
// history's bytes.
func sideBySide(b *testing.B, size int, fns map[string]func() error) {
	for _, name := range []string{"anyjson", "encoding-json"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := fns[name](); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode compares Decode with json.Unmarshal into an any.
func BenchmarkDecode(b *testing.B) {
	data := history()
	sideBySide(b, len(data), map[string]func() error{
		"anyjson": func() error {
			_, err := anyjson.Decode(data)
			return err
		},
		"encoding-json": func() error {
			var v any
			return json.Unmarshal(data, &v)
		},
	})
}

// BenchmarkMarshal compares Marshal with json.Marshal on the decoded history.
func BenchmarkMarshal(b *testing.B) {
	data := history()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		b.Fatal(err)
	}
	sideBySide(b, len(data), map[string]func() error{
		"anyjson": func() error {
			_, err := anyjson.Marshal(v)
			return err
		},
		"encoding-json": func() error {
			_, err := json.Marshal(v)
			return err
		},
	})
}
