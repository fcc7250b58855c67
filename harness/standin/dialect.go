package standin

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
)

// dialect is what differs between the wire formats the stand-in speaks.
type dialect struct {
	writeError func(w http.ResponseWriter, status int, msg string, lat time.Duration)
	// malformed is a 200 body cut off in the middle of its JSON.
	malformed string
	// completion is the response body carrying msg; truncated when the
	// answer was cut at the token limit.
	completion func(model string, msg llm.Message, truncated bool, in, out int) (any, error)
	// events, set when the request asks for a stream, are the stream
	// events carrying msg (see stream.go).
	events func(model string, msg llm.Message, truncated bool, in, out int) ([]sseEvent, error)
}

// finishOf names why an answer ended, in a dialect's words for a whole
// answer, one cut at the token limit and one that calls tools.
func finishOf(msg llm.Message, truncated bool, stop, length, toolCalls string) string {
	switch {
	case truncated:
		return length
	case len(msg.ToolCalls) > 0:
		return toolCalls
	}
	return stop
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// writeErrorBody answers status with a dialect's error body, carrying the
// modelled latency lat.
func writeErrorBody(w http.ResponseWriter, status int, lat time.Duration, body any) {
	w.Header().Set(cassette.LatencyHeader, lat.String())
	writeJSON(w, status, body)
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
