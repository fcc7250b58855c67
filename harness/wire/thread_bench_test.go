package wire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// responsesBody is a Responses request of a conversation of n turns, as
// an agent that sends it whole does.
func responsesBody(n int) []byte {
	input := `[`
	for i := range n {
		if i > 0 {
			input += ","
		}
		input += fmt.Sprintf(`{"role": "user", "content": "Question %d about the sea surface temperature near Keelung?"}, {"role": "assistant", "content": "Answer %d: 26.4 °C on 2025-11-06."}`, i, i)
	}
	return []byte(`{"model": "gpt-4.1-mini", "instructions": "You answer ocean questions.", "input": ` + input + `]}`)
}

// BenchmarkThreads is the stand-in's cost per Responses call of keeping
// its answer's conversation (Threads.Read) against keeping none
// (wire.Read), and the traffic scorer's of reading with Threads.Decode
// against wire.Decode, for a conversation of 10 turns sent whole, and of
// telling a background answer still unfinished (wire.Unfinished) from the
// stand-in's answer, whole and streamed.
func BenchmarkThreads(b *testing.B) {
	body := responsesBody(10)
	answer := llm.Message{Role: llm.RoleAssistant, Content: "26.4 °C"}
	answerBody := []byte(`{"id": "resp_1", "object": "response", "output": []}`)
	b.Run("standin/none", func(b *testing.B) {
		for b.Loop() {
			call, _ := wire.Read(wire.Responses, "/v1/responses", body, 1)
			call.Encoder.Completion("m", answer, wire.End{}, 1, 1)
		}
	})
	b.Run("standin/threads", func(b *testing.B) {
		var t wire.Threads
		for b.Loop() {
			call, _ := t.Read(wire.Responses, "/v1/responses", body, 1)
			call.Encoder.Completion("m", answer, wire.End{}, 1, 1)
		}
	})
	b.Run("scorer/decode", func(b *testing.B) {
		for b.Loop() {
			wire.Decode(wire.Responses, "/v1/responses", body)
		}
	})
	b.Run("scorer/threads", func(b *testing.B) {
		var t wire.Threads
		for b.Loop() {
			_, kept, _ := t.Decode(wire.Responses, "/v1/responses", body)
			kept(answer, answerBody)
		}
	})
	call, _ := wire.Read(wire.Responses, "/v1/responses", body, 1)
	whole, _ := call.Encoder.Completion("m", answer, wire.End{}, 1, 1)
	wholeBody, _ := json.Marshal(whole)
	b.Run("scorer/unfinished", func(b *testing.B) {
		for b.Loop() {
			wire.Unfinished(wholeBody)
		}
	})
	streamed, _ := wire.Read(wire.Responses, "/v1/responses", bytes.Replace(body, []byte(`{"model"`), []byte(`{"stream": true, "model"`), 1), 1)
	events, _ := streamed.Encoder.Events("m", answer, wire.End{}, 1, 1)
	var stream bytes.Buffer
	for _, e := range events {
		wire.WriteEvent(&stream, e)
	}
	b.Run("scorer/unfinished-stream", func(b *testing.B) {
		for b.Loop() {
			wire.Unfinished(stream.Bytes())
		}
	})
}
