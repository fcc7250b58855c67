package wire

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Getting and deleting the answers the stand-in stores: a Responses API
// response and an Interactions API interaction (one created without
// store: false, among the latest maxStored), as the APIs serve them. A
// stored answer is got as it was answered whole (a streamed one too);
// deleting one forgets it, so that getting or continuing it is then the
// API's 404. A response's input items are listed: the items it was made
// from, those of the responses it continues or of its conversation
// included. A background response made streaming is streamed again
// (background.go); getting another as a stream is refused.

// IsStoredResponse reports whether path names a response (…/responses/<id>,
// and what follows) rather than creating one, counting its tokens or
// compacting a conversation.
func IsStoredResponse(path string) bool {
	_, rest, ok := strings.Cut(path, "/responses/")
	return ok && rest != "" && rest != "input_tokens" && rest != "compact"
}

// StoredResponse answers GET and DELETE …/responses/<id>, GET
// …/responses/<id>/input_items and POST …/responses/<id>/cancel
// (background.go), as OpenAI's Responses API does: the status and the
// body, errors in OpenAI's shape. A get asks for the stream with
// stream=true in its query, or, as the official Go SDK sends it, in a JSON
// body.
func (t *Threads) StoredResponse(method, path string, query url.Values, body []byte) (int, any) {
	id, sub := storedPath(path, "/responses/")
	if query.Get("stream") == "" && method == http.MethodGet && len(body) > 0 {
		var b struct {
			Stream bool `json:"stream"`
		}
		if json.Unmarshal(body, &b) == nil && b.Stream {
			query = maps.Clone(query)
			query.Set("stream", "true")
		}
	}
	items := sub == "input_items" && method == http.MethodGet
	cancel := sub == "cancel" && method == http.MethodPost
	refused := storedRefusal(method, sub, query)
	if refused == refusedUnserved && !items && !cancel {
		return http.StatusNotFound, openAIStatusError(http.StatusNotFound, fmt.Sprintf("%s %s: the stand-in serves the Responses API's create (POST …/responses), get and delete (GET and DELETE …/responses/<id>), input items (GET …/responses/<id>/input_items) and cancel (POST …/responses/<id>/cancel)", method, path))
	}
	notFound := OpenAIError(fmt.Sprintf("Response with id '%s' not found.", id), "invalid_request_error", "", "")
	if items {
		list, ok := t.responseItems(id)
		if !ok {
			return http.StatusNotFound, notFound
		}
		return listItems(list, query)
	}
	a, ok := t.fetchStored(id, method == http.MethodDelete)
	switch {
	case !ok:
		return http.StatusNotFound, notFound
	case method == http.MethodDelete:
		return http.StatusOK, map[string]any{"id": id, "object": "response", "deleted": true}
	case cancel:
		return cancelStored(id, a)
	case refused == refusedStream:
		return streamAgain(id, a, query)
	}
	return http.StatusOK, a.whole
}

// responseItems are the input items of the stored response id, oldest
// first: its conversation's items up to its own input, or else those of
// the responses it continues, each's input and output, then its own
// input; false when t keeps no such response.
func (t *Threads) responseItems(id string) ([]map[string]any, bool) {
	if t == nil {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.stored.get(id)
	switch {
	case !ok:
		return nil, false
	case a.conv != "":
		var items []map[string]any
		if c, ok := t.convs[a.conv]; ok {
			items = slices.Clone(c.items[:min(a.made, len(c.items))])
		}
		return items, true
	}
	chain := []string{id} // the responses of the conversation, latest first
	for p := a.prev; p != ""; {
		prev, ok := t.stored.get(p)
		if !ok {
			break
		}
		chain = append(chain, p)
		p = prev.prev
	}
	var items []map[string]any
	for _, at := range slices.Backward(chain) {
		a, _ := t.stored.get(at)
		items = append(items, ownItems(at, a.input)...)
		if at == id {
			break
		}
		output, _ := a.whole["output"].([]any)
		for _, o := range output {
			if m, ok := o.(map[string]any); ok {
				items = append(items, m)
			}
		}
	}
	return items, true
}

// ownItems are a Responses API request's input items (raw) as the API
// keeps them for the response id: each with an id of its own, derived
// from the response's.
func ownItems(id string, raw json.RawMessage) []map[string]any {
	var c conversation
	for _, it := range inputItems(raw) {
		c.keepItem(id, it)
	}
	return c.items
}

// IsStoredInteraction reports whether path names an interaction (…/v1beta/
// interactions/<id>, and what follows), to get, delete or cancel.
func IsStoredInteraction(path string) bool {
	for _, v := range interactionsVersions {
		if strings.Contains(path, v+"/") {
			return true
		}
	}
	return false
}

// StoredInteraction answers GET and DELETE …/interactions/<id> as Gemini's
// Interactions API does, with the request's input when the query says
// include_input=true: the status and the body, errors in Gemini's shape.
func (t *Threads) StoredInteraction(method, path string, query url.Values) (int, any) {
	id, sub := storedPath(path, "/interactions/")
	switch storedRefusal(method, sub, query) {
	case refusedUnserved:
		return http.StatusNotFound, geminiError(http.StatusNotFound, fmt.Sprintf("%s %s: the stand-in serves the Interactions API's create (POST …/interactions), get and delete (GET and DELETE …/interactions/<id>); it runs no background interaction to cancel", method, path))
	case refusedStream:
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, "the stand-in does not stream a stored interaction again (stream=true); get it whole")
	}
	a, ok := t.fetchStored(id, method == http.MethodDelete)
	it := a.whole
	switch {
	case !ok:
		return http.StatusNotFound, geminiError(http.StatusNotFound, fmt.Sprintf("Interaction %q was not found: it was never stored here (store: false), has been deleted or has been forgotten", id))
	case method == http.MethodDelete:
		return http.StatusOK, map[string]any{}
	case query.Get("include_input") == "true":
		it = maps.Clone(it)
		it["input"] = a.input
	}
	return http.StatusOK, it
}

// Why storedRefusal refuses a request for a stored answer (a response's
// stream is served apart).
const (
	refusedNot      = iota
	refusedUnserved // another method, or a path below the answer's
	refusedStream   // getting it as a stream again (stream=true)
)

// storedPath is the id of the stored answer path names, below marker
// ("/responses/"), and what follows it ("input_items", "" for the answer
// itself).
func storedPath(path, marker string) (id, sub string) {
	_, rest, _ := strings.Cut(path, marker)
	id, sub, _ = strings.Cut(rest, "/")
	return id, sub
}

// storedRefusal is why a request (method, what follows the answer's id in
// its path and its query) for a stored answer is refused: refusedNot when
// it gets or deletes the answer.
func storedRefusal(method, sub string, query url.Values) int {
	switch {
	case sub != "" || method != http.MethodGet && method != http.MethodDelete:
		return refusedUnserved
	case method == http.MethodGet && query.Get("stream") == "true":
		return refusedStream
	}
	return refusedNot
}

// maxStored is how many answers Threads keeps to be got again: fewer than
// the conversations it keeps (maxKept), as an answer whole (its echoed
// instructions and tools) weighs more than its messages, and getting one
// again is rarer than continuing it.
const maxStored = 1 << 10

// storedAnswer is an answer as the API gives it whole, with what getting
// it again needs of its request.
type storedAnswer struct {
	whole map[string]any
	// The request's input: an interaction's, for include_input, a
	// response's, for its input items.
	input json.RawMessage
	// A response's, for its input items: the response it continues, or
	// the conversation it was made in and how many of its items it was
	// made from.
	prev string
	conv string
	made int
	// A background response's stream, when its request streamed, to be
	// streamed again.
	events []Event
}

// keepStored keeps the answer id, to be got again.
func (t *Threads) keepStored(id string, a storedAnswer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stored.put(id, a, maxStored)
}

// fetchStored is the stored answer id, forgotten when del, with its
// conversation; false when t keeps none.
func (t *Threads) fetchStored(id string, del bool) (storedAnswer, bool) {
	if t == nil {
		return storedAnswer{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.stored.get(id)
	if !ok {
		return storedAnswer{}, false
	}
	if del {
		t.stored.drop(id)
		t.answers.drop(id)
	}
	return a, true
}
