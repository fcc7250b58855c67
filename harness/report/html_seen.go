package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/trace"
)

// seenLimit is the most characters of one text the page shows; the
// cassette holds the rest.
const seenLimit = 2000

// seenCall is what one model call was sent and answered, as the page shows
// it. A system prompt or tool set that the page showed before is linked,
// not repeated, and the leading messages that repeat an earlier call's
// conversation are named. The messages and the answer go into the page as
// data (seenData) that its script draws when the block is opened: drawn
// up front, they would double the time the whole report takes to load.
type seenCall struct {
	N    int // the call's number in the run, from 1
	What string
	// System and Tools are shown in full the first time the page has them,
	// with SystemID and ToolsID as their anchors; after that, SystemAs and
	// ToolsAs link to that first place.
	System, SystemID string
	SystemAs         *htmlLink
	Tools            []seenTool
	ToolsID          string
	ToolsAs          *htmlLink
	Earlier          string
	Messages         []seenMessage // the answer last
}

type seenTool struct{ Name, Description, Parameters string }

type seenMessage struct {
	Role string `json:"role"`
	Head string `json:"head,omitempty"` // the start, on the folded block
	Text string `json:"text"`
	Open bool   `json:"open,omitempty"` // shown unfolded: short enough to read at a glance
}

// seenData is the messages of each call of calls, as the script of the
// page reads them.
func seenData(calls []seenCall) template.JS {
	data := make([][]seenMessage, len(calls))
	for i, c := range calls {
		data[i] = c.Messages
	}
	// json.Marshal escapes <, > and &: the text cannot end the script.
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // strings and booleans only
	}
	return template.JS(b)
}

// seenIndex remembers where a page first showed each system prompt and
// tool set, by content, so that it shows each once.
type seenIndex struct {
	first   map[string]htmlLink
	anchors anchorSet
}

func newSeenIndex(anchors anchorSet) *seenIndex {
	return &seenIndex{first: map[string]htmlLink{}, anchors: anchors}
}

// place returns a new anchor for content shown at label, or a link to
// where the page showed it first.
func (x *seenIndex) place(kind, content, label, scenario string) (id string, as *htmlLink) {
	key := kind + "\x00" + content
	if l, ok := x.first[key]; ok {
		return "", &l
	}
	id = x.anchors.add(scenario, label, kind)
	x.first[key] = htmlLink{Anchor: id, Label: label}
	return id, nil
}

// modelSaw lays out the prompts a scenario run's events kept
// (trace.LLMCall.Prompt), label naming the run and anchor its block; nil
// when no event kept one.
func modelSaw(events []trace.Event, x *seenIndex, label, anchor string) []seenCall {
	var out []seenCall
	var prompts []*trace.Prompt
	for _, e := range events {
		if e.LLM == nil || e.LLM.Prompt == nil {
			continue
		}
		c, p := e.LLM, e.LLM.Prompt
		s := seenCall{N: len(out) + 1, What: fmt.Sprintf("%s %s at %s", orNone(c.Role), c.Model, ms(e.At))}
		here := fmt.Sprintf("%s call %d", label, s.N)
		msgs := p.Messages
		if len(msgs) > 0 && msgs[0].Role == "system" {
			if s.SystemID, s.SystemAs = x.place("system", msgs[0].Content, here, anchor); s.SystemAs == nil {
				s.System = cut(msgs[0].Content)
			}
			msgs = msgs[1:]
		}
		if len(p.Tools) > 0 {
			key, _ := json.Marshal(p.Tools)
			if s.ToolsID, s.ToolsAs = x.place("tools", string(key), here, anchor); s.ToolsAs == nil {
				for _, t := range p.Tools {
					s.Tools = append(s.Tools, seenTool{t.Name, t.Description, cut(string(t.Parameters))})
				}
			}
		}
		// The latest earlier call whose conversation this one continues.
		for j := len(prompts) - 1; j >= 0; j-- {
			if k := len(prompts[j].Messages); k > 1 && k <= len(p.Messages) && slices.EqualFunc(prompts[j].Messages, p.Messages[:k], sameMessage) {
				msgs = p.Messages[k:]
				s.Earlier = fmt.Sprintf("the first %d messages: as call %d", k, j+1)
				break
			}
		}
		for _, m := range msgs {
			s.Messages = append(s.Messages, seenMessageOf(m))
		}
		if a := answerOf(c); a != "" {
			s.Messages = append(s.Messages, seenMessage{Role: "answer", Text: cut(a), Open: true})
		}
		prompts = append(prompts, p)
		out = append(out, s)
	}
	return out
}

func seenMessageOf(m llm.Message) seenMessage {
	text := m.Content
	for _, tc := range m.ToolCalls {
		text += "\n→ " + tc.Name + " " + string(tc.Arguments)
	}
	text = strings.TrimPrefix(text, "\n")
	role := m.Role
	if m.Name != "" {
		role += " " + m.Name
	}
	out := seenMessage{Role: role, Text: cut(text), Open: len(text) <= 300}
	if !out.Open {
		out.Head = clip(strings.Join(strings.Fields(text), " "), 100)
	}
	return out
}

// cut shortens s to seenLimit characters, saying how many it left out.
func cut(s string) string {
	r := []rune(s)
	if len(r) <= seenLimit {
		return s
	}
	return string(r[:seenLimit]) + fmt.Sprintf("… (%d more characters)", len(r)-seenLimit)
}

// answerOf is a model call's answer: its text and the tools it asked for,
// or its error.
func answerOf(c *trace.LLMCall) string {
	parts := []string{c.Text}
	for _, tc := range c.ToolCalls {
		parts = append(parts, "→ "+tc.Name+" "+string(tc.Arguments))
	}
	if c.Error != "" {
		parts = append(parts, "error: "+c.Error)
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

func sameMessage(a, b llm.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Name == b.Name && a.ToolCallID == b.ToolCallID &&
		slices.EqualFunc(a.ToolCalls, b.ToolCalls, func(x, y llm.ToolCall) bool {
			return x.Name == y.Name && string(x.Arguments) == string(y.Arguments)
		})
}
