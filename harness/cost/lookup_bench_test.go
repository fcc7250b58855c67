package cost_test

import (
	"testing"

	"github.com/agentreplay/testbed/harness/cost"
)

// BenchmarkLookup finds the shipped table's row for each name a call's
// traffic may give: as the row is keyed, dated, prefixed, and one that
// is unpriced (every other name is tried before it gives up).
func BenchmarkLookup(b *testing.B) {
	t := cost.Default()
	for _, c := range []struct{ provider, model string }{
		{"openai", "gpt-4.1-mini"},
		{"openai", "gpt-4.1-mini-2025-04-14"},
		{"gemini", "models/gemini-2.5-flash"},
		{"anthropic", "claude-unknown-9"},
	} {
		b.Run(c.model, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t.Lookup(c.provider, c.model)
			}
		})
	}
}
