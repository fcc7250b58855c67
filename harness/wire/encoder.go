package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/agentreplay/testbed/agents/llm"
)

// Encoder answers one request in its dialect: made by Read, for the
// request's body and sample.
type Encoder struct {
	// Header holds the headers every answer carries (Chat Completions'
	// x-request-id); nil when there are none.
	Header http.Header
	// Error is the dialect's error body for status, carrying msg.
	Error func(status int, msg string) any
	// Malformed is a 200 body cut off in the middle of its JSON.
	Malformed string
	// Completion is the response body carrying msg, an answer of in input
	// and out output tokens that ended as end says.
	Completion func(model string, msg llm.Message, end End, in, out int) (any, error)
	// Events, set when the request asks for a stream, are the stream
	// events carrying msg (see Event).
	Events func(model string, msg llm.Message, end End, in, out int) ([]Event, error)
	// Array, set when a Gemini stream is asked without alt=sse, sends the
	// events' data as one JSON array (WriteArray), as Gemini does then,
	// not as server-sent events.
	Array bool
	// Lines, set when an Ollama request streams, sends the events' data
	// as newline-delimited JSON (WriteLines), not as server-sent events.
	Lines bool
	// Context, set when the request asks the server to manage its
	// context (the Responses API's and Anthropic's context_management),
	// is msgs, the conversation, as the model reads it once managed:
	// compacted past a threshold, its old tool results cleared. count
	// counts a conversation's input tokens as the request's are counted.
	// The answer then says what was done (a compaction first).
	Context Manage
}

// Manage is a conversation as the model reads it once the server manages
// its context as the request asks (Encoder.Context): msgs as sent, count
// counting a conversation's input tokens as the request's are counted.
type Manage func(msgs []llm.Message, count func([]llm.Message) int) []llm.Message

// End is how an answer ended, beyond the calls it makes: cut at the token
// limit (Truncated), or at one of the request's stop sequences (Stop, the
// one it met; Request.StopAt).
type End struct {
	Truncated bool
	Stop      string
}

// finishOf names why an answer ended, in a dialect's words for a whole
// answer (or one that met a stop sequence), one cut at the token limit and
// one that calls tools.
func finishOf(msg llm.Message, end End, stop, length, toolCalls string) string {
	switch {
	case end.Truncated:
		return length
	case len(msg.ToolCalls) > 0:
		return toolCalls
	}
	return stop
}

// argsObject is tc's arguments as the JSON object Gemini's args and
// Anthropic's tool_use input are ({} for none).
func argsObject(tc llm.ToolCall) (map[string]any, error) {
	var args map[string]any
	if err := json.Unmarshal(tc.Arguments, &args); err != nil {
		return nil, fmt.Errorf("tool call %s: arguments are not a JSON object: %w", tc.Name, err)
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

// statusName names status as names says, else other.
func statusName(status int, names map[int]string, other string) string {
	if n, ok := names[status]; ok {
		return n
	}
	return other
}

// requestHash is a hash of a request's body and sample, from which a
// dialect derives the ids of its answer: reproducible recordings, and ids
// of their own for distinct requests.
func requestHash(body []byte, sample int) [sha256.Size]byte {
	return sha256.Sum256(append(strconv.AppendInt(nil, int64(sample), 10), body...))
}

// MarshalPlain encodes v as JSON without escaping <, > and &, as every
// body and event the package encodes is.
func MarshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
