package external

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// A Responses API call made in the background (background: true) is
// answered at once with its response queued, or streamed and maybe cut
// short; the program then gets the response again (polls it, or resumes
// its stream), or cancels it, until an answer says it is done. The call is reported then, with that answer and the time from its
// request to that answer; one never seen done is reported at the end of
// the turn, with an error.

// pendingCall is a background model call whose answer is not final yet.
type pendingCall struct {
	id      string // its response's
	request llm.Request
	model   string
	kept    func(llm.Message, []byte)
	start   time.Time
}

// pend waits for the final answer of the background response id, which
// the call p made.
func (o *observer) pend(id string, p pendingCall) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending == nil {
		o.pending = map[string]pendingCall{}
	}
	p.id = id
	o.pending[id] = p
}

// settle reports the background call whose response resp (its body got,
// an answer about a stored response, ended at end) says is done.
func (o *observer) settle(resp *http.Response, got []byte, end time.Time) {
	o.mu.Lock()
	if len(o.pending) == 0 {
		o.mu.Unlock()
		return
	}
	id, whole, done := wire.Finished(got)
	p, ok := o.pending[id]
	if done && ok {
		delete(o.pending, id)
	}
	o.mu.Unlock()
	if !done || !ok {
		return
	}
	// A stream resumed ends with the response whole: the call's answer.
	resp = &http.Response{StatusCode: resp.StatusCode, Header: http.Header{"Content-Type": {"application/json"}}}
	o.answered(wire.Responses, p.request, p.model, "", p.kept, resp, whole, backgroundError(whole), end.Sub(p.start))
}

// backgroundError is the error of a background response that ended
// failed or cancelled (its body got), nil for one that gave an answer.
func backgroundError(got []byte) error {
	var r struct {
		Status string `json:"status"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(got, &r)
	switch {
	case r.Status == "failed" && r.Error != nil:
		return fmt.Errorf("the background response failed: %s", r.Error.Message)
	case r.Status == "failed":
		return errors.New("the background response failed")
	case r.Status == "cancelled":
		return errCancelled
	}
	return nil
}

// errCancelled is the error of a background response cancelled before its
// answer.
var errCancelled = errors.New("the background response was cancelled")

// unsettled reports, with an error, the background calls whose final
// answer never came, and forgets them.
func (o *observer) unsettled() {
	o.mu.Lock()
	pending := o.pending
	o.pending = nil
	o.mu.Unlock()
	calls := slices.SortedFunc(maps.Values(pending), func(a, b pendingCall) int { return cmp.Or(a.start.Compare(b.start), cmp.Compare(a.id, b.id)) })
	for _, p := range calls {
		o.answered(wire.Responses, p.request, p.model, "", p.kept, nil, nil, errUnsettled, o.cfg.Clock().Sub(p.start))
	}
}

// errUnsettled is the error of a background call whose response the
// program never got again once done.
var errUnsettled = errors.New("the background response was never got again once done (polled, or its stream resumed, until its status was final)")
