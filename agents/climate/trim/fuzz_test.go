package trim_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentreplay/testbed/agents/climate/trim"
)

// FuzzDatasources checks that Datasources and SeedDatasources never panic on
// any JSON, never change their input, return JSON that marshals, and that
// count is the length of data. The seed corpus is testdata/fuzz/FuzzDatasources;
// the 50 KB golden inputs are left out, as with them the fuzzer stalls for
// tens of seconds at a time.
func FuzzDatasources(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		body, _ := v.(map[string]any)
		before, err := json.Marshal(body)
		if err != nil {
			t.Fatalf("marshal input: %v", err)
		}

		got := trim.Datasources(body)
		list, ok := got["data"].([]any)
		if !ok {
			t.Fatalf("Datasources data is %T, not a list", got["data"])
		}
		if got["count"] != float64(len(list)) {
			t.Errorf("count %v, data has %d entries", got["count"], len(list))
		}
		if _, err := json.Marshal(got); err != nil {
			t.Errorf("Datasources output does not marshal: %v", err)
		}

		seed := trim.SeedDatasources(body)
		if _, ok := seed["data"].([]any); !ok {
			t.Fatalf("SeedDatasources data is %T, not a list", seed["data"])
		}
		if _, err := json.Marshal(seed); err != nil {
			t.Errorf("SeedDatasources output does not marshal: %v", err)
		}

		after, _ := json.Marshal(body)
		if !bytes.Equal(before, after) {
			t.Errorf("input changed:\n%s\n%s", before, after)
		}
	})
}
