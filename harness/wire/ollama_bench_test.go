package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// conversation is the messages of n turns, as Chat Completions and
// Ollama's /api/chat both carry them.
func conversation(n int) string {
	var turns []string
	for i := range n {
		turns = append(turns, fmt.Sprintf(`{"role": "user", "content": "Question %d about the sea surface temperature near Keelung?"}, {"role": "assistant", "content": "Answer %d: 26.4 °C on 2025-11-06."}`, i, i))
	}
	return `[{"role": "system", "content": "You answer ocean questions."}, ` + strings.Join(turns, ", ") + `]`
}

// BenchmarkOllama is what Ollama's native chat costs per call against
// Chat Completions, for a conversation of 10 turns sent whole: the
// stand-in's reading of the request and writing of its answer (whole,
// and streamed), and the traffic scorer's reading of the request and of
// a streamed answer (ReadOllama).
func BenchmarkOllama(b *testing.B) {
	messages := conversation(10)
	chat := []byte(`{"model": "gemma3:4b", "messages": ` + messages + `}`)
	ollama := []byte(`{"model": "gemma3:4b", "stream": false, "messages": ` + messages + `}`)
	streamed := []byte(`{"model": "gemma3:4b", "messages": ` + messages + `}`)
	answer := llm.Message{Role: llm.RoleAssistant, Content: "The sea surface near Keelung was 26.4 °C on 2025-11-06, about 0.3 °C above the month's mean."}
	var lines strings.Builder
	for _, w := range strings.Fields(answer.Content) {
		fmt.Fprintf(&lines, `{"model": "gemma3:4b", "created_at": "2026-03-02T08:00:00Z", "message": {"role": "assistant", "content": %q}, "done": false}`+"\n", w+" ")
	}
	lines.WriteString(`{"model": "gemma3:4b", "created_at": "2026-03-02T08:00:00Z", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop", "prompt_eval_count": 180, "eval_count": 24}` + "\n")
	stream := []byte(lines.String())
	benchDialects(b, "gemma3:4b", answer, dialectCase{"chat", wire.Chat, "/v1/chat/completions", chat}, dialectCase{"ollama", wire.Ollama, "/api/chat", ollama})
	b.Run("standin/ollama-streamed", func(b *testing.B) {
		for b.Loop() {
			call, _ := wire.Read(wire.Ollama, "/api/chat", streamed, 1)
			call.Encoder.Events("gemma3:4b", answer, wire.End{}, 180, 24)
		}
	})
	b.Run("scorer/ollama-stream", func(b *testing.B) {
		if _, err := wire.ReadOllama(stream); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			wire.ReadOllama(stream)
		}
	})
}

// dialectCase is a request of one dialect, for the dialects' benchmarks.
type dialectCase struct {
	name string
	d    wire.Dialect
	path string
	body []byte
}

// benchDialects runs, for each case, the stand-in's reading of its request
// and writing of answer (of model), and the traffic scorer's reading of
// its request.
func benchDialects(b *testing.B, model string, answer llm.Message, cases ...dialectCase) {
	for _, bc := range cases {
		b.Run("standin/"+bc.name, func(b *testing.B) {
			for b.Loop() {
				call, _ := wire.Read(bc.d, bc.path, bc.body, 1)
				call.Encoder.Completion(model, answer, wire.End{}, 180, 24)
			}
		})
		b.Run("scorer/"+bc.name, func(b *testing.B) {
			for b.Loop() {
				wire.Decode(bc.d, bc.path, bc.body)
			}
		})
	}
}
