// Package stream reads the server-sent event streams of model APIs: their
// events, which event carries the first token, and the timing of a stream
// as a cassette keeps it.
//
// A recorded stream is a go-vcr interaction like any other: its response
// body is the stream's text as it arrived, and OffsetsHeader, a response
// header with one value per event, holds each event's offset from the
// request's start (Go duration text, in the order of the events). A
// cassette shows them as a YAML list, one event a line:
//
//	X-Testbed-Stream-Offsets:
//	    - 412ms
//	    - 436ms
//
// Events are split with the OpenAI Go SDK's own SSE decoder
// (packages/ssestream), the one the SDKs parse a live stream with: an event
// is a block of lines ended by a blank line and carrying data. A stream of
// newline-delimited JSON (Ollama's, LinesType) has an event a line. The
// first token is the first event with generated content or a tool call, in
// any of the five wire formats (OpenAI Chat Completions chunks, OpenAI
// Responses events, Gemini streamGenerateContent, Anthropic Messages
// events, Ollama's chunks); role-only
// deltas, keep-alives (ping), thinking and the closing [DONE] never count.
//
// It does not stream to the agent: a replay hands over the whole body at
// once, on the virtual clock, and the timing travels in the trace.
package stream

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agentreplay/testbed/harness/trace"
)

// OffsetsHeader is the response header that holds a stream's event offsets
// (see the package doc). A loopback stand-in sets it to the offsets it
// models; a recording of a real stream sets it to the measured ones.
const OffsetsHeader = "X-Testbed-Stream-Offsets"

// Event is one server-sent event.
type Event struct {
	Type string // the event: field, if any
	Data []byte // the data: lines, each ended by a newline
}

// Is reports whether a response with header h is an event stream.
func Is(h http.Header) bool {
	t, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && t == "text/event-stream"
}

// LinesType is the media type of a stream of newline-delimited JSON, one
// event a line: Ollama's native API streams so.
const LinesType = "application/x-ndjson"

// IsLines reports whether a response with header h is a stream of
// newline-delimited JSON.
func IsLines(h http.Header) bool {
	t, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && t == LinesType
}

// Lines splits newline-delimited JSON into its events, a line each; blank
// lines are none.
func Lines(body string) []Event {
	var out []Event
	for line := range strings.Lines(body) {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, Event{Data: []byte(line + "\n")})
		}
	}
	return out
}

// Parse splits an event stream's text into its events; a last event
// without its closing blank line (a stream cut short) still counts.
func Parse(body string) []Event {
	r := io.MultiReader(strings.NewReader(body), strings.NewReader("\n\n"))
	d := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(r)})
	var out []Event
	for d.Next() {
		e := d.Event()
		out = append(out, Event{Type: e.Type, Data: e.Data})
	}
	return out
}

// Offsets reads OffsetsHeader from h; nil when it is absent or any value
// is not a duration.
func Offsets(h http.Header) []time.Duration {
	vs := h.Values(OffsetsHeader)
	if len(vs) == 0 {
		return nil
	}
	out := make([]time.Duration, 0, len(vs))
	for _, v := range vs {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return nil
		}
		out = append(out, d)
	}
	return out
}

// SetOffsets writes offsets into h as OffsetsHeader, one value each.
func SetOffsets(h http.Header, offsets []time.Duration) {
	h.Del(OffsetsHeader)
	for _, d := range offsets {
		h.Add(OffsetsHeader, d.String())
	}
}

// Token reports whether e carries generated content or a tool call.
func Token(e Event) bool {
	data := bytes.TrimSpace(e.Data)
	if len(data) == 0 || data[0] != '{' {
		return false // [DONE], or not JSON
	}
	var v struct {
		Type         string          `json:"type"`
		Delta        json.RawMessage `json:"delta"`
		ContentBlock *struct {
			Type string `json:"type"`
		} `json:"content_block"`
		Item *struct {
			Type string `json:"type"`
		} `json:"item"`
		Choices []struct {
			Delta struct {
				Content   string            `json:"content"`
				Refusal   string            `json:"refusal"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text         string          `json:"text"`
					Thought      bool            `json:"thought"`
					FunctionCall json.RawMessage `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
		EventType string `json:"event_type"` // the Interactions API's
		Step      *struct {
			Type string `json:"type"`
		} `json:"step"`
		Message  json.RawMessage `json:"message"`  // an Ollama chat chunk's (Anthropic's message_start has one too)
		Response json.RawMessage `json:"response"` // an Ollama completion chunk's text (a Responses event's answer)
	}
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	switch v.EventType { // the Interactions API: a function call's step names its tool
	case "step.start":
		return v.Step != nil && v.Step.Type == "function_call"
	case "step.delta":
		var d struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			Arguments string `json:"arguments"`
		}
		json.Unmarshal(v.Delta, &d)
		return (d.Type == "text" && d.Text != "") || (d.Type == "arguments_delta" && d.Arguments != "")
	case "":
	default:
		return false
	}
	switch v.Type {
	case "content_block_start": // Anthropic: a tool_use block names its tool
		return v.ContentBlock != nil && v.ContentBlock.Type == "tool_use"
	case "content_block_delta":
		var d struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			PartialJSON string `json:"partial_json"`
		}
		json.Unmarshal(v.Delta, &d)
		return (d.Type == "text_delta" && d.Text != "") || (d.Type == "input_json_delta" && d.PartialJSON != "")
	case "response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta": // Responses
		var d string
		json.Unmarshal(v.Delta, &d)
		return d != ""
	case "response.output_item.added":
		return v.Item != nil && v.Item.Type == "function_call"
	}
	for _, c := range v.Choices { // Chat Completions chunks
		if c.Delta.Content != "" || c.Delta.Refusal != "" || len(c.Delta.ToolCalls) > 0 {
			return true
		}
	}
	for _, c := range v.Candidates { // Gemini
		for _, p := range c.Content.Parts {
			if (p.Text != "" && !p.Thought) || (len(p.FunctionCall) > 0 && string(p.FunctionCall) != "null") {
				return true
			}
		}
	}
	var text string
	if v.Type == "" && json.Unmarshal(v.Response, &text) == nil { // Ollama's /api/generate
		return text != ""
	}
	if v.Type == "" && len(v.Message) > 0 { // Ollama
		var m struct {
			Content   string            `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		}
		return json.Unmarshal(v.Message, &m) == nil && (m.Content != "" || len(m.ToolCalls) > 0)
	}
	return false
}

// Measure is the timing of a stream whose events arrived at offsets (one
// each, in order; extra offsets or events are ignored).
func Measure(events []Event, offsets []time.Duration) trace.Stream {
	n := min(len(events), len(offsets))
	s := trace.Stream{Events: len(events), FirstToken: -1}
	if n == 0 {
		return s
	}
	s.FirstEvent, s.Duration = offsets[0], offsets[n-1]
	var at []time.Duration // offsets of the events that carry tokens
	for i := range n {
		if Token(events[i]) {
			at = append(at, offsets[i])
		}
	}
	if len(at) == 0 {
		return s
	}
	s.FirstToken, s.TokenEvents = at[0], len(at)
	gaps := make([]time.Duration, 0, len(at)-1)
	var sum time.Duration
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i]-at[i-1])
		sum += at[i] - at[i-1]
	}
	if len(gaps) > 0 {
		slices.Sort(gaps)
		s.GapMean = sum / time.Duration(len(gaps))
		s.GapP95 = gaps[max(0, (95*len(gaps)+99)/100-1)]
	}
	return s
}

// Of is the timing of a recorded response with header h and body, or nil
// when it is not an event stream or newline-delimited JSON with offsets.
func Of(h http.Header, body string) *trace.Stream {
	split := Parse
	switch {
	case Is(h):
	case IsLines(h):
		split = Lines
	default:
		return nil
	}
	offsets := Offsets(h)
	if offsets == nil {
		return nil
	}
	s := Measure(split(body), offsets)
	return &s
}
