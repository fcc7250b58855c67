package otlp_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/agentreplay/testbed/harness/otlp"
	"github.com/agentreplay/testbed/harness/trace"
)

// BenchmarkWriteJSON exports a report of 200 scenario runs, each the
// fixture's six events (two model calls, a tool, two exchanges, a note)
// and its checks, as OTLP JSON lines, with message content and without,
// and reports the cost per model call and per span.
func BenchmarkWriteJSON(b *testing.B) {
	r := fixture()
	v := &r.Suites[0].Variants[0]
	base := v.Scenarios
	v.Scenarios = nil
	for i := range 100 {
		for _, sc := range base {
			sc.ID = fmt.Sprintf("%s-%d", sc.ID, i)
			sc.Events = base[0].Events
			v.Scenarios = append(v.Scenarios, sc)
		}
	}
	calls, spans := 0, 0
	for _, sc := range v.Scenarios {
		spans++ // invoke_agent
		for _, e := range sc.Events {
			if e.Kind == trace.KindLLM {
				calls++
			}
			if e.Kind != trace.KindNote {
				spans++
			}
		}
	}
	for _, content := range []bool{false, true} {
		b.Run(fmt.Sprintf("content=%v", content), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := otlp.WriteJSON(context.Background(), io.Discard, r, otlp.Options{Start: opts.Start, Content: content}); err != nil {
					b.Fatal(err)
				}
			}
			per := func(n int) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(n) }
			b.ReportMetric(per(calls), "ns/model-call")
			b.ReportMetric(per(spans), "ns/span")
		})
	}
}
