package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
)

// The Responses API's background mode, from OpenAI's API reference and its
// guide: a request with background: true is answered at once with the
// response queued (no output, no usage), and the client gets it again
// (GET …/responses/<id>) until its status is final; POST
// …/responses/<id>/cancel cancels one still running, answers one already
// done as it is, and refuses one not made in the background. The
// stand-in makes an answer when it is asked, so its background response
// is done once created: its first poll gets it done, and its cancel gets
// it as it is. A background response is kept to be polled even with
// store: false, as the API keeps it.

// queued is resp, a response done, as the create of a background request
// answers it: queued, with no output and no usage.
func queued(resp map[string]any) map[string]any {
	q := maps.Clone(resp)
	q["status"], q["output"], q["usage"] = "queued", []any{}, nil
	q["completed_at"], q["incomplete_details"] = nil, nil
	return q
}

// cancelStored answers POST …/responses/<id>/cancel for the stored
// response a: it as it is when it was made in the background (it is done),
// else the API's refusal.
func cancelStored(id string, a storedAnswer) (int, any) {
	if a.whole["background"] != true {
		return http.StatusBadRequest, OpenAIError(fmt.Sprintf("Response '%s' was not created with background=true; only background responses can be cancelled.", id), "invalid_request_error", "", "")
	}
	return http.StatusOK, a.whole
}

// responseState is what a Responses API answer given whole says of its
// state.
type responseState struct {
	ID         string `json:"id"`
	Object     string `json:"object"`
	Status     string `json:"status"`
	Background bool   `json:"background"`
}

// stateOf is the state of resp, a Responses API answer given whole, read
// only when resp mentions one of statuses (a cheap test first: most
// answers mention none).
func stateOf(resp []byte, statuses ...string) (responseState, bool) {
	if !slices.ContainsFunc(statuses, func(s string) bool { return bytes.Contains(resp, []byte(`"`+s+`"`)) }) {
		return responseState{}, false
	}
	var st responseState
	if json.Unmarshal(resp, &st) != nil || st.Object != "response" || !slices.Contains(statuses, st.Status) {
		return responseState{}, false
	}
	return st, true
}

// Unfinished is the id of resp, a Responses API answer given whole, when
// it is a background response still queued or in progress: the call it
// answers is done when a later answer about it (a poll, a cancel) is
// Finished.
func Unfinished(resp []byte) (string, bool) {
	st, ok := stateOf(resp, "queued", "in_progress")
	return st.ID, ok && st.Background
}

// Finished is the id of resp, a response given whole (a poll's or a
// cancel's answer), when its status is final: completed, incomplete,
// failed or cancelled.
func Finished(resp []byte) (string, bool) {
	st, ok := stateOf(resp, "completed", "incomplete", "failed", "cancelled")
	return st.ID, ok
}
