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

// seenLimit is the most characters of one message or answer the page
// shows; the cassette holds the rest. System prompts and tool definitions,
// shown once each, are shown whole.
const seenLimit = 1000

// seenCall is what one model call was sent and answered, as the page shows
// it. A system prompt or tool set that the page showed before is linked,
// not repeated, and the leading messages that repeat an earlier call's
// conversation are named. The calls go into the page as data (seenData)
// that its script draws when their block is opened: drawn up front, they
// would double the time the whole report takes to load.
type seenCall struct {
	N    int    `json:"n"` // the call's number in the run, from 1
	What string `json:"what"`
	// System and Tools are shown in full the first time the page has them,
	// with SystemID and ToolsID as their anchors; after that, SystemAs and
	// ToolsAs link to that first place.
	System   string        `json:"system,omitempty"`
	SystemID string        `json:"system_id,omitempty"`
	SystemAs *htmlLink     `json:"system_as,omitempty"`
	Tools    []seenTool    `json:"tools,omitempty"`
	ToolsID  string        `json:"tools_id,omitempty"`
	ToolsAs  *htmlLink     `json:"tools_as,omitempty"`
	Earlier  string        `json:"earlier,omitempty"`
	Messages []seenMessage `json:"messages"` // the answer last
}

type seenTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Parameters  string `json:"parameters"`
}

type seenMessage struct {
	Role string `json:"role"`
	Head string `json:"head,omitempty"` // the start, on the folded block
	Text string `json:"text"`
	Open bool   `json:"open,omitempty"` // shown unfolded: short enough to read at a glance
}

// seenData is calls as the script of the page reads them.
func seenData(calls []seenCall) template.JS {
	// json.Marshal escapes <, > and &: the text cannot end the script.
	b, err := json.Marshal(calls)
	if err != nil {
		panic(err) // strings, numbers and booleans only
	}
	return template.JS(b)
}

// seenIDs are the anchors that calls define, space-separated: the script
// draws the block that holds one when a link points to it.
func seenIDs(calls []seenCall) string {
	var ids []string
	for _, c := range calls {
		for _, id := range []string{c.SystemID, c.ToolsID} {
			if id != "" {
				ids = append(ids, id)
			}
		}
	}
	return strings.Join(ids, " ")
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
				s.System = msgs[0].Content
			}
			msgs = msgs[1:]
		}
		if len(p.Tools) > 0 {
			key, _ := json.Marshal(p.Tools)
			if s.ToolsID, s.ToolsAs = x.place("tools", string(key), here, anchor); s.ToolsAs == nil {
				for _, t := range p.Tools {
					s.Tools = append(s.Tools, seenTool{t.Name, t.Description, string(t.Parameters)})
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
