package report_test

import (
	"bytes"
	"testing"

	"github.com/agentreplay/testbed/harness/report"
)

// FuzzReadJSON checks that ReadJSON never panics and that whatever it
// accepts, WriteJSON writes in a form that reads back to the same bytes.
func FuzzReadJSON(f *testing.F) {
	// Small seeds: the fuzzer minimizes every new input, which takes long
	// for a report the size of the golden one.
	f.Add([]byte(`{"schemaVersion": 1, "suites": [{"name": "s", "baseline": "a", "variants": [` +
		`{"name": "b", "summary": {"llm_calls_mean": 1.5, "latency_mean_ms": 900}, "thresholds": [{"source": "pass_rate >= 1"}]},` +
		`{"name": "a", "summary": {"llm_calls_mean": 2, "latency_mean_ms": 1000}, "scenarios": [{"id": "x", "verdict": "fail",` +
		`"route": "r", "expected_route": "q", "unplayed": 1, "error": "e\nf", "checks": [{"turn": 1, "name": "c", "detail": "d"}],` +
		`"metrics": {"roles": {"router": {"calls": 1}}}}],` +
		`"confusion": [{"expected": "q", "observed": "r", "count": 1}, {"expected": "q", "observed": "", "count": 2}],` +
		`"trimming": [{"tool": "t", "calls": 2, "raw_tokens": 10, "context_tokens": 3, "reduction": 0.7}, {"tool": "u", "calls": 1}]}]}]}`))
	f.Add([]byte(`{"schemaVersion": 1, "mode": "replay", "suites": []}`))
	f.Add([]byte(`{"schemaVersion": 99}`))
	f.Add([]byte(`{"schemaVersion": 1, "suites": [{"variants": [{"scenarios": [{"events": [{"kind": "tool", "tool": {"args": {"a": [1, 2]}}}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := report.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		var first, second bytes.Buffer
		if err := report.WriteJSON(&first, r); err != nil {
			t.Fatalf("write what was read: %v", err)
		}
		again, err := report.ReadJSON(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("read what was written: %v\n%s", err, first.Bytes())
		}
		if err := report.WriteJSON(&second, again); err != nil {
			t.Fatalf("write again: %v", err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("not stable:\n%s\n---\n%s", first.Bytes(), second.Bytes())
		}
		for _, write := range []func(*bytes.Buffer, *report.Report) error{
			func(b *bytes.Buffer, r *report.Report) error { return report.WriteText(b, r) },
			func(b *bytes.Buffer, r *report.Report) error { return report.WriteMarkdown(b, r) },
		} {
			var b bytes.Buffer
			if err := write(&b, again); err != nil {
				t.Fatalf("render: %v", err)
			}
		}
	})
}
