package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agentreplay/testbed/agents/llm"
)

// Threads keeps the conversation of each Responses API answer by its id,
// as the API stores a response (unless its request says store: false), so
// that a request continuing one (previous_response_id) is read with it:
// the earlier requests' input and answers come before its own input, and
// the earlier instructions are left out, as the API leaves them out. A nil
// *Threads keeps nothing, so every previous_response_id is unknown to it.
// It is safe for concurrent use.
type Threads struct {
	mu sync.Mutex
	m  map[string]thread
}

// thread is one answer's part of a conversation: what its request added
// after the conversation of prev ("" when it continued none), and the
// answer.
type thread struct {
	prev string
	msgs []llm.Message
}

// maxThread bounds how many answers a conversation is followed back
// through, so that no chain of ids, however made, loops.
const maxThread = 100_000

// keep notes the answer id: msgs, after the conversation of prev.
func (t *Threads) keep(id, prev string, msgs []llm.Message) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]thread{}
	}
	t.m[id] = thread{prev: prev, msgs: msgs}
}

// conversation is the whole conversation up to and including the answer
// id, oldest first; its error is the API's refusal of an id it does not
// know.
func (t *Threads) conversation(id string) ([]llm.Message, error) {
	notFound := &invalid{msg: fmt.Sprintf("Previous response with id '%s' not found.", id), param: "previous_response_id", code: "previous_response_not_found"}
	if t == nil {
		return nil, notFound
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts [][]llm.Message
	for at, n := id, 0; at != ""; n++ {
		th, ok := t.m[at]
		if !ok || n == maxThread {
			return nil, notFound
		}
		parts = append(parts, th.msgs)
		at = th.prev
	}
	var msgs []llm.Message
	for i := len(parts) - 1; i >= 0; i-- {
		msgs = append(msgs, parts[i]...)
	}
	return msgs, nil
}

// Decode reads a request body of dialect d sent to path as the package's
// Decode does, but a Responses API request that continues an answer t kept
// (Answered) is read after that answer's conversation, as the API reads
// it; one continuing an answer t does not know is read alone.
func (t *Threads) Decode(d Dialect, path string, body []byte) (Request, error) {
	if d != Responses {
		return Decode(d, path, body)
	}
	rr, err := parse[responsesRequest](body)
	if err != nil {
		return Request{}, err
	}
	var prior []llm.Message
	if rr.PreviousResponseID != "" {
		prior, _ = t.conversation(rr.PreviousResponseID)
	}
	r, _, err := rr.decode(false, prior)
	return r, err
}

// Answered keeps, for the requests that continue it, the conversation of
// a Responses API answer read from traffic: the request body it answered,
// its answer as read, and the response body (or its event stream), which
// gives the answer's id. A request that says store: false, or an answer
// with no id, is not kept, as the API keeps neither.
func (t *Threads) Answered(body []byte, answer llm.Message, resp []byte) {
	rr, err := parse[responsesRequest](body)
	if err != nil || (rr.Store != nil && !*rr.Store) {
		return
	}
	id := responseID(resp)
	if id == "" {
		return
	}
	var prior []llm.Message
	if rr.PreviousResponseID != "" {
		prior, _ = t.conversation(rr.PreviousResponseID)
	}
	_, own, err := rr.decode(false, prior)
	if err != nil {
		return
	}
	t.keep(id, rr.PreviousResponseID, append(slices.Clip(own), answer))
}

// responseID is the id of a Responses API answer, whole or streamed (the
// first event that carries the response: response.created).
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
			Response struct {
				ID string `json:"id"`
			} `json:"response"`
		}
		if json.Unmarshal(data, &ev) == nil && ev.Response.ID != "" {
			return ev.Response.ID
		}
	}
	return ""
}
