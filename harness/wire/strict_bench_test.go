package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/wire"
)

// BenchmarkStrictSchema is what reading a Chat Completions request with a
// strict function costs, its schema checked against strict mode's subset
// and limits: 20 properties over 3 levels (a root of 8 fields, 2 nested
// objects of 4, a list of objects of 4), with enums, nullable fields and
// a definition.
func BenchmarkStrictSchema(b *testing.B) {
	fields := func(prefix string, n int) (string, string) {
		props, names := make([]string, n), make([]string, n)
		for i := range n {
			name := fmt.Sprintf("%s_%d", prefix, i)
			typ := `{"type": ["string", "null"], "description": "A field of the report."}`
			if i%2 == 1 {
				typ = `{"type": "string", "enum": ["low", "medium", "high", "critical"]}`
			}
			props[i], names[i] = fmt.Sprintf("%q: %s", name, typ), fmt.Sprintf("%q", name)
		}
		return strings.Join(props, ", "), strings.Join(names, ", ")
	}
	object := func(prefix string, n int) string {
		p, r := fields(prefix, n)
		return `{"type": "object", "properties": {` + p + `}, "required": [` + r + `], "additionalProperties": false}`
	}
	p, r := fields("root", 5)
	schema := `{"type": "object", "properties": {` + p + `, "site": ` + object("site", 4) + `, "reading": {"$ref": "#/$defs/reading"},
		"samples": {"type": "array", "items": ` + object("sample", 4) + `}},
		"required": [` + r + `, "site", "reading", "samples"], "additionalProperties": false, "$defs": {"reading": ` + object("reading", 4) + `}}`
	body := []byte(`{"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "File the report for Keelung."}],
		"tools": [{"type": "function", "function": {"name": "file_report", "strict": true, "parameters": ` + schema + `}}]}`)
	if _, err := wire.Read(wire.Chat, "/v1/chat/completions", body, 1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		wire.Read(wire.Chat, "/v1/chat/completions", body, 1)
	}
}
