package standin_test

import (
	"fmt"
	"testing"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/standin"
	"github.com/agentreplay/testbed/harness/standin/generic"
)

// BenchmarkGenericDecide is the generic policy's cost per model call: one
// decision on a request of eight tools none of which takes a described
// option, and on a router's request (a transfer tool whose targets the
// system prompt describes, as ADK writes them, beside four more tools).
//
//	go test ./harness/standin -run '^$' -bench GenericDecide -benchmem
func BenchmarkGenericDecide(b *testing.B) {
	var plain []llm.Tool
	for i := range 8 {
		plain = append(plain, tool(fmt.Sprintf("lookup_%d", i), "Finds records of one kind by their owner and date.",
			`{"type": "object", "properties": {"owner": {"type": "string"}, "date": {"type": "string", "format": "date"},
			"kind": {"type": "string", "enum": ["open", "closed"]}}, "required": ["owner", "date", "kind"]}`))
	}
	cases := []struct {
		name string
		r    standin.Request
	}{
		{"tools", ask("Show the closed records of Ana Lopez from 2026-11-02", plain...)},
		{"router", desk(deskPrompt, "How much do new brake pads cost?", append([]llm.Tool{transferTool(true)}, plain[:4]...)...)},
	}
	p := generic.New()
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := p.Decide(c.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
