package check_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/check"
	"github.com/agentreplay/testbed/harness/scenario"
	"github.com/agentreplay/testbed/harness/trace"
)

// FuzzArgsMatch checks that matching arguments never panics, that a failure
// always names a JSON path, and that any JSON object matches itself.
func FuzzArgsMatch(f *testing.F) {
	f.Add(`{"bbox":[118,20,123.5,26.5]}`, `{"bbox":[118,20,123,26.5],"var":"sst"}`)
	f.Add(`{"unit":{"any_of":["C","celsius"]}}`, `{"unit":"F"}`)
	f.Add(`{"a":{"b":[{"c":null}]},"~/":1e3}`, `{"a":{"b":[{"c":0}]}}`)
	f.Add(`{"n":1}`, `[1]`)
	f.Fuzz(func(t *testing.T, want, got string) {
		var w map[string]any
		if json.Unmarshal([]byte(want), &w) != nil || len(w) == 0 {
			return
		}
		run := func(args string) (bool, string) {
			evs := []trace.Event{{Kind: trace.KindTool, Tool: &trace.ToolCall{Name: "t", Args: json.RawMessage(args)}}}
			cs := check.Turn(0, scenario.Expect{Args: w}, agents.Reply{}, evs, nil)
			if len(cs) != 1 || cs[0].Name != "args" {
				t.Fatalf("want one args check, got %+v", cs)
			}
			return cs[0].Pass, cs[0].Detail
		}
		if pass, detail := run(got); !pass && json.Valid([]byte(got)) && !strings.HasPrefix(detail, "/") {
			t.Errorf("failure names no JSON path: %s", detail)
		}
		if b, _ := json.Marshal(w); strings.Contains(string(b), `"any_of"`) {
			return // {any_of: …} means something else on the expected side
		}
		if pass, detail := run(want); !pass {
			t.Errorf("%s does not match itself: %s", want, detail)
		}
	})
}
