package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
)

// Streaming, in every dialect. An answer is cut into pieces: its text in
// pieces of about PieceBytes (broken after a space where one comes soon),
// each tool call as its name and then its arguments in pieces of
// PieceBytes. Each dialect turns the pieces into its own events
// (stream_openai.go, stream_responses.go, stream_gemini.go,
// stream_anthropic.go), framed as server-sent events (WriteEvent). An
// event says where it stands in the stream (its Kind) and how many output
// tokens come before it, so that the caller can time it.

// PieceBytes is about how many bytes of text or tool arguments one stream
// event carries.
const PieceBytes = 24

// Kinds of stream event, by where they stand in a stream.
const (
	EventHead    = iota // opens the stream, before any token
	EventContent        // carries a piece
	EventTail           // carries the finish reason or usage
	EventDone           // closes the stream ([DONE], message_stop)
)

// Event is one event of a stream as a dialect writes it.
type Event struct {
	Kind int
	Name string // the event: field, if any
	Data any    // marshalled to JSON, or a string sent as it is
	// Before is the output tokens before it (EventContent); on the
	// closing events (EventTail, EventDone) of an answer that thought, all
	// its tokens, the thought's (counted apart from the answer's) included.
	Before int
}

// piece is a part of an answer as it streams.
type piece struct {
	text   string // text or tool-call arguments; "" for a call's start
	call   int    // the tool call it belongs to, -1 for text
	start  bool   // the start of tool call call: its id and name
	before int    // output tokens generated before it
}

// pieces cuts msg into pieces, its text as text says (cut(msg.Content,
// true) unless each token is its own piece), sharing its out output tokens
// among them by their bytes (a call's start weighs its name).
func pieces(msg llm.Message, out int, text []string) []piece {
	var ps []piece
	for _, t := range text {
		ps = append(ps, piece{text: t, call: -1})
	}
	for i, tc := range msg.ToolCalls {
		ps = append(ps, piece{call: i, start: true})
		for _, t := range cut(string(tc.Arguments), false) {
			ps = append(ps, piece{text: t, call: i})
		}
	}
	weight := func(p piece) int {
		if p.start {
			return len(msg.ToolCalls[p.call].Name)
		}
		return len(p.text)
	}
	total := 0
	for _, p := range ps {
		total += weight(p)
	}
	seen := 0
	for i := range ps {
		if total > 0 {
			ps[i].before = out * seen / total
		}
		seen += weight(ps[i])
	}
	return ps
}

// cut splits s into pieces of about PieceBytes, never inside a rune;
// words breaks text after a space when one comes within PieceBytes more.
func cut(s string, words bool) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), PieceBytes)
		if words && n < len(s) {
			for j := n; j < min(len(s), 2*PieceBytes); j++ {
				if s[j] == ' ' || s[j] == '\n' {
					n = j + 1
					break
				}
			}
		}
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// WriteEvent frames e as a server-sent event.
func WriteEvent(w io.Writer, e Event) {
	if e.Name != "" {
		io.WriteString(w, "event: "+e.Name+"\n")
	}
	data, ok := e.Data.(string)
	if !ok {
		b, _ := MarshalPlain(e.Data)
		data = string(b)
	}
	io.WriteString(w, "data: "+data+"\n\n")
}

// ArrayEvents reads a stream sent as one JSON array (WriteArray) as the
// server-sent events it stands for, each element an event's data; false
// when b is not a JSON array of objects.
func ArrayEvents(b []byte) ([]byte, bool) {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '[' {
		return nil, false
	}
	var chunks []json.RawMessage
	if json.Unmarshal(b, &chunks) != nil {
		return nil, false
	}
	var out bytes.Buffer
	for _, c := range chunks {
		if t := bytes.TrimSpace(c); len(t) == 0 || t[0] != '{' {
			return nil, false
		}
		var compact bytes.Buffer
		if json.Compact(&compact, c) != nil {
			return nil, false
		}
		out.WriteString("data: ")
		out.Write(compact.Bytes())
		out.WriteString("\n\n")
	}
	return out.Bytes(), true
}

// WriteArray writes the data of events as one JSON array, an element a
// line, as Gemini streams without alt=sse (its streamGenerateContent
// answered as application/json).
func WriteArray(w io.Writer, events []Event) {
	io.WriteString(w, "[")
	for i, e := range events {
		if i > 0 {
			io.WriteString(w, ",\r\n")
		}
		data, ok := e.Data.(string)
		if !ok {
			b, _ := MarshalPlain(e.Data)
			data = string(b)
		}
		io.WriteString(w, data)
	}
	io.WriteString(w, "]")
}
