package family_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/family"
)

// bigRepeat matches programs that could ask gojq for one huge string or
// number at once ("x" * 1e9), which would only measure the machine's memory.
var bigRepeat = regexp.MustCompile(`[0-9]{6,}|[0-9.][eE]`)

// FuzzJQ checks the jq_query tool's input handling: whatever the arguments
// (raw, or an attachment id and a program) and the attachment's bytes, it
// never panics and answers within its time bound with either valid JSON of
// bounded size or one "Error: " text the model can act on. The seed corpus
// is testdata/fuzz/FuzzJQ.
func FuzzJQ(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, program string, raw bool) {
		if strings.Contains(program, "*") && bigRepeat.MatchString(program) {
			return
		}
		args := []byte(program)
		if !raw {
			args, _ = json.Marshal(map[string]string{"attachment_id": "att-1", "jq_program": program})
		}
		// A shorter deadline than the tool's own keeps the fuzzer fast; it
		// ends the query the same way.
		ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
		defer cancel()
		start := time.Now()
		text, ok := family.JQ(ctx, data, args)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("jq_query %s took %s", clipped(string(args)), d)
		}
		if !utf8.ValidString(text) {
			t.Fatalf("jq_query %s: invalid UTF-8 %q", clipped(string(args)), clipped(text))
		}
		if !ok {
			if !strings.HasPrefix(text, "Error: ") || len(text) < len("Error: x") || len(text) > 4<<10 {
				t.Fatalf("jq_query %s: error text of %d bytes %q", clipped(string(args)), len(text), clipped(text))
			}
			return
		}
		if !json.Valid([]byte(text)) || len(text) > family.JQMaxOutput+family.JQMaxOutput/2 {
			t.Fatalf("jq_query %s over %q: %d bytes, not bounded JSON: %q", clipped(string(args)), clipped(string(data)), len(text), clipped(text))
		}
	})
}

func clipped(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
