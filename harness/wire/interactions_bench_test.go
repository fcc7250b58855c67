package wire_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// BenchmarkInteractions is what Gemini's Interactions API costs per call
// against generateContent, for a conversation of 10 turns sent whole
// (steps against contents): the stand-in's reading of the request and
// writing of its answer (whole, and streamed), and the traffic scorer's
// reading of the request and of a streamed answer (ReadInteractions).
func BenchmarkInteractions(b *testing.B) {
	var steps, contents []string
	for i := range 10 {
		q := fmt.Sprintf("Question %d about the sea surface temperature near Keelung?", i)
		a := fmt.Sprintf("Answer %d: 26.4 °C on 2025-11-06.", i)
		steps = append(steps, fmt.Sprintf(`{"type": "user_input", "content": [{"type": "text", "text": %q}]}, {"type": "model_output", "content": [{"type": "text", "text": %q}]}`, q, a))
		contents = append(contents, fmt.Sprintf(`{"role": "user", "parts": [{"text": %q}]}, {"role": "model", "parts": [{"text": %q}]}`, q, a))
	}
	interactions := []byte(`{"model": "gemini-3.5-flash", "store": false, "system_instruction": "You answer ocean questions.", "input": [` + strings.Join(steps, ", ") + `]}`)
	streamed := bytes.Replace(interactions, []byte(`{`), []byte(`{"stream": true, `), 1)
	gemini := []byte(`{"systemInstruction": {"parts": [{"text": "You answer ocean questions."}]}, "contents": [` + strings.Join(contents, ", ") + `]}`)
	answer := llm.Message{Role: llm.RoleAssistant, Content: "The sea surface near Keelung was 26.4 °C on 2025-11-06, about 0.3 °C above the month's mean."}
	call, err := wire.Read(wire.Interactions, "/v1beta/interactions", streamed, 1)
	if err != nil {
		b.Fatal(err)
	}
	events, err := call.Encoder.Events("gemini-3.5-flash", answer, wire.End{}, 180, 24)
	if err != nil {
		b.Fatal(err)
	}
	var sse bytes.Buffer
	for _, e := range events {
		wire.WriteEvent(&sse, e)
	}
	benchDialects(b, "gemini-3.5-flash", answer,
		dialectCase{"generatecontent", wire.Gemini, "/v1beta/models/gemini-3.5-flash:generateContent", gemini},
		dialectCase{"interactions", wire.Interactions, "/v1beta/interactions", interactions})
	b.Run("standin/interactions-streamed", func(b *testing.B) {
		for b.Loop() {
			call, _ := wire.Read(wire.Interactions, "/v1beta/interactions", streamed, 1)
			call.Encoder.Events("gemini-3.5-flash", answer, wire.End{}, 180, 24)
		}
	})
	b.Run("scorer/interactions-stream", func(b *testing.B) {
		if _, err := wire.ReadInteractions(sse.Bytes()); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			wire.ReadInteractions(sse.Bytes())
		}
	})
}
