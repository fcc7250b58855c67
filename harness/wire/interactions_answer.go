package wire

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/agentreplay/testbed/agents/llm"
)

// Answering and reading the Interactions API (interactions.go).

// interactionsEpoch is the created and updated time of every answer: the
// stand-in's answers carry no wall clock.
const interactionsEpoch = "1970-01-01T00:00:00Z"

// readInteractions reads a request to create an interaction for
// answering, after the interactions t keeps (previous_interaction_id);
// its answer is kept in t unless the request says store: false.
func (t *Threads) readInteractions(body []byte, sample int) (Call, error) {
	ir, err := parse[interactionsRequest](body)
	if err != nil {
		return Call{}, err
	}
	if ir.Model == "" && (len(ir.Agent) == 0 || string(ir.Agent) == "null") {
		return Call{}, errors.New("model is required")
	}
	if len(bytes.TrimSpace(ir.Input)) == 0 {
		return Call{}, errors.New("input is required")
	}
	var prior []llm.Message
	if id := ir.PreviousInteractionID; id != "" {
		msgs, th, ok := t.conversation(id)
		if !ok || th.anthropic {
			return Call{}, &threadError{status: 404, msg: fmt.Sprintf("Interaction %q was not found: it was never stored here (store: false) or has been forgotten; send the whole conversation as input instead", id)}
		}
		prior = msgs
	}
	req, own, err := ir.decode(true, prior)
	if err != nil {
		return Call{}, err
	}
	var keep func(string, llm.Message, map[string]any)
	if t != nil && ir.stores() {
		keep = func(id string, answer llm.Message, whole map[string]any) {
			t.keep(id, &thread{prev: ir.PreviousInteractionID, msgs: append(append([]llm.Message(nil), own...), answer)})
			t.keepStored(id, storedAnswer{whole: whole, input: ir.Input})
		}
	}
	thinks := ir.GenerationConfig.ThinkingSummaries == "auto" && geminiThinks(ir.Model)
	return Call{req, interactionsEncoder(body, sample, ir.Stream, thinks, keep)}, nil
}

// interactionsEncoder answers a request to create an interaction, whose
// body and sample give its ids, streamed when stream, with a thought step
// first when thinks; keep, when not nil, keeps the answer under its id, as
// a message and as the interaction answered whole.
func interactionsEncoder(body []byte, sample int, stream, thinks bool, keep func(string, llm.Message, map[string]any)) Encoder {
	sum := requestHash(body, sample)
	id := "v1_" + base64.RawURLEncoding.EncodeToString(sum[:18])
	// A call's id: eight base-36 digits of the request's hash and its place.
	calls := new(big.Int).SetBytes(sum[18:26]).Text(36)
	withIDs := func(msg llm.Message) llm.Message {
		msg.ToolCalls = append([]llm.ToolCall(nil), msg.ToolCalls...)
		for i := range msg.ToolCalls {
			msg.ToolCalls[i].ID = fmt.Sprintf("%.8s%d", calls, i+1)
		}
		return msg
	}
	// thought is the thought step shown before msg, and its tokens: none
	// unless thinks.
	thought := func(msg llm.Message) (map[string]any, int, error) {
		if !thinks {
			return nil, 0, nil
		}
		text := thinkingOf(msg)
		toks, err := answerTokens(text)
		sig := sha256.Sum256([]byte(id + text))
		return map[string]any{"type": "thought", "signature": base64.StdEncoding.EncodeToString(sig[:]),
			"summary": []any{map[string]any{"type": "text", "text": text}}}, len(toks), err
	}
	// answer is the interaction answering msg whole, its thought th (of n
	// tokens) first when there is one.
	answer := func(model string, msg llm.Message, th map[string]any, n int, end End, in, out int) (map[string]any, error) {
		steps, err := outputSteps(msg)
		if err != nil {
			return nil, err
		}
		if th != nil {
			steps = append([]any{th}, steps...)
		}
		whole := interaction(id, model, interactionStatus(msg, end), in, out, n)
		whole["steps"] = steps
		return whole, nil
	}
	e := Encoder{
		Error:     geminiError,
		Malformed: `{"id": "` + id + `", "object": "interaction", "status": "completed", "steps": [{"type": "model_output", "content": [{"type": "text", "text": "unterminated`,
		Completion: func(model string, msg llm.Message, end End, in, out int) (any, error) {
			msg = withIDs(msg)
			th, n, err := thought(msg)
			if err != nil {
				return nil, err
			}
			whole, err := answer(model, msg, th, n, end, in, out)
			if err == nil && keep != nil {
				keep(id, msg, whole)
			}
			return whole, err
		},
	}
	if stream {
		e.Events = func(model string, msg llm.Message, end End, in, out int) ([]Event, error) {
			msg = withIDs(msg)
			th, n, err := thought(msg)
			if err != nil {
				return nil, err
			}
			events, err := interactionsEvents(id, model, msg, th, n, end, in, out)
			if err != nil || keep == nil {
				return events, err
			}
			whole, err := answer(model, msg, th, n, end, in, out)
			if err == nil {
				keep(id, msg, whole)
			}
			return events, err
		}
	}
	return e
}

// interaction is an Interaction without its steps, its usage in input,
// output and thought tokens (counted apart from the output, as Gemini
// counts them).
func interaction(id, model, status string, in, out, thought int) map[string]any {
	usage := map[string]any{"total_input_tokens": in, "total_output_tokens": out, "total_tokens": in + out + thought,
		"input_tokens_by_modality": []any{map[string]any{"modality": "text", "tokens": in}}}
	if thought > 0 {
		usage["total_thought_tokens"] = thought
	}
	return map[string]any{
		"id": id, "object": "interaction", "model": model, "status": status,
		"created": interactionsEpoch, "updated": interactionsEpoch, "usage": usage,
	}
}

// interactionStatus is the status of an interaction answered with msg that
// ended as end says.
func interactionStatus(msg llm.Message, end End) string {
	return finishOf(msg, end, "completed", "incomplete", "requires_action")
}

// outputSteps are the output steps of an answer msg: its text as a
// model_output step, then a function_call step per call.
func outputSteps(msg llm.Message) ([]any, error) {
	var steps []any
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		steps = append(steps, map[string]any{"type": "model_output", "content": []any{map[string]any{"type": "text", "text": msg.Content}}})
	}
	for _, tc := range msg.ToolCalls {
		args, err := argsObject(tc)
		if err != nil {
			return nil, err
		}
		steps = append(steps, map[string]any{"type": "function_call", "id": tc.ID, "name": tc.Name, "arguments": args})
	}
	return steps, nil
}

// interactionsEvents are the server-sent events of a streamed answer:
// interaction.created; for the thought th (its n tokens), when there is
// one, then the text, then each call, step.start, its step.delta events
// (thought_summary, text, or arguments_delta) and step.stop;
// interaction.completed; [DONE].
func interactionsEvents(id, model string, msg llm.Message, th map[string]any, n int, end End, in, out int) ([]Event, error) {
	if _, err := outputSteps(msg); err != nil {
		return nil, err
	}
	created := interaction(id, model, "in_progress", 0, 0, 0)
	delete(created, "usage")
	events := []Event{{Kind: EventHead, Data: map[string]any{"event_type": "interaction.created", "interaction": created}}}
	index, last := -1, 0 // the step streaming, and the output tokens before its latest event
	stop := func() {
		if index >= 0 {
			events = append(events, Event{Kind: EventContent, Before: last, Data: map[string]any{"event_type": "step.stop", "index": index}})
		}
	}
	start := func(step map[string]any, before int) {
		stop()
		index, last = index+1, before
		events = append(events, Event{Kind: EventContent, Before: before, Data: map[string]any{"event_type": "step.start", "index": index, "step": step}})
	}
	if th != nil {
		start(map[string]any{"type": "thought", "signature": th["signature"]}, 0)
		events = append(events, Event{Kind: EventContent, Data: map[string]any{"event_type": "step.delta", "index": index,
			"delta": map[string]any{"type": "thought_summary", "content": th["summary"].([]any)[0]}}})
		last = n
	}
	text := -1 // the text's step, once started
	if msg.Content == "" && len(msg.ToolCalls) == 0 {
		start(map[string]any{"type": "model_output"}, n) // an empty answer's one empty step
	}
	for _, p := range pieces(msg, out, cut(msg.Content, true)) {
		p.before += n // the thought comes first
		switch {
		case p.call < 0:
			if text < 0 {
				start(map[string]any{"type": "model_output"}, p.before)
				text = index
			}
			last = p.before
			events = append(events, Event{Kind: EventContent, Before: p.before,
				Data: map[string]any{"event_type": "step.delta", "index": index, "delta": map[string]any{"type": "text", "text": p.text}}})
		case p.start:
			tc := msg.ToolCalls[p.call]
			start(map[string]any{"type": "function_call", "id": tc.ID, "name": tc.Name, "arguments": map[string]any{}}, p.before)
		default:
			last = p.before
			events = append(events, Event{Kind: EventContent, Before: p.before,
				Data: map[string]any{"event_type": "step.delta", "index": index, "delta": map[string]any{"type": "arguments_delta", "arguments": p.text}}})
		}
	}
	stop()
	events = append(events,
		Event{Kind: EventTail, Before: out + n, Data: map[string]any{"event_type": "interaction.completed", "interaction": interaction(id, model, interactionStatus(msg, end), in, out, n)}},
		Event{Kind: EventDone, Before: out + n, Data: "[DONE]"})
	return events, nil
}

// maxSteps bounds the step index a stream's event may give, so that a
// malformed one cannot make the reader allocate without end.
const maxSteps = 1 << 16

// interactionsAnswer is the part of an Interaction ReadInteractions reads.
type interactionsAnswer struct {
	ID          string             `json:"id"`
	Model       string             `json:"model"`
	Status      string             `json:"status"`
	ServiceTier string             `json:"service_tier"` // flex, priority …; standard
	Steps       []interactionsItem `json:"steps"`
	Usage       *interactionsUsage `json:"usage"`
}

// ReadInteractions reads an Interactions API answer, whole (an
// Interaction) or streamed (its server-sent events), as the genai SDKs put
// it together: the text of its model_output steps, its function_call
// steps as tool calls (their ids kept), its usage (thought tokens are
// output, as Gemini counts them; audio by modality) and service tier, and
// why it ended (status: requires_action
// is FinishToolCalls, incomplete FinishLength). Its error is an error
// event or body, or a stream that ended before interaction.completed.
func ReadInteractions(b []byte) (llm.Response, error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		var whole struct {
			interactionsAnswer
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(t, &whole); err != nil {
			return llm.Response{}, fmt.Errorf("interaction: %w", err)
		}
		if whole.Error != nil {
			return llm.Response{}, errors.New("interactions: " + whole.Error.Message)
		}
		return whole.interactionsAnswer.response(), nil
	}
	var a interactionsAnswer
	var texts, args []strings.Builder // text and arguments_delta by step index
	done := false
	for line := range bytes.Lines(b) {
		data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
		if !ok || string(bytes.TrimSpace(data)) == "[DONE]" {
			continue
		}
		var ev struct {
			Type  string           `json:"event_type"`
			Index int              `json:"index"`
			Step  interactionsItem `json:"step"`
			Delta struct {
				Type      string `json:"type"`
				Text      string `json:"text"`
				Arguments string `json:"arguments"`
			} `json:"delta"`
			Interaction interactionsAnswer        `json:"interaction"`
			Status      string                    `json:"status"`
			Usage       *interactionsUsage        `json:"usage"`
			Error       *struct{ Message string } `json:"error"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return a.response(), fmt.Errorf("interaction event: %w", err)
		}
		if ev.Index < 0 || ev.Index > maxSteps {
			return a.response(), fmt.Errorf("interaction event: step index %d", ev.Index)
		}
		for ev.Index >= len(a.Steps) && (ev.Type == "step.start" || ev.Type == "step.delta") {
			a.Steps = append(a.Steps, interactionsItem{})
			texts = append(texts, strings.Builder{})
			args = append(args, strings.Builder{})
		}
		switch ev.Type {
		case "interaction.created":
			a.ID, a.Model, a.ServiceTier = ev.Interaction.ID, ev.Interaction.Model, ev.Interaction.ServiceTier
		case "step.start":
			a.Steps[ev.Index] = ev.Step
		case "step.delta":
			s := &a.Steps[ev.Index]
			switch ev.Delta.Type {
			case "text":
				if s.Type == "" {
					s.Type = "model_output"
				}
				texts[ev.Index].WriteString(ev.Delta.Text)
			case "arguments_delta":
				args[ev.Index].WriteString(ev.Delta.Arguments)
			}
		case "interaction.status_update":
			a.Status = ev.Status
			if ev.Usage != nil {
				a.Usage = ev.Usage
			}
		case "interaction.completed":
			done = true
			a.Status = ev.Interaction.Status
			a.ServiceTier = cmp.Or(ev.Interaction.ServiceTier, a.ServiceTier)
			if ev.Interaction.Usage != nil {
				a.Usage = ev.Interaction.Usage
			}
		case "error":
			msg := "error event"
			if ev.Error != nil {
				msg = ev.Error.Message
			}
			return a.response(), errors.New("interactions: " + msg)
		}
	}
	for i := range a.Steps {
		if t := texts[i].String(); t != "" {
			a.Steps[i].Content = append(a.Steps[i].Content, interactionsPart{Type: "text", Text: t})
		}
		if s := args[i].String(); s != "" && a.Steps[i].Type == "function_call" {
			a.Steps[i].Arguments = json.RawMessage(s)
		}
	}
	if !done {
		return a.response(), errors.New("interaction stream ended before interaction.completed")
	}
	return a.response(), nil
}

// response is a as llm.Response.
func (a interactionsAnswer) response() llm.Response {
	out := llm.Response{Model: a.Model, ID: a.ID, RawFinishReason: a.Status}
	msgs, _ := interactionsSteps(a.Steps, false)
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			out.Message.Content += m.Content
			out.Message.ToolCalls = append(out.Message.ToolCalls, m.ToolCalls...)
		}
	}
	out.Message.Role = llm.RoleAssistant
	if a.Usage != nil {
		out.Usage = a.Usage.usage()
	}
	out.Usage.ServiceTier = llm.StandardTier(a.ServiceTier)
	out.FinishReason = finishReason(a.Status, out.Message, map[string]string{
		"completed": llm.FinishStop, "requires_action": llm.FinishToolCalls, "incomplete": llm.FinishLength})
	return out
}
