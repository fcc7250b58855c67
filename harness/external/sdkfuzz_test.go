package external_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/agentreplay/testbed/harness/wire"
)

// FuzzSDKReading builds an answer of each API from fuzzed fields, whole and
// streamed (sdkshapes_test.go; the Interactions API whole), and checks that testbed reads each as the
// provider's official Go SDK reads the same bytes (sdkread_test.go): text,
// tool calls, finish reason, model and token counts.
func FuzzSDKReading(f *testing.F) {
	f.Add("Tram 6 leaves at 07:10.", "Check line 6 first.", "tram_times", "stop", "Ilica", "call_7", "stop", "default", uint16(1200), uint16(300), uint16(64), uint16(512), uint16(0), uint16(0), uint16(0))
	f.Add("Zone 1 costs 1.20 EUR, zone 2 costs 1.60 EUR.", "", "fare", "zone", "2", "toolu_01", "max_tokens", "priority", uint16(90), uint16(41), uint16(0), uint16(0), uint16(2048), uint16(16), uint16(0x1f))
	f.Add("Pas de tram après minuit — prenez le bus N1. 🚋", "Nuit: pas de tram.", "night_bus", "line", "N1", "fc-3", "MAX_TOKENS", "flex", uint16(65535), uint16(7), uint16(3), uint16(4000), uint16(12), uint16(300), uint16(0x2a))
	f.Fuzz(func(t *testing.T, text, thought, tool, key, value, id, finish, tier string, in, out, reasoning, cached, written, audio, shape uint16) {
		a := newAnswer(text, thought, tool, key, value, id, finish, tier, [6]int{int(in), int(out), int(reasoning), int(cached), int(written), int(audio)}, shape)
		for _, c := range a.cases() {
			want, err := c.sdk([]byte(c.body))
			if err != nil {
				t.Fatalf("%s: the SDK does not read the built answer: %v\n%s", c.name, err, c.body)
			}
			got, err := testbedRead(c.dialect, c.header, []byte(c.body))
			if err != nil {
				t.Fatalf("%s: testbed does not read what the SDK reads: %v\n%s", c.name, err, c.body)
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s: testbed reads it otherwise than the SDK\n   sdk: %+v\ntestbed: %+v\n%s", c.name, want, got, c.body)
			}
		}
	})
}

// answer is what one model answer says, built into each API's shapes.
type answer struct {
	text, thought, tool, args, id, finish, tier, model string
	speed                                              string // Anthropic's usage.speed
	argsObject                                         map[string]any
	in, out, reasoning, cached, written, audio         int
	calls, twoChoices, pieces, incomplete, noArgs      bool
}

// newAnswer is the answer the fuzzed fields make: shape's bits choose a
// tool call (1), a second choice or candidate (2), the text streamed in
// pieces (4), a Responses answer cut short (8), a Gemini call with no
// args (16) and an Anthropic answer in fast mode (32).
func newAnswer(text, thought, tool, key, value, id, finish, tier string, counts [6]int, shape uint16) answer {
	valid := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	a := answer{text: valid(text), thought: valid(thought), tool: valid(tool), id: valid(id), finish: valid(finish), tier: valid(tier),
		model: "model-" + valid(tool), argsObject: map[string]any{valid(key): valid(value)},
		in: counts[0], out: counts[1], reasoning: counts[2], cached: counts[3], written: counts[4], audio: counts[5],
		calls: shape&1 != 0, twoChoices: shape&2 != 0, pieces: shape&4 != 0, incomplete: shape&8 != 0, noArgs: shape&16 != 0}
	if a.speed = "standard"; shape&32 != 0 {
		a.speed = "fast"
	}
	b, _ := json.Marshal(a.argsObject)
	a.args = string(b)
	if a.finish == "" {
		a.finish = "stop" // every stream ends on a reason
	}
	return a
}

// pieces is the text as a stream sends it: whole, or in up to three pieces
// cut between characters.
func (a answer) textPieces() []string {
	if !a.pieces {
		return []string{a.text}
	}
	r := []rune(a.text)
	third := len(r) / 3
	return []string{string(r[:third]), string(r[third : 2*third]), string(r[2*third:])}
}

// built is one answer in one API's shape, and the SDK's reader of it.
type built struct {
	name    string
	dialect wire.Dialect
	header  http.Header
	sdk     sdkReader
	body    string
}

// cases is the answer in each API's shapes, whole and streamed.
func (a answer) cases() []built {
	return []built{
		{"chat", wire.Chat, jsonHeader, sdkChat, a.chat()},
		{"chat stream", wire.Chat, sseHeader, sdkChatStream, a.chatStream()},
		{"responses", wire.Responses, jsonHeader, sdkResponses, mustJSON(a.responses())},
		{"responses stream", wire.Responses, sseHeader, sdkResponsesStream, a.responsesStream()},
		{"anthropic", wire.Anthropic, jsonHeader, sdkAnthropic, mustJSON(a.anthropic())},
		{"anthropic stream", wire.Anthropic, sseHeader, sdkAnthropicStream, a.anthropicStream()},
		{"gemini", wire.Gemini, jsonHeader, sdkGemini, mustJSON(a.gemini())},
		{"gemini stream", wire.Gemini, sseHeader, sdkGeminiStream, a.geminiStream()},
		{"interactions", wire.Interactions, jsonHeader, sdkInteraction, mustJSON(a.interaction())},
	}
}

// mustJSON is v as JSON; the shapes are maps and slices of JSON values.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// eventStream is an event stream of the JSON values given, named by their type
// when named, ended by end when it is not "".
func eventStream(named bool, end string, values ...any) string {
	data := make([]string, len(values))
	for i, v := range values {
		data[i] = mustJSON(v)
	}
	return sse(named, end, data...)
}
