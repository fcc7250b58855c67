package wire

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"
)

// StoredInteraction answers a request for an interaction the stand-in
// keeps (one created without store: false, among the latest it keeps), as
// Gemini's Interactions API does: GET …/interactions/<id> is the
// interaction as it was answered whole (a streamed one too), with the
// request's input when the query says include_input=true; DELETE forgets
// it, so that getting it or continuing it (previous_interaction_id) is then
// a 404. It returns the status and the body, errors in Gemini's shape.
// Resuming a stream (stream=true) and cancelling (…/<id>/cancel, for
// background interactions, which the stand-in does not run) are refused.
func (t *Threads) StoredInteraction(method, path string, query url.Values) (int, any) {
	_, rest, _ := strings.Cut(path, "/interactions/")
	id, sub, _ := strings.Cut(rest, "/")
	switch {
	case sub != "" || method != http.MethodGet && method != http.MethodDelete:
		return http.StatusNotFound, geminiError(http.StatusNotFound, fmt.Sprintf("%s %s: the stand-in serves the Interactions API's create (POST …/interactions), get and delete (GET and DELETE …/interactions/<id>); it runs no background interaction to cancel", method, path))
	case method == http.MethodGet && query.Get("stream") == "true":
		return http.StatusBadRequest, geminiError(http.StatusBadRequest, "the stand-in does not stream a stored interaction again (stream=true); get it whole")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	th, ok := t.answers.get(id)
	if !ok || th.interaction == nil {
		return http.StatusNotFound, geminiError(http.StatusNotFound, fmt.Sprintf("Interaction %q was not found: it was never stored here (store: false), has been deleted or has been forgotten", id))
	}
	if method == http.MethodDelete {
		t.answers.drop(id)
		return http.StatusOK, map[string]any{}
	}
	out := maps.Clone(th.interaction)
	if query.Get("include_input") == "true" {
		out["input"] = th.input
	}
	return http.StatusOK, out
}
