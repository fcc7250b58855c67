package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/agentreplay/testbed/agents/llm"
)

// Threads keeps the conversations the providers keep server-side, by the
// id of the answer they end with (or the conversation's own, for the
// Conversations API: conversations.go), so that a request continuing one
// is read with it:
//
//   - a Responses API answer (unless its request says store: false),
//     which a request continues with previous_response_id: the earlier
//     input and answers come before its own input, the earlier
//     instructions left out, as the API leaves them out;
//
//   - an Anthropic Messages answer to a request with thread: {"type":
//     "create"} or {"type": "continue"}, which a request continues with
//     thread: {"type": "continue", "previous_message_id"}: the earlier
//     messages and answers come before its own, and the system prompt and
//     tools are the thread's; each answer can be continued once.
//
//   - an Interactions API answer (unless its request says store: false),
//     which a request continues with previous_interaction_id: the earlier
//     input and answers come before its own input; the system
//     instruction and tools are each request's own.
//
// A nil *Threads keeps nothing, so every id is unknown to it. It is safe
// for concurrent use.
type Threads struct {
	mu sync.Mutex
	// answers are the latest maxKept answers' threads by id.
	answers latest[*thread]
	// The Conversations API's conversations by id, how many were created
	// from each request body, their ids oldest first and how many items
	// they hold in all (conversations.go).
	convs     map[string]*conversation
	created   map[[32]byte]int
	convOrder []string
	convItems int
	// The reasoning items given, for the requests that send their
	// answers' items back (reasoning.go), and the latest maxKeptItems
	// output items of the stored answers by id, for the item references
	// that stand for them (reference.go).
	reasoning reasoningKept
	items     latest[any]
	// The latest maxStored Responses API answers and interactions, as the
	// APIs return them whole, to be got again (stored.go), and the latest
	// maxCaches of Gemini's cached contents by name (cache.go).
	stored latest[storedAnswer]
	caches latest[cachedContent]
	// The summaries of the latest maxCompactions compactions, by their
	// encrypted content (compact.go).
	compactions latest[string]
}

// thread is one answer's part of a conversation: what its request added
// after the conversation of prev ("" when it continued none), and the
// answer.
type thread struct {
	prev string
	msgs []llm.Message
	// An Anthropic thread's: the system prompt and tools a continuation
	// takes from it, and whether this answer was continued.
	anthropic bool
	system    string
	tools     []llm.Tool
	continued bool
}

// maxKept is how many answers Threads keeps; a request continuing one it
// has forgotten is refused as one continuing an answer it never gave, and
// the SDKs recover from Anthropic's refusal by sending the whole
// conversation again.
const maxKept = 1 << 14

// threadError refuses a request that continues a thread as Anthropic's API
// does: its status, and the error_code its details carry.
type threadError struct {
	status int
	code   string
	msg    string
}

func (e *threadError) Error() string { return e.msg }

// keep notes the answer id: th, whose prev it marks continued when both
// are Anthropic's.
func (t *Threads) keep(id string, th *thread) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, _ := t.answers.get(th.prev); p != nil && th.anthropic {
		p.continued = true
	}
	t.answers.put(id, th, maxKept)
}

// conversation is the whole conversation up to and including the answer
// id, oldest first, and that answer's thread; false when t does not keep
// it whole.
func (t *Threads) conversation(id string) ([]llm.Message, *thread, bool) {
	if t == nil {
		return nil, nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts [][]llm.Message
	last, _ := t.answers.get(id)
	for at, n := id, 0; at != ""; n++ {
		th, ok := t.answers.get(at)
		if !ok || n > maxKept { // no chain of ids, however made, loops
			return nil, nil, false
		}
		parts = append(parts, th.msgs)
		at = th.prev
	}
	var msgs []llm.Message
	for i := len(parts) - 1; i >= 0; i-- {
		msgs = append(msgs, parts[i]...)
	}
	return msgs, last, true
}

// previousResponse is the conversation a Responses API request continues
// (previous_response_id id); its error is the API's refusal of an id it
// does not keep.
func (t *Threads) previousResponse(id string) ([]llm.Message, error) {
	msgs, th, ok := t.conversation(id)
	if !ok || th.anthropic {
		return nil, &invalid{msg: fmt.Sprintf("Previous response with id '%s' not found.", id), param: "previous_response_id", code: "previous_response_not_found"}
	}
	return msgs, nil
}

// previousMessage is the thread an Anthropic request continues
// (previous_message_id id): its conversation and its answer's thread. Its
// error is the API's refusal: a thread it does not keep, or an answer
// already continued.
func (t *Threads) previousMessage(id string) ([]llm.Message, *thread, error) {
	msgs, th, ok := t.conversation(id)
	if !ok || !th.anthropic {
		return nil, nil, &threadError{status: http.StatusNotFound, code: "thread_not_found",
			msg: fmt.Sprintf("thread.previous_message_id: no thread was found for %q; send the whole conversation with thread: {\"type\": \"create\"} to start a new one", id)}
	}
	t.mu.Lock()
	continued := th.continued
	t.mu.Unlock()
	if continued {
		return nil, nil, &threadError{status: http.StatusBadRequest, code: "thread_already_continued",
			msg: fmt.Sprintf("thread.previous_message_id: %q has already been continued, and each response can be continued once; continue from the thread's latest response", id)}
	}
	return msgs, th, nil
}

// Decode reads a request body of dialect d sent to path as the package's
// Decode does, but a request that continues a conversation t kept is read
// after it, as the provider reads it; one continuing a conversation t does
// not know is read alone. Kept, when not nil, keeps the conversation of
// the request's answer, for the requests that continue it: give it the
// answer as read and the response body (or its event stream), which gives
// the answer's id. It also adds the request and its answer to the
// conversation (Follow) a Responses request names. It is nil for what the
// provider would not keep (a Responses request with store: false naming no
// conversation, an Anthropic request in no thread).
func (t *Threads) Decode(d Dialect, path string, body []byte) (r Request, kept func(answer llm.Message, resp []byte), err error) {
	switch d {
	case Responses:
		rr, err := parse[responsesRequest](body)
		if err != nil {
			return Request{}, nil, err
		}
		if rr.Input, err = t.resolve(rr.Input, false); err != nil {
			return Request{}, nil, err
		}
		r, own, err := rr.decode(false, t.priorResponses(rr))
		if err != nil {
			return r, nil, err
		}
		conv := conversationOf(rr.Conversation)
		keep := t.keeper(func(answer llm.Message) *thread {
			return &thread{prev: rr.PreviousResponseID, msgs: append(slices.Clip(own), answer)}
		})
		sent := r.Messages
		return r, func(answer llm.Message, resp []byte) {
			t.followCompaction(sent, resp) // stored or not
			if conv != "" {
				t.extend(conv, rr.Input, responseOutput(resp))
			}
			if rr.Store == nil || *rr.Store {
				keep(answer, resp)
				t.keepOutput(anyItems(responseOutputRaw(resp)))
			}
		}, nil
	case Anthropic:
		ar, err := parse[anthropicRequest](body)
		if err != nil {
			return Request{}, nil, err
		}
		prior := t.priorMessages(ar)
		r, own, err := ar.decode(false, prior)
		if err != nil || ar.Thread == nil {
			return r, nil, err
		}
		return r, t.keeper(func(answer llm.Message) *thread { return ar.kept(prior, r, own, answer) }), nil
	case Gemini:
		model, _, ok := GeminiModel(path)
		if !ok {
			return Request{}, nil, fmt.Errorf("%s is not a …/models/<model>:generateContent path", path)
		}
		gr, err := parse[geminiRequest](body)
		if err != nil {
			return Request{}, nil, err
		}
		gr, _, _ = t.withCache(gr, model, false)
		r, err = gr.decode(model, false)
		return r, nil, err
	case Interactions:
		ir, err := parse[interactionsRequest](body)
		if err != nil {
			return Request{}, nil, err
		}
		var prior []llm.Message
		if id := ir.PreviousInteractionID; id != "" {
			if msgs, th, ok := t.conversation(id); ok && !th.anthropic {
				prior = msgs
			}
		}
		r, own, err := ir.decode(false, prior)
		if err != nil || !ir.stores() {
			return r, nil, err
		}
		return r, t.keeper(func(answer llm.Message) *thread {
			return &thread{prev: ir.PreviousInteractionID, msgs: append(slices.Clip(own), answer)}
		}), nil
	}
	r, err = Decode(d, path, body)
	return r, nil, err
}

// keeper keeps the thread entry makes of an answer under the id its
// response body gives, when it gives one.
func (t *Threads) keeper(entry func(answer llm.Message) *thread) func(llm.Message, []byte) {
	return func(answer llm.Message, resp []byte) {
		if id := responseID(resp); id != "" {
			t.keep(id, entry(answer))
		}
	}
}

// priorResponses is the conversation rr continues (previous_response_id)
// or names (conversation), when t keeps it.
func (t *Threads) priorResponses(rr responsesRequest) []llm.Message {
	prior, _ := t.priorOf(rr)
	return prior
}

// priorMessages is the thread ar continues, when t keeps it (continued
// or not: traffic is read as it came).
func (t *Threads) priorMessages(ar anthropicRequest) *thread {
	if ar.Thread == nil || ar.Thread.PreviousMessageID == "" {
		return nil
	}
	msgs, th, ok := t.conversation(ar.Thread.PreviousMessageID)
	if !ok || !th.anthropic {
		return nil
	}
	return &thread{msgs: msgs, system: th.system, tools: th.tools}
}

// responseID is the id of an answer, whole or streamed (the first event
// that carries it: the Responses API's response.created, Anthropic's
// message_start, the Interactions API's interaction.created).
func responseID(resp []byte) string {
	var whole struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(resp, &whole) == nil {
		return whole.ID
	}
	for line := range bytes.Lines(resp) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		var ev struct {
			Response, Message, Interaction struct {
				ID string `json:"id"`
			}
		}
		if json.Unmarshal(data, &ev) == nil && ev.Response.ID+ev.Message.ID+ev.Interaction.ID != "" {
			return ev.Response.ID + ev.Message.ID + ev.Interaction.ID
		}
	}
	return ""
}

// continuing is the thread an Anthropic request continues (nil when it
// starts one or uses none), checked as the API checks it: a thread's type
// is create or continue, a continuation names a response t keeps and has
// not seen continued, and repeats the thread's system prompt and tools
// only as they are.
func (t *Threads) continuing(ar anthropicRequest) (*thread, error) {
	th := ar.Thread
	switch {
	case th == nil:
		return nil, nil
	case th.Type == "create" && th.PreviousMessageID == "":
		return nil, nil
	case th.Type == "create":
		return nil, errors.New(`thread.previous_message_id: a thread of type "create" continues no response`)
	case th.Type != "continue":
		return nil, fmt.Errorf(`thread.type: want "create" or "continue", not %q`, th.Type)
	case th.PreviousMessageID == "":
		return nil, errors.New("thread.previous_message_id: Field required")
	}
	msgs, last, err := t.previousMessage(th.PreviousMessageID)
	if err != nil {
		return nil, err
	}
	var changed []string
	if ar.System != nil && contentText(ar.System) != last.system {
		changed = append(changed, "system")
	}
	if tools, _ := ar.tools(false); len(ar.Tools) > 0 && !sameTools(tools, last.tools) {
		changed = append(changed, "tools")
	}
	if len(changed) > 0 {
		return nil, &threadError{status: http.StatusBadRequest, code: "thread_fingerprint_mismatch",
			msg: fmt.Sprintf("thread: %s differ from the thread's, which keeps those it was created with; send them as stored or leave them out, or send the whole conversation with thread: {\"type\": \"create\"} to change them", strings.Join(changed, " and "))}
	}
	return &thread{msgs: msgs, system: last.system, tools: last.tools}, nil
}

// sameTools reports whether a and b are the same tools, their schemas
// compared as JSON values.
func sameTools(a, b []llm.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y llm.Tool) bool {
		return x.Name == y.Name && x.Description == y.Description && sameJSON(x.Parameters, y.Parameters)
	})
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

// kept is what a thread keeps of the answer to ar, read as r with its own
// messages own, after prior (nil when ar starts the thread).
func (ar anthropicRequest) kept(prior *thread, r Request, own []llm.Message, answer llm.Message) *thread {
	th := &thread{anthropic: true, msgs: append(slices.Clip(own), answer), system: contentText(ar.System), tools: r.Tools}
	if prior != nil {
		th.prev, th.system = ar.Thread.PreviousMessageID, prior.system
	}
	return th
}
