package wire

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
)

// Getting and deleting the answers the stand-in stores: a Responses API
// response and an Interactions API interaction (one created without
// store: false, among the latest maxStored), as the APIs serve them. A
// stored answer is got as it was answered whole (a streamed one too);
// deleting one forgets it, so that getting or continuing it is then the
// API's 404. Getting one as a stream again is refused, and so is what
// needs a background run (cancel), which the stand-in does not make.

// IsStoredResponse reports whether path names a response (…/responses/<id>,
// and what follows) rather than creating one or counting its tokens.
func IsStoredResponse(path string) bool {
	_, rest, ok := strings.Cut(path, "/responses/")
	return ok && rest != "" && rest != "input_tokens"
}

// StoredResponse answers GET and DELETE …/responses/<id> as OpenAI's
// Responses API does: the status and the body, errors in OpenAI's shape.
func (t *Threads) StoredResponse(method, path string, query url.Values) (int, any) {
	id, refused := storedRequest(method, path, "/responses/", query)
	switch refused {
	case refusedUnserved:
		return http.StatusNotFound, openAIStatusError(http.StatusNotFound, fmt.Sprintf("%s %s: the stand-in serves the Responses API's create (POST …/responses), get and delete (GET and DELETE …/responses/<id>); it lists no input items and runs no background response to cancel", method, path))
	case refusedStream:
		return http.StatusBadRequest, OpenAIError("the stand-in does not stream a stored response again (stream=true); get it whole", "invalid_request_error", "stream", "")
	}
	resp, _, ok := t.fetchStored(id, method == http.MethodDelete)
	switch {
	case !ok:
		return http.StatusNotFound, OpenAIError(fmt.Sprintf("Response with id '%s' not found.", id), "invalid_request_error", "", "")
	case method == http.MethodDelete:
		return http.StatusOK, map[string]any{"id": id, "object": "response", "deleted": true}
	}
	return http.StatusOK, resp
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
	id, refused := storedRequest(method, path, "/interactions/", query)
	switch refused {
	case refusedUnserved:
		return http.StatusNotFound, geminiError(http.StatusNotFound, fmt.Sprintf("%s %s: the stand-in serves the Interactions API's create (POST …/interactions), get and delete (GET and DELETE …/interactions/<id>); it runs no background interaction to cancel", method, path))
	case refusedStream:
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, "the stand-in does not stream a stored interaction again (stream=true); get it whole")
	}
	it, input, ok := t.fetchStored(id, method == http.MethodDelete)
	switch {
	case !ok:
		return http.StatusNotFound, geminiError(http.StatusNotFound, fmt.Sprintf("Interaction %q was not found: it was never stored here (store: false), has been deleted or has been forgotten", id))
	case method == http.MethodDelete:
		return http.StatusOK, map[string]any{}
	case query.Get("include_input") == "true":
		it = maps.Clone(it)
		it["input"] = input
	}
	return http.StatusOK, it
}

// Why storedRequest refuses a request for a stored answer.
const (
	refusedNot      = iota
	refusedUnserved // another method, or a path below the answer's (cancel, input items)
	refusedStream   // getting it as a stream again (stream=true)
)

// storedRequest is the id of the stored answer a request to path asks
// for, below marker ("/responses/"), and why it is refused (refusedNot
// when it is served).
func storedRequest(method, path, marker string, query url.Values) (id string, refused int) {
	_, rest, _ := strings.Cut(path, marker)
	id, sub, _ := strings.Cut(rest, "/")
	switch {
	case sub != "" || method != http.MethodGet && method != http.MethodDelete:
		return id, refusedUnserved
	case method == http.MethodGet && query.Get("stream") == "true":
		return id, refusedStream
	}
	return id, refusedNot
}

// maxStored is how many answers Threads keeps to be got again: fewer than
// the conversations it keeps (maxKept), as an answer whole (its echoed
// instructions and tools) weighs more than its messages, and getting one
// again is rarer than continuing it.
const maxStored = 1 << 10

// storedAnswer is an answer as the API gives it whole, and its request's
// input (an interaction's, for include_input).
type storedAnswer struct {
	whole map[string]any
	input json.RawMessage
}

// keepStored keeps the answer id, given whole, and its request's input, to
// be got again.
func (t *Threads) keepStored(id string, whole map[string]any, input json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stored.put(id, storedAnswer{whole, input}, maxStored)
}

// fetchStored is the answer id as the API gave it whole and its
// request's input, forgotten when del, with its conversation; false when t
// keeps none.
func (t *Threads) fetchStored(id string, del bool) (map[string]any, json.RawMessage, bool) {
	if t == nil {
		return nil, nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.stored.get(id)
	if !ok {
		return nil, nil, false
	}
	if del {
		t.stored.drop(id)
		t.answers.drop(id)
	}
	return a.whole, a.input, true
}
