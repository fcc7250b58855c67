package cassette

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentreplay/testbed/harness/stream"
	"github.com/agentreplay/testbed/harness/wire"
)

// A streamed answer reaches its client in pieces: a key streamed in
// 6-character delta.content chunks is in no one event. The pieces travel
// as server-sent events (data: lines) or, in Ollama's native API, as
// newline-delimited JSON (a chunk a line). The client sees
// each channel of text (a choice's content, a tool call's arguments, a
// content block) reassembled, so secrets are looked for in that text, and
// replaced in the events that carry it: the placeholder goes where the
// secret starts and the rest of it is cut from the events that follow,
// which stay valid events of their wire format.

// fragment is one piece of streamed text: the string at key of obj, in the
// JSON payload of the data line at line of the body.
type fragment struct {
	line    int
	obj     map[string]any
	key     string
	channel string
	text    string
}

// sseEvent is a line of a stream holding a JSON object: a data line, or
// a line of newline-delimited JSON.
type sseEvent struct {
	line    int
	payload map[string]any
}

// sseLines splits a stream's body into lines (each with its ending) and
// decodes the JSON object of each single-line data: field, or of each
// line when lines (newline-delimited JSON).
func sseLines(body string, lines bool) ([]string, []sseEvent) {
	all := strings.SplitAfter(body, "\n")
	var events []sseEvent
	for i, l := range all {
		data, ok := strings.CutPrefix(l, "data:")
		if lines {
			data, ok = l, true
		}
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if !strings.HasPrefix(data, "{") {
			continue
		}
		v, err := decodeJSON([]byte(data))
		if m, ok := v.(map[string]any); err == nil && ok {
			events = append(events, sseEvent{line: i, payload: m})
		}
	}
	return all, events
}

// fragments lists the text pieces of the events in stream order, in the
// six wire formats: OpenAI Chat Completions chunks (a choice's content,
// refusal, reasoning as compatible servers stream it, reasoning_content or
// reasoning, and tool-call arguments, a custom tool's input among them),
// OpenAI Responses events (*.delta),
// Anthropic Messages content_block_delta events (text, partial_json,
// thinking), Gemini candidates' text parts, the Interactions API's
// step.delta events (text, arguments, a thought's summary) and Ollama's
// chunks (a message's content and thinking, a completion's response and
// thinking).
func fragments(events []sseEvent) []fragment {
	var out []fragment
	add := func(line int, obj map[string]any, key, channel string) {
		if s, ok := obj[key].(string); ok && s != "" {
			out = append(out, fragment{line: line, obj: obj, key: key, channel: channel, text: s})
		}
	}
	for _, e := range events {
		v := e.payload
		typ, _ := v["type"].(string)
		switch {
		case typ == "content_block_delta":
			if d, ok := v["delta"].(map[string]any); ok {
				for _, k := range []string{"text", "partial_json", "thinking"} {
					add(e.line, d, k, fmt.Sprint("block/", v["index"], "/", k))
				}
			}
			continue
		case strings.HasPrefix(typ, "response.") && strings.HasSuffix(typ, ".delta"):
			add(e.line, v, "delta", fmt.Sprint(typ, "/", v["item_id"], "/", v["output_index"], "/", v["content_index"]))
			continue
		case v["event_type"] == "step.delta":
			if d, ok := v["delta"].(map[string]any); ok {
				add(e.line, d, "text", fmt.Sprint("step/", v["index"], "/text"))
				add(e.line, d, "arguments", fmt.Sprint("step/", v["index"], "/arguments"))
				if c, ok := d["content"].(map[string]any); ok {
					add(e.line, c, "text", fmt.Sprint("step/", v["index"], "/summary"))
				}
			}
			continue
		case typ == "" && v["done"] != nil: // Ollama
			if m, ok := v["message"].(map[string]any); ok {
				add(e.line, m, "content", "message/content")
				add(e.line, m, "thinking", "message/thinking")
			}
			add(e.line, v, "response", "response")
			add(e.line, v, "thinking", "thinking")
			continue
		}
		for _, c := range objects(v["choices"]) {
			if d, ok := c["delta"].(map[string]any); ok {
				add(e.line, d, "content", fmt.Sprint("choice/", c["index"], "/content"))
				add(e.line, d, "refusal", fmt.Sprint("choice/", c["index"], "/refusal"))
				add(e.line, d, "reasoning_content", fmt.Sprint("choice/", c["index"], "/reasoning_content"))
				add(e.line, d, "reasoning", fmt.Sprint("choice/", c["index"], "/reasoning"))
				for _, tc := range objects(d["tool_calls"]) {
					if f, ok := tc["function"].(map[string]any); ok {
						add(e.line, f, "arguments", fmt.Sprint("choice/", c["index"], "/tool/", tc["index"]))
					}
					if f, ok := tc["custom"].(map[string]any); ok {
						add(e.line, f, "input", fmt.Sprint("choice/", c["index"], "/tool/", tc["index"]))
					}
				}
			}
		}
		for n, c := range objects(v["candidates"]) {
			idx := c["index"]
			if idx == nil {
				idx = n
			}
			if content, ok := c["content"].(map[string]any); ok {
				for _, p := range objects(content["parts"]) {
					add(e.line, p, "text", fmt.Sprint("candidate/", idx, "/text"))
				}
			}
		}
	}
	return out
}

// objects returns the JSON objects in v, a JSON array.
func objects(v any) []map[string]any {
	arr, _ := v.([]any)
	var out []map[string]any
	for _, x := range arr {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// channel is the reassembled text of one channel and where each of its
// fragments starts in it.
type channel struct {
	text    string
	frags   []*fragment
	offsets []int
}

// channels groups frags by channel, in order of first appearance.
func channels(frags []fragment) []*channel {
	var out []*channel
	by := map[string]*channel{}
	for i := range frags {
		f := &frags[i]
		c := by[f.channel]
		if c == nil {
			c = &channel{}
			by[f.channel] = c
			out = append(out, c)
		}
		c.offsets = append(c.offsets, len(c.text))
		c.frags = append(c.frags, f)
		c.text += f.text
	}
	return out
}

// redactStream replaces the secrets found in each reassembled channel of a
// stream's text in the events that carry them, and returns the stream.
// Events that change are re-encoded compactly; the others keep their
// bytes, and the number and order of events never change.
func (d *Detector) redactStream(body string, ndjson bool) string {
	lines, events := sseLines(body, ndjson)
	changed := d.redactEvents(events)
	if len(changed) == 0 {
		return body
	}
	for _, e := range events {
		if !changed[e.line] {
			continue
		}
		out, err := wire.MarshalPlain(e.payload)
		if err != nil {
			continue
		}
		ending := lines[e.line][len(strings.TrimRight(lines[e.line], "\r\n")):]
		prefix := "data: "
		if ndjson {
			prefix = ""
		}
		lines[e.line] = prefix + string(out) + ending
	}
	return strings.Join(lines, "")
}

// arrayEvents are the chunks of v when it is a stream Gemini sent as one
// JSON array (without alt=sse): the objects with candidates, each an event
// numbered by its place. Any other array has none.
func arrayEvents(v any) []sseEvent {
	arr, _ := v.([]any)
	var out []sseEvent
	for i, x := range arr {
		if m, ok := x.(map[string]any); ok && m["candidates"] != nil {
			out = append(out, sseEvent{line: i, payload: m})
		}
	}
	return out
}

// redactEvents replaces the secrets found in each reassembled channel of
// the events' text in the payloads that carry them, and returns the
// events (by line) whose payload changed.
func (d *Detector) redactEvents(events []sseEvent) map[int]bool {
	frags := fragments(events)
	if len(frags) == 0 {
		return nil
	}
	changed := map[int]bool{}
	for _, c := range channels(frags) {
		found := d.sc.text(c.text)
		for _, sp := range base64Spans(c.text) {
			if v, ok := decodeBase64(c.text[sp[0]:sp[1]], false); ok && len(d.sc.text(v)) > 0 {
				found = append(found, match{start: sp[0], end: sp[1]})
			}
		}
		if len(found) == 0 {
			continue
		}
		spans := mergedSpans(c.text, found)
		for k, f := range c.frags {
			if s := rewrite(f.text, c.offsets[k], spans); s != f.text {
				f.obj[f.key] = s
				changed[f.line] = true
			}
		}
	}
	return changed
}

// rewrite is the fragment text, starting at off of its channel, with the
// spans (sorted, disjoint, in channel offsets) replaced: a span's
// placeholder goes into the fragment where the span starts, and the span's
// text is cut from every fragment it covers.
func rewrite(text string, off int, spans []span) string {
	end := off + len(text)
	var b strings.Builder
	at := off
	touched := false
	for _, sp := range spans {
		if sp.end <= at || sp.start >= end {
			continue
		}
		touched = true
		if sp.start > at {
			b.WriteString(text[at-off : sp.start-off])
		}
		if sp.start >= off {
			b.WriteString(sp.placeholder)
		}
		at = min(sp.end, end)
	}
	if !touched {
		return text
	}
	b.WriteString(text[at-off:])
	return b.String()
}

// streamMatches finds secrets in the reassembled channels of a stream's
// body, and says on which line of the body each starts.
func (sc *scanner) streamMatches(body string, ndjson bool) []lineMatch {
	_, events := sseLines(body, ndjson)
	var out []lineMatch
	for _, c := range channels(fragments(events)) {
		for _, m := range sc.text(c.text) {
			k := 0
			for k+1 < len(c.offsets) && c.offsets[k+1] <= m.start {
				k++
			}
			out = append(out, lineMatch{line: c.frags[k].line, m: m})
		}
	}
	return out
}

// lineMatch is a match on a line: 0-based in a body (streamMatches),
// 1-based in a file (streams).
type lineMatch struct {
	line int
	m    match
}

// streams finds secrets in the streamed response bodies of a cassette's
// text, reassembled as their client sees them, at the (1-based) line of
// the file where the event holding each one's start is (the body's line
// when it is not a literal block, or when the stream is one JSON array).
func (sc *scanner) streams(text string) []lineMatch {
	// Newline-delimited JSON is "}\n" in a literal block, and "}\\n" in a
	// quoted scalar.
	if !strings.Contains(text, "text/event-stream") && !strings.Contains(text, stream.LinesType) && !strings.Contains(text, "candidates") &&
		!strings.Contains(text, "data:") && !strings.Contains(text, "}\n") && !strings.Contains(text, `}\n`) {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal([]byte(text), &root) != nil || len(root.Content) == 0 {
		return nil
	}
	var out []lineMatch
	for _, in := range nodeAt(root.Content[0], "interactions").Content {
		resp := nodeAt(in, "response")
		body := nodeAt(resp, "body")
		var h http.Header
		if body.Kind != yaml.ScalarNode || nodeAt(resp, "headers").Decode(&h) != nil {
			continue
		}
		isStream, lines := streamKind(h, body.Value)
		if t := strings.TrimSpace(body.Value); !isStream && strings.HasPrefix(t, "[") {
			// A stream sent as one JSON array: found at the body's line.
			if v, err := decodeJSON([]byte(t)); err == nil {
				for _, c := range channels(fragments(arrayEvents(v))) {
					for _, m := range sc.text(c.text) {
						out = append(out, lineMatch{line: body.Line, m: m})
					}
				}
			}
			continue
		}
		if !isStream {
			continue
		}
		for _, lm := range sc.streamMatches(body.Value, lines) {
			line := body.Line
			if body.Style&yaml.LiteralStyle != 0 {
				line += 1 + lm.line
			}
			out = append(out, lineMatch{line: line, m: lm.m})
		}
	}
	return out
}

// nodeAt is the value of key in mapping n; an empty node when there is none.
func nodeAt(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	}
	return &yaml.Node{}
}

// streamKind says whether a body sent or received with headers h is a
// stream, as its client reads it, and whether one of newline-delimited
// JSON. The text says it whatever the media type does: server-sent events
// (a first line that is a field, data, event, id or retry, or a comment,
// and a data line), or two lines or more that are each a JSON object, under
// text/plain, application/octet-stream, application/json,
// application/jsonl, application/ndjson, text/event-stream or no type at
// all. Else the media type does (text/event-stream, application/x-ndjson).
func streamKind(h http.Header, body string) (isStream, lines bool) {
	first := strings.TrimLeft(body, "\r\n \t")
	for _, field := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if strings.HasPrefix(first, field) && (strings.HasPrefix(first, "data:") || strings.Contains(body, "\ndata:")) {
			return true, false
		}
	}
	switch {
	case stream.IsLines(h) || jsonLines(body):
		return true, true
	case stream.Is(h):
		return true, false
	}
	return false, false
}

// jsonLines reports whether body is two lines or more that are each a JSON
// object (blank lines aside): one JSON body is no stream.
func jsonLines(body string) bool {
	n := 0
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if line[0] != '{' || line[len(line)-1] != '}' || !json.Valid([]byte(line)) {
			return false
		}
		n++
	}
	return n >= 2
}
