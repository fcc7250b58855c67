package cassette_test

// Streams in each wire format whose text deltas carry a text in pieces,
// and the text their clients put back together, for the redaction specs.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentreplay/testbed/harness/stream"
)

// chunked is an event stream of one wire format whose text deltas carry
// text in pieces of n bytes; deltaOf makes one event's payload.
func chunked(text string, n int, deltaOf func(piece string) string) string {
	var b strings.Builder
	for len(text) > 0 {
		k := min(n, len(text))
		fmt.Fprintf(&b, "data: %s\n\n", deltaOf(text[:k]))
		text = text[k:]
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// wireFormats make a text delta in each of the streamed shapes sent as
// server-sent events.
var wireFormats = map[string]func(string) string{
	"chat completions": func(p string) string {
		return `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + jsonString(p) + `}}]}`
	},
	"chat completions reasoning_content": func(p string) string {
		return `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":null,"reasoning_content":` + jsonString(p) + `}}]}`
	},
	"chat completions reasoning": func(p string) string {
		return `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":null,"reasoning":` + jsonString(p) + `}}]}`
	},
	"chat completions custom tool input": func(p string) string {
		return `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"custom":{"input":` + jsonString(p) + `}}]}}]}`
	},
	"responses": func(p string) string {
		return `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":` + jsonString(p) + `}`
	},
	"anthropic": func(p string) string {
		return `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + jsonString(p) + `}}`
	},
	"gemini": func(p string) string {
		return `{"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":` + jsonString(p) + `}]}}]}`
	},
	"interactions": func(p string) string {
		return `{"event_type":"step.delta","index":0,"delta":{"type":"text","text":` + jsonString(p) + `}}`
	},
}

// reassembled is the text a client of the wire format reassembles from a
// stream's events.
func reassembled(body string) string {
	var b strings.Builder
	for _, e := range stream.Parse(body) {
		var v struct {
			Type    string          `json:"type"`
			Delta   json.RawMessage `json:"delta"`
			Choices []struct {
				Delta struct {
					Content          string
					ReasoningContent string `json:"reasoning_content"`
					Reasoning        string
					ToolCalls        []struct{ Custom struct{ Input string } } `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
			Candidates []struct {
				Content struct{ Parts []struct{ Text string } } `json:"content"`
			} `json:"candidates"`
		}
		if json.Unmarshal(e.Data, &v) != nil {
			continue
		}
		for _, c := range v.Choices {
			b.WriteString(c.Delta.Content + c.Delta.ReasoningContent + c.Delta.Reasoning)
			for _, tc := range c.Delta.ToolCalls {
				b.WriteString(tc.Custom.Input)
			}
		}
		for _, c := range v.Candidates {
			for _, p := range c.Content.Parts {
				b.WriteString(p.Text)
			}
		}
		var s string
		var d struct{ Text string }
		if json.Unmarshal(v.Delta, &s) == nil {
			b.WriteString(s)
		} else if json.Unmarshal(v.Delta, &d) == nil {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}
