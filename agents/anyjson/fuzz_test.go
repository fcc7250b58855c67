package anyjson_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentreplay/testbed/agents/anyjson"
)

// FuzzDecode checks Decode and DecodeUnique against encoding/json on any
// input, and Marshal against encoding/json on whatever decodes.
func FuzzDecode(f *testing.F) {
	for _, in := range tricky {
		f.Add([]byte(in))
	}
	f.Add([]byte(`[{"entity_id":"sensor.pool","state":"25.6","attributes":{"unit":"°C","friendly_name":"Pool <temp>"},"last_changed":"2026-02-22T00:00:00+00:00"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := stdDecode(data)
		got, err := anyjson.Decode(data)
		if fmtErr(err) != fmtErr(wantErr) {
			t.Fatalf("Decode(%q) error %q, encoding/json %q", data, fmtErr(err), fmtErr(wantErr))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) = %#v, encoding/json %#v", data, got, want)
		}
		if u, ok := anyjson.DecodeUnique(data); ok && (wantErr != nil || !reflect.DeepEqual(u, want)) {
			t.Fatalf("DecodeUnique(%q) = %#v, encoding/json %#v, %v", data, u, want, wantErr)
		}
		if wantErr != nil {
			return
		}
		wantOut, wantErr := json.Marshal(want)
		out, err := anyjson.Marshal(want)
		if fmtErr(err) != fmtErr(wantErr) || string(out) != string(wantOut) {
			t.Fatalf("Marshal(%#v) = %q, %v; encoding/json %q, %v", want, out, err, wantOut, wantErr)
		}
	})
}
