package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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
// store: false, as the API keeps it. One made streaming is streamed again
// (GET …/responses/<id>?stream=true), whole or from after the event
// starting_after names (its sequence_number), as a client resumes a
// stream it lost.

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

// Resumed is a stored response's stream sent again: the events after
// the one the request's starting_after names, to be written as a stream.
type Resumed []Event

// keepEvents keeps events, the stream of the background response id, to
// be streamed again.
func (t *Threads) keepEvents(id string, events []Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a, ok := t.stored.get(id); ok {
		a.events = events
		t.stored.put(id, a, maxStored)
	}
}

// streamAgain answers GET …/responses/<id>?stream=true for the stored
// response a: its stream from after the event query's starting_after
// names, Resumed, or the API's refusal when it was not a background
// response made streaming.
func streamAgain(id string, a storedAnswer, query url.Values) (int, any) {
	if a.events == nil {
		return http.StatusBadRequest, OpenAIError(fmt.Sprintf("Response '%s' cannot be streamed again: only a response created with background=true and stream=true can be.", id), "invalid_request_error", "stream", "")
	}
	after := -1
	if s := query.Get("starting_after"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return http.StatusBadRequest, OpenAIError(fmt.Sprintf("Invalid 'starting_after': expected a sequence number, got %q.", s), "invalid_request_error", "starting_after", "")
		}
		after = n
	}
	i := slices.IndexFunc(a.events, func(e Event) bool { return e.Data.(map[string]any)["sequence_number"].(int) > after })
	if i < 0 {
		return http.StatusOK, Resumed{}
	}
	return http.StatusOK, Resumed(a.events[i:])
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

// The statuses of a response not done yet, and done.
var (
	unfinishedStatuses = []string{"queued", "in_progress"}
	finalStatuses      = []string{"completed", "incomplete", "failed", "cancelled"}
)

// Unfinished is the id of resp, a Responses API answer, when it is a
// background response not done: given whole queued or in progress, or
// streamed and cut before its final event. The call it answers is done
// when a later answer about it (a poll, a cancel, its stream resumed) is
// Finished.
func Unfinished(resp []byte) (string, bool) {
	if !isEventStream(resp) {
		st, ok := stateOf(resp, unfinishedStatuses...)
		return st.ID, ok && st.Background
	}
	// The stream's first event says whether the response is a background
	// one: most are not, and are told at once.
	_, after, _ := bytes.Cut(resp, []byte(`"background":`))
	if !bytes.HasPrefix(bytes.TrimLeft(after, " "), []byte("true")) {
		return "", false
	}
	states, _ := streamStates(resp)
	if len(states) == 0 {
		return "", false
	}
	last := states[len(states)-1]
	return last.ID, last.Background && !slices.Contains(finalStatuses, last.Status)
}

// Finished is the id of resp, an answer about a response (a poll's, a
// cancel's, or its stream resumed), and the response whole, when its
// status is final: completed, incomplete, failed or cancelled.
func Finished(resp []byte) (string, []byte, bool) {
	if !isEventStream(resp) {
		st, ok := stateOf(resp, finalStatuses...)
		return st.ID, resp, ok
	}
	states, raws := streamStates(resp)
	for i, st := range slices.Backward(states) {
		if slices.Contains(finalStatuses, st.Status) {
			return st.ID, raws[i], true
		}
	}
	return "", nil, false
}

// isEventStream reports whether b is server-sent events rather than a
// JSON body.
func isEventStream(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte("data:"))
}

// streamStates are the states of the response the events of a Responses
// stream carry (response.created … response.completed), in order, each
// with the response as the event gives it.
func streamStates(stream []byte) ([]responseState, []json.RawMessage) {
	var states []responseState
	var raws []json.RawMessage
	for line := range bytes.Lines(stream) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok || !bytes.Contains(data, []byte(`"response"`)) {
			continue
		}
		var ev struct {
			Response json.RawMessage `json:"response"`
		}
		var st responseState
		if json.Unmarshal(data, &ev) != nil || json.Unmarshal(ev.Response, &st) != nil || st.Object != "response" {
			continue
		}
		states, raws = append(states, st), append(raws, ev.Response)
	}
	return states, raws
}
