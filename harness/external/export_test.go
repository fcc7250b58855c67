package external

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/agentreplay/testbed/agents/llm"
	"github.com/agentreplay/testbed/harness/wire"
)

// SetFakeTimeLibraries replaces where libfaketime is looked for, until
// restore is called.
func SetFakeTimeLibraries(paths []string) (restore func()) {
	old := fakeTimeLibraries
	fakeTimeLibraries = paths
	return func() { fakeTimeLibraries = old }
}

// SetAfterDial calls f each time testbed has connected to a service's port,
// before it asks who listens there, until restore is called.
func SetAfterDial(f func(port int)) (restore func()) {
	old := afterDial
	afterDial = f
	return func() { afterDial = old }
}

// SetBeforeOutput calls f before each write of a program's stderr (or a
// service's output) is kept, until restore is called.
func SetBeforeOutput(f func()) (restore func()) {
	old := beforeOutput
	beforeOutput = f
	return func() { beforeOutput = old }
}

// SetAfterTable calls f each time testbed has read which sockets listen on
// a service's port, before it looks for their holder, until restore is
// called.
func SetAfterTable(f func(port int)) (restore func()) {
	old := afterTable
	afterTable = f
	return func() { afterTable = old }
}

// PairFetches pairs fetches (each a URL and the body it answered) with
// calls (each its arguments and the result sent back), as the observer
// does at a model request: fetch i's call is the i-th of the answer.
func PairFetches(args, results, urls, bodies []string) []int {
	calls := make([]*askedCall, len(args))
	byID := map[string]string{}
	for i, a := range args {
		id := "call_" + string(rune('a'+i))
		calls[i] = &askedCall{call: llm.ToolCall{ID: id, Arguments: json.RawMessage(a)}}
		byID[id] = results[i]
	}
	fetched := make([]fetch, len(urls))
	for i, u := range urls {
		parsed, err := url.Parse(u)
		if err != nil {
			panic(err)
		}
		fetched[i] = fetch{url: parsed, body: []byte(bodies[i])}
	}
	return pairFetches(calls, byID, fetched)
}

// ReadAnswer reads a model's answer of dialect d, sent with header h, as
// the observer reads it off the traffic: a stream put together as its
// adapter does, a whole answer decoded; a whole stream with nothing in it
// is an empty answer, not an error.
func ReadAnswer(d wire.Dialect, h http.Header, b []byte) (llm.Response, error) {
	if events, streamed := streamOf(d, h, b); streamed {
		out, err := decodeStream(d, events)
		if errors.Is(err, llm.ErrNoContent) {
			err = nil
		}
		return out, err
	}
	return decodeResponse(d, b)
}
