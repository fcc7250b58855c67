package wire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/tokens"
	"github.com/agentreplay/testbed/harness/wire"
)

// anthropicToolBody is a Messages request of n tool uses, each answered
// with a result of size bytes, asking for the context management given
// ("" for none).
func anthropicToolBody(n, size int, management string) []byte {
	var msgs []string
	msgs = append(msgs, `{"role": "user", "content": "Track the sea surface near Keelung."}`)
	for i := range n {
		msgs = append(msgs,
			fmt.Sprintf(`{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_%02d", "name": "get_sst", "input": {"lon": 121.5, "lat": 25, "day": %d}}]}`, i, i),
			fmt.Sprintf(`{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_%02d", "content": "reading %d: %s"}]}`, i, i, strings.Repeat("26.4 °C steady; ", size/16)))
	}
	msgs = append(msgs, `{"role": "assistant", "content": "Steady so far."}`, `{"role": "user", "content": "And the trend?"}`)
	body := `{"model": "claude-sonnet-4-6", "max_tokens": 1024, "system": "You answer ocean questions.",
		"tools": [{"name": "get_sst", "description": "Sea surface temperature at a point.", "input_schema": {"type": "object"}}],
		"messages": [` + strings.Join(msgs, ",") + `]`
	if management != "" {
		body += `, "context_management": ` + management
	}
	return []byte(body + "}")
}

// BenchmarkAnthropicContext is the stand-in's cost per Anthropic call of
// managing its context as the request asks (Encoder.Context, counting
// tokens with the stand-in's counter) against a request asking for none:
// ten tool uses of 1 KB results with tool results cleared past a trigger,
// and twenty of 12 KB results compacted past 50,000 tokens.
func BenchmarkAnthropicContext(b *testing.B) {
	counter, err := tokens.New("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	answer := llm.Message{Role: llm.RoleAssistant, Content: "26.4 °C, steady."}
	run := func(b *testing.B, body []byte) {
		b.Helper()
		for b.Loop() {
			call, err := wire.Read(wire.Anthropic, "/v1/messages", body, 1)
			if err != nil {
				b.Fatal(err)
			}
			count := func(msgs []llm.Message) int {
				return counter.Request(llm.Request{Messages: msgs, Tools: call.Request.Tools}).Total()
			}
			msgs := call.Request.Messages
			if call.Encoder.Context != nil {
				msgs = call.Encoder.Context(msgs, count)
			}
			if _, err := call.Encoder.Completion("m", answer, wire.End{}, count(msgs), 8); err != nil {
				b.Fatal(err)
			}
		}
	}
	clear := `{"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000}}]}`
	compact := `{"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50000}}]}`
	b.Run("standin/none", func(b *testing.B) { run(b, anthropicToolBody(10, 1024, "")) })
	b.Run("standin/clear-tool-uses", func(b *testing.B) { run(b, anthropicToolBody(10, 1024, clear)) })
	b.Run("standin/long-none", func(b *testing.B) { run(b, anthropicToolBody(20, 12_288, "")) })
	b.Run("standin/long-compaction", func(b *testing.B) { run(b, anthropicToolBody(20, 12_288, compact)) })
}
