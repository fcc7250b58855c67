package standin

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/stream"
)

// Streaming, in every wire format the stand-in speaks. An answer is cut
// into pieces: its text in pieces of about PieceBytes (broken after a
// space where one comes soon), each tool call as its name and then its
// arguments in pieces of PieceBytes. Each dialect turns the pieces into its
// own events (stream_openai.go, stream_responses.go, stream_gemini.go,
// stream_anthropic.go),
// framed as server-sent events.
//
// Timing follows Latency: the events that open a stream (a role delta,
// message_start) and the first piece arrive at Latency.FirstToken; a piece
// arrives when the output tokens before it are generated, PerOutputToken
// each (the answer's output tokens shared among the pieces by their bytes);
// the events that close it (finish reason, usage, [DONE], message_stop)
// arrive at Latency.Of, the duration the unstreamed call has. The offsets
// go in stream.OffsetsHeader, one per event, and the last one in
// cassette.LatencyHeader. Samples (SampleHeader) scale every offset by the
// same factor they scale the latency of an unstreamed call by. Nothing
// sleeps: the stand-in writes the whole stream at once.
//
// Stream faults act on a streamed call; a call that does not stream is
// answered normally (FaultSlowFirstToken excepted: it slows any call).

// PieceBytes is about how many bytes of text or tool arguments one stream
// event carries.
const PieceBytes = 24

// SlowFirstToken is how much later FaultSlowFirstToken makes the first
// token, and with it every event after it, arrive.
const SlowFirstToken = 2 * time.Second

// Stream faults the stand-in can inject.
const (
	// FaultStreamCut ends the stream after half its content events: no
	// finish reason, usage, [DONE] or message_stop.
	FaultStreamCut = "stream_cut"
	// FaultStreamMalformed sends the middle content event with its JSON
	// cut in half, and the rest of the stream as it was.
	FaultStreamMalformed = "stream_malformed"
	// FaultStreamNoDone leaves out the event that closes the stream:
	// OpenAI's data: [DONE], Anthropic's message_stop, the Responses API's
	// response.completed. A Gemini stream has
	// none, so it is answered normally.
	FaultStreamNoDone = "stream_no_done"
	// FaultSlowFirstToken delays the first token by SlowFirstToken.
	FaultSlowFirstToken = "slow_first_token"
)

// streamFault reports whether fault is one that shapes a streamed answer.
func streamFault(fault string) bool {
	return fault == FaultStreamCut || fault == FaultStreamMalformed || fault == FaultStreamNoDone || fault == FaultSlowFirstToken
}

// piece is a part of an answer as it streams.
type piece struct {
	text   string // text or tool-call arguments; "" for a call's start
	call   int    // the tool call it belongs to, -1 for text
	start  bool   // the start of tool call call: its id and name
	before int    // output tokens generated before it
}

// pieces cuts msg into pieces, sharing its out output tokens among them
// by their bytes (a call's start weighs its name).
func pieces(msg llm.Message, out int) []piece {
	var ps []piece
	for _, t := range cut(msg.Content, true) {
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

// Kinds of stream event, by where they stand in a stream.
const (
	eventHead    = iota // opens the stream, before any token
	eventContent        // carries a piece
	eventTail           // carries the finish reason or usage
	eventDone           // closes the stream ([DONE], message_stop)
)

// sseEvent is one event of a stream as a dialect writes it.
type sseEvent struct {
	kind   int
	name   string // the event: field, if any
	data   any    // marshalled to JSON, or a string sent as it is
	before int    // output tokens before it (eventContent)
}

// writeStream writes events as a 200 event stream of a call with in input
// and out output tokens, shaped by fault and timed by the latency model,
// scaled by smp.
func (s *Server) writeStream(w http.ResponseWriter, events []sseEvent, in, out int, smp *sampler, fault string) {
	events, applied := shape(events, fault)
	lat := s.opts.Latency
	first, f := lat.FirstToken(in), smp.factor()
	offsets := make([]time.Duration, len(events))
	for i, e := range events {
		d := first
		switch e.kind {
		case eventContent:
			d += time.Duration(e.before) * lat.PerOutputToken
		case eventTail, eventDone:
			d = lat.Of(in, out)
		}
		offsets[i] = scale(d, f)
		if fault == FaultSlowFirstToken {
			offsets[i] += SlowFirstToken
		}
	}
	h := w.Header()
	if applied {
		h.Set(cassette.FaultHeader, fault)
	}
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	stream.SetOffsets(h, offsets)
	if len(offsets) > 0 {
		h.Set(cassette.LatencyHeader, offsets[len(offsets)-1].String())
	}
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		writeEvent(w, e)
	}
}

// shape applies a stream fault to events and reports whether it did.
func shape(events []sseEvent, fault string) ([]sseEvent, bool) {
	var content []int
	for i, e := range events {
		if e.kind == eventContent {
			content = append(content, i)
		}
	}
	switch fault {
	case FaultStreamCut:
		keep := len(events)
		if len(content) > 0 {
			keep = content[max(1, len(content)/2)-1] + 1
		} else {
			for keep > 0 && events[keep-1].kind >= eventTail {
				keep--
			}
		}
		return events[:keep], true
	case FaultStreamMalformed:
		if len(content) == 0 {
			return events, false
		}
		out := append([]sseEvent(nil), events...)
		i := content[len(content)/2]
		b, _ := json.Marshal(out[i].data)
		out[i].data = string(b[:len(b)/2])
		return out, true
	case FaultStreamNoDone:
		out := events[:0:0]
		for _, e := range events {
			if e.kind != eventDone {
				out = append(out, e)
			}
		}
		return out, len(out) < len(events)
	case FaultSlowFirstToken:
		return events, true
	}
	return events, false
}

// writeEvent frames e as a server-sent event.
func writeEvent(w io.Writer, e sseEvent) {
	if e.name != "" {
		io.WriteString(w, "event: "+e.name+"\n")
	}
	data, ok := e.data.(string)
	if !ok {
		b, _ := marshalPlain(e.data)
		data = string(b)
	}
	io.WriteString(w, "data: "+data+"\n\n")
}
