package schema_test

import (
	"fmt"
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/family/schema"
)

// history builds a Home Assistant state history as family_assistant's
// download_state_history saves it: three pool sensors, n states each, every
// seventh one "unavailable" with only a restored friendly name, and a user on
// every eleventh context.
func history(n int) map[string]any {
	start := time.Date(2025, 10, 26, 0, 0, 0, 0, time.UTC)
	sensors := []struct {
		id, name, unit, class string
		base, swing           float64
	}{
		{"sensor.pool_temperature", "Pool Temperature", "°C", "temperature", 26, 2},
		{"sensor.pool_pump_power", "Pool Pump Power", "W", "power", 600, 150},
		{"sensor.pool_chlorine", "Pool Chlorine", "ppm", "", 1.5, 0.4},
	}
	var entities []any
	for e, s := range sensors {
		var states []any
		for i := range n {
			at := start.Add(time.Duration(i) * 5 * 24 * time.Hour / time.Duration(n)).Format("2006-01-02T15:04:05.000000+00:00")
			attrs := map[string]any{"friendly_name": s.name}
			state := "unavailable"
			if i%7 != 3 {
				state = fmt.Sprintf("%.1f", s.base+s.swing*math.Sin(float64(i+e)/6))
				attrs["unit_of_measurement"] = s.unit
				attrs["state_class"] = "measurement"
				if s.class != "" {
					attrs["device_class"] = s.class
				}
			} else {
				attrs["restored"] = true
			}
			var user any
			if i%11 == 5 {
				user = "3c4a1e5b9f2d4e6a8b7c0d1e2f3a4b5c"
			}
			states = append(states, map[string]any{
				"entity_id":    s.id,
				"state":        state,
				"attributes":   attrs,
				"last_changed": at,
				"last_updated": at,
				"context":      map[string]any{"id": fmt.Sprintf("01JB%022d", e*n+i), "parent_id": nil, "user_id": user},
			})
		}
		entities = append(entities, map[string]any{"entity_id": s.id, "states": states})
	}
	return map[string]any{
		"start_time":               start.Format(time.RFC3339),
		"end_time":                 start.Add(5 * 24 * time.Hour).Format(time.RFC3339),
		"significant_changes_only": false,
		"entities":                 entities,
	}
}

var _ = Describe("a Home Assistant state history", func() {
	var got map[string]any
	BeforeEach(func() {
		got = schema.Infer(history(50))
	})

	It("matches the golden schema", func() {
		golden("history.txtar", "schema.json", pretty(got))
	})

	It("marks as required only what every state has", func() {
		entity := got["properties"].(map[string]any)["entities"].(map[string]any)["items"].(map[string]any)
		state := entity["properties"].(map[string]any)["states"].(map[string]any)["items"].(map[string]any)
		Expect(state["required"]).To(Equal([]string{"attributes", "context", "entity_id", "last_changed", "last_updated", "state"}))

		props := state["properties"].(map[string]any)
		attrs := props["attributes"].(map[string]any)
		Expect(attrs["required"]).To(Equal([]string{"friendly_name"}))
		Expect(attrs["properties"]).To(HaveKey("device_class"))
		Expect(attrs["properties"]).To(HaveKeyWithValue("restored", map[string]any{"type": "boolean"}))

		context := props["context"].(map[string]any)["properties"].(map[string]any)
		Expect(context["user_id"]).To(Equal(map[string]any{"type": []string{"null", "string"}}))
		Expect(context["parent_id"]).To(Equal(map[string]any{"type": "null"}))
	})
})
