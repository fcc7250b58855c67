package kura_test

import (
	"encoding/json"
	"reflect"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/kura"
)

var _ = Describe("DeepMerge", func() {
	DescribeTable("merges src into dst",
		func(dst, src, want string) {
			d := fromJSON(dst)
			var s map[string]any
			if src != "" {
				s = fromJSON(src)
			}
			out := kura.DeepMerge(d, s)
			Expect(asJSON(out)).To(MatchJSON(want))
			Expect(asJSON(d)).To(MatchJSON(want), "dst is merged in place")
		},
		Entry("maps merge recursively", `{"a": {"x": 1, "y": {"p": 1, "q": 2}}, "b": 1}`, `{"a": {"y": {"q": 3, "r": 4}, "z": 5}}`,
			`{"a": {"x": 1, "y": {"p": 1, "q": 3, "r": 4}, "z": 5}, "b": 1}`),
		Entry("lists replace", `{"l": [1, 2, 3], "m": {"l": ["a"]}}`, `{"l": [4], "m": {"l": []}}`, `{"l": [4], "m": {"l": []}}`),
		Entry("scalars replace", `{"s": "a", "n": 1, "b": true}`, `{"s": "b", "n": 2.5, "b": false}`, `{"s": "b", "n": 2.5, "b": false}`),
		Entry("null replaces", `{"a": {"x": 1}}`, `{"a": null}`, `{"a": null}`),
		Entry("a map replaces a scalar", `{"a": 1}`, `{"a": {"b": 2}}`, `{"a": {"b": 2}}`),
		Entry("a scalar replaces a map", `{"a": {"b": 2}}`, `{"a": 1}`, `{"a": 1}`),
		Entry("a list replaces a map", `{"a": {"b": 2}}`, `{"a": [1]}`, `{"a": [1]}`),
		Entry("a nil src changes nothing", `{"a": {"b": 2}}`, "", `{"a": {"b": 2}}`),
		Entry("an empty src changes nothing", `{"a": {"b": 2}}`, `{}`, `{"a": {"b": 2}}`),
		Entry("an empty map merges into a map without change", `{"a": {"b": 2}}`, `{"a": {}}`, `{"a": {"b": 2}}`),
		Entry("an empty dst takes src", `{}`, `{"a": {"b": [1]}, "c": "d"}`, `{"a": {"b": [1]}, "c": "d"}`),
		Entry("a new nested key creates the maps", `{"context": {"city": "New York"}}`, `{"context": {"places": {"Paris": {"lat": 48.8566}}}}`,
			`{"context": {"city": "New York", "places": {"Paris": {"lat": 48.8566}}}}`),
	)

	It("returns dst itself", func() {
		dst := map[string]any{"a": 1}
		out := kura.DeepMerge(dst, map[string]any{"b": 2})
		Expect(reflect.ValueOf(out).Pointer()).To(Equal(reflect.ValueOf(dst).Pointer()))
	})

	It("copies the maps it creates, so a later change to src leaves dst alone", func() {
		src := map[string]any{"a": map[string]any{"b": map[string]any{"c": 1.0}}}
		dst := kura.DeepMerge(map[string]any{}, src)
		src["a"].(map[string]any)["b"].(map[string]any)["c"] = 2.0
		Expect(at(dst, "a", "b", "c")).To(Equal(1.0))
	})

	It("merges into a State", func() {
		s := kura.NewState(clockAt(), "imperial")
		kura.DeepMerge(s, map[string]any{"context": map[string]any{"units": "metric"}})
		Expect(at(s, "context", "units")).To(Equal("metric"))
		Expect(at(s, "context", "city")).To(Equal("New York"))
	})
})

var _ = Describe("NewState", func() {
	It("has the real project's WorldState shape with the clock and units", func() {
		s := kura.NewState(time.Date(2025, 9, 19, 22, 0, 0, 0, time.UTC), "metric")
		Expect(asJSON(s)).To(MatchJSON(`{
			"meta": {"sessionId": "session-1", "version": "2.0", "architecture": "A2A", "now": "2025-09-19T22:00:00Z"},
			"user": {"locale": "en-US", "timezone": "America/New_York"},
			"query": {"raw": ""},
			"slots": {"origin": {}, "destination": {}, "departureTime": "", "modePrefs": ["transit"]},
			"context": {"city": "New York", "units": "metric", "plan": {"steps": [], "status": "none", "confidence": 0},
				"completed_steps": [], "places": {}, "weather": {}},
			"evidence": {}, "errors": [], "memory": {}
		}`))
	})

	It("clones as a JSON round trip through encoding/json would", func() {
		s := kura.NewState(clockAt(), "imperial")
		kura.DeepMerge(s, map[string]any{"context": map[string]any{
			"weather": map[string]any{"temp": 21.5, "tags": []any{"<sunny>", nil, true}},
			"ids":     []int{1, 2}, // not a JSON value type: it comes back as []any of float64s
		}})
		b, err := json.Marshal(s)
		Expect(err).NotTo(HaveOccurred())
		var want kura.State
		Expect(json.Unmarshal(b, &want)).To(Succeed())
		Expect(s.Clone()).To(Equal(want))
	})

	It("clones deeply", func() {
		s := kura.NewState(clockAt(), "imperial")
		c := s.Clone()
		kura.DeepMerge(c, map[string]any{"context": map[string]any{"city": "Paris"}})
		Expect(at(s, "context", "city")).To(Equal("New York"))
	})
})

var _ = Describe("State.Compact", func() {
	// full is a world state after a busy turn: every kind of finding, raw
	// payloads, and what the compact view leaves out.
	full := func() kura.State {
		s := kura.NewState(clockAt(), "imperial")
		kura.DeepMerge(s, fromJSON(`{
			"query": {"raw": "What's the weather in Paris?"},
			"slots": {"origin": {"name": "Times Square", "lat": 40.758, "lng": -73.9855}},
			"context": {
				"plan": {"steps": [{"id": "S1"}, {"id": "S2"}, {"id": "S3"}], "status": "planning", "confidence": 0.8},
				"completed_steps": ["S1", "S2"],
				"places": {"Paris": {"name": "Paris", "address": "Paris, France", "lat": 48.8566, "lng": 2.3522}},
				"weather": {"Paris": {"temp": 54.3, "summary": "Partly cloudy", "raw": {"temperature": {"degrees": 54.3}}}},
				"lastWeather": {"location": "Paris", "temp": 54.3, "raw": {"big": "payload"}},
				"location": {"lat": 40.758, "lng": -73.9855, "accuracy": 35},
				"reverse_geocode_result": {"formatted_address": "Times Square, Manhattan, NY 10036, USA"},
				"transit": {"line": "2", "duration": 1845},
				"places_found": [{"name": "Bean & Broadway Coffee", "rating": 4.6}],
				"candidates": {"Springfield": ["Springfield, IL, USA", "Springfield, MA, USA"]},
				"execution_result": {"big": "thing"},
				"final_response": "earlier answer"
			},
			"evidence": {"weather": "raw evidence"},
			"errors": [{"step": "S2", "tool": "weather", "message": "boom"}],
			"memory": {"turns": 3}
		}`))
		return s
	}

	It("keeps what the executor and synthesizer need and drops the rest", func() {
		Expect(asJSON(full().Compact())).To(MatchJSON(`{
			"query": {"raw": "What's the weather in Paris?"},
			"user": {"locale": "en-US", "timezone": "America/New_York"},
			"meta": {"now": "2025-09-19T18:00:00-04:00"},
			"errors": [{"step": "S2", "tool": "weather", "message": "boom"}],
			"context": {
				"units": "imperial",
				"places": {"Paris": {"name": "Paris", "address": "Paris, France", "lat": 48.8566, "lng": 2.3522}},
				"weather": {"Paris": {"temp": 54.3, "summary": "Partly cloudy"}},
				"lastWeather": {"location": "Paris", "temp": 54.3},
				"location": {"lat": 40.758, "lng": -73.9855, "accuracy": 35},
				"reverse_geocode_result": {"formatted_address": "Times Square, Manhattan, NY 10036, USA"},
				"transit": {"line": "2", "duration": 1845},
				"places_found": [{"name": "Bean & Broadway Coffee", "rating": 4.6}],
				"candidates": {"Springfield": ["Springfield, IL, USA", "Springfield, MA, USA"]},
				"plan": {"status": "planning", "steps": 3, "completed": 2}
			}
		}`))
	})

	It("leaves out the empty maps of a fresh state", func() {
		Expect(asJSON(kura.NewState(clockAt(), "metric").Compact())).To(MatchJSON(`{
			"query": {"raw": ""},
			"user": {"locale": "en-US", "timezone": "America/New_York"},
			"meta": {"now": "2025-09-19T18:00:00-04:00"},
			"errors": [],
			"context": {"units": "metric", "plan": {"status": "none", "steps": 0, "completed": 0}}
		}`))
	})

	It("does not change the state it compacts", func() {
		s := full()
		before := asJSON(s)
		s.Compact()
		Expect(asJSON(s)).To(MatchJSON(before))
	})
})

var _ = Describe("Diff", func() {
	DescribeTable("lists the changed leaf paths",
		func(before, after string, want []string) {
			Expect(kura.Diff(fromJSON(before), fromJSON(after))).To(Equal(want))
		},
		Entry("nothing changed", `{"a": {"b": 1}}`, `{"a": {"b": 1}}`, nil),
		Entry("a scalar", `{"a": {"b": 1}}`, `{"a": {"b": 2}}`, []string{".a.b: 1 → 2"}),
		Entry("a new key, in key order", `{"a": {}}`, `{"a": {"z": 1, "y": [1]}}`, []string{".a.y: null → [1]", ".a.z: null → 1"}),
		Entry("a removed key", `{"a": 1, "b": 2}`, `{"b": 2}`, []string{".a: 1 → null"}),
		Entry("a long value is clipped", `{"s": ""}`, `{"s": "`+string(make([]byte, 0))+`0123456789012345678901234567890123456789012345678901234567890123456789"}`,
			[]string{`.s: "" → "01234567890123456789012345678901234567890123456789012345678…`}),
	)
})
