package match_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentreplay/testbed/harness/match"
)

// FuzzRules checks that a rule built from any JSON pointer and any regular
// expression either fails to compile or applies to any JSON document
// without panicking and leaves valid JSON, and that the ignore rule applied
// again changes nothing more: what it ignores is gone. (A normalise rule
// need not be idempotent: a token can complete a new match, and both sides
// of a comparison are normalised once.)
func FuzzRules(f *testing.F) {
	f.Add("/metadata/request_id", `[0-9a-f]{8}-[0-9a-f]{4}`, []byte(`{"metadata":{"request_id":"3f2b8c1e-9d4a"},"a":[1,"x"]}`))
	f.Add("/a/*", `\d+`, []byte(`{"a":[1,2,{"b":"c3"}]}`))
	f.Add("/~0~1/0", `z`, []byte(`[{"~/":["z"]}]`))
	f.Add("/", `.`, []byte(`{"":"x"}`))
	f.Fuzz(func(t *testing.T, pointer, regex string, doc []byte) {
		r := &match.Rules{List: []match.Rule{
			{Ignore: true, Where: match.WhereBody, Target: pointer},
			{Where: match.WhereAnywhere, Regex: regex, Token: "\x00"},
		}}
		if len(r.Compile()) > 0 {
			return
		}
		decode := func(b []byte) (any, bool) {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var v any
			return v, dec.Decode(&v) == nil
		}
		v, ok := decode(doc)
		if !ok {
			return
		}
		once, err := json.Marshal(r.JSON(v))
		if err != nil {
			t.Fatalf("rules left a value that does not marshal: %v", err)
		}
		again, ok := decode(once)
		if !ok {
			t.Fatalf("rules left invalid JSON: %s", once)
		}
		ignore := &match.Rules{List: r.List[:1]}
		twice, err := json.Marshal(ignore.JSON(again))
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("applying the rules again changed %s into %s", once, twice)
		}
	})
}
