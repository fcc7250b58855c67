package standin

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/agentreplay/testbed/harness/cassette"
	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/wire"
)

// Streaming, in every wire format the stand-in speaks: package wire cuts
// an answer into events in the request's dialect (wire.Event), and the
// stand-in times them and shapes them by stream faults.
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

// writeStream writes events as a 200 event stream of a call with in input
// and out output tokens, framed as d says (server-sent events, a Gemini
// array, Ollama's lines), shaped by fault and timed by the latency model,
// scaled by smp.
func (s *Server) writeStream(w http.ResponseWriter, events []wire.Event, d wire.Encoder, in, out int, smp *sampler, fault string) {
	events, applied := shape(events, fault)
	lat := s.opts.Latency
	first, f := lat.FirstToken(in), smp.factor()
	offsets := make([]time.Duration, len(events))
	for i, e := range events {
		d := first
		switch e.Kind {
		case wire.EventContent:
			d += time.Duration(e.Before) * lat.PerOutputToken
		case wire.EventTail, wire.EventDone:
			d = max(lat.Of(in, out), d+time.Duration(e.Before)*lat.PerOutputToken)
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
	if d.Array || d.Lines {
		// No server-sent events: a cassette keeps the body whole; Ollama's
		// lines keep their offsets, a Gemini array none.
		write, mediaType := wire.WriteArray, "application/json"
		if d.Lines {
			write, mediaType = wire.WriteLines, wire.OllamaStreamType
			stream.SetOffsets(h, offsets)
		}
		h.Set("Content-Type", mediaType)
		if len(offsets) > 0 {
			h.Set(cassette.LatencyHeader, offsets[len(offsets)-1].String())
		}
		w.WriteHeader(http.StatusOK)
		write(w, events)
		return
	}
	writeEvents(w, events, offsets)
}

// writeEvents writes events as a 200 stream of server-sent events, each
// at its offset.
func writeEvents(w http.ResponseWriter, events []wire.Event, offsets []time.Duration) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	stream.SetOffsets(h, offsets)
	if len(offsets) > 0 {
		h.Set(cassette.LatencyHeader, offsets[len(offsets)-1].String())
	}
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		wire.WriteEvent(w, e)
	}
}

// writeResumed writes a stored response's stream sent again: its events
// were made already, so they all come at a call's fixed latency.
func (s *Server) writeResumed(w http.ResponseWriter, events wire.Resumed) {
	offsets := make([]time.Duration, len(events))
	for i := range offsets {
		offsets[i] = s.opts.Latency.Fixed
	}
	writeEvents(w, events, offsets)
}

// shape applies a stream fault to events and reports whether it did.
func shape(events []wire.Event, fault string) ([]wire.Event, bool) {
	var content []int
	for i, e := range events {
		if e.Kind == wire.EventContent {
			content = append(content, i)
		}
	}
	switch fault {
	case FaultStreamCut:
		keep := len(events)
		if len(content) > 0 {
			keep = content[max(1, len(content)/2)-1] + 1
		} else {
			for keep > 0 && events[keep-1].Kind >= wire.EventTail {
				keep--
			}
		}
		return events[:keep], true
	case FaultStreamMalformed:
		if len(content) == 0 {
			return events, false
		}
		out := append([]wire.Event(nil), events...)
		i := content[len(content)/2]
		b, _ := json.Marshal(out[i].Data)
		out[i].Data = string(b[:len(b)/2])
		return out, true
	case FaultStreamNoDone:
		out := events[:0:0]
		for _, e := range events {
			if e.Kind != wire.EventDone {
				out = append(out, e)
			}
		}
		return out, len(out) < len(events)
	case FaultSlowFirstToken:
		return events, true
	}
	return events, false
}
