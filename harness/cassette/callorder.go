package cassette

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	vcr "gopkg.in/dnaeon/go-vcr.v2/cassette"

	"github.com/agentreplay/testbed/harness/trace"
)

// seqHeader tags a request on its way through go-vcr's recorder with its
// number in the recording, so that its interaction can be told apart from
// those of the requests under way with it. It never leaves testbed:
// untagged strips it before the real transport, and the recorded headers
// are an allowlist.
const seqHeader = "X-Testbed-Recording-Seq"

// WithSent returns ctx saying that its request was sent at t: when a proxy
// received it from the agent, before the hop to the recording, so that a
// recording tells the calls an agent sent at once from those it sent after
// an answer by when the agent sent them.
func WithSent(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, sentAt{}, t)
}

type sentAt struct{}

// sent is when req was sent: WithSent's time, or now.
func sent(req *http.Request) time.Time {
	if t, ok := req.Context().Value(sentAt{}).(time.Time); ok {
		return t
	}
	return time.Now()
}

// call is one recorded call: when it was sent and when its answer was
// captured, and what the recording measured of it.
type call struct {
	start, end time.Time
	duration   time.Duration
	stream     *trace.Stream
}

// untagged is the real transport under go-vcr's recorder: it sends a
// request without its seqHeader.
type untagged struct{ next http.RoundTripper }

func (u untagged) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(seqHeader) != "" {
		// A shallow copy with its own headers: go-vcr keeps req's, and reads
		// the body through req.Body.
		c := *req
		c.Header = req.Header.Clone()
		c.Header.Del(seqHeader)
		req = &c
	}
	return u.next.RoundTrip(req)
}

// tag returns req's copy carrying the number of a new call in the
// recording, and that number; its start is when req was sent.
func (r *recording) tag(req *http.Request) (*http.Request, int) {
	r.mu.Lock()
	n := len(r.calls)
	r.calls = append(r.calls, call{start: sent(req)})
	r.mu.Unlock()
	c := *req
	c.Header = req.Header.Clone()
	c.Header.Set(seqHeader, strconv.Itoa(n))
	return &c, n
}

// seqOf is the number tag gave interaction i's request, or -1.
func seqOf(i *vcr.Interaction) int {
	n, err := strconv.Atoi(i.Request.Headers.Get(seqHeader))
	if err != nil {
		return -1
	}
	return n
}

// inCallOrder returns items, the interactions of calls, in callOrder.
func inCallOrder(items []*vcr.Interaction, calls []call) []*vcr.Interaction {
	requests := make([]string, len(items))
	for k, i := range items {
		requests[k] = i.Request.Method + " " + i.Request.URL + "\n" + i.Request.Body
	}
	out := make([]*vcr.Interaction, len(items))
	for k, i := range callOrder(calls, requests) {
		out[k] = items[i]
	}
	return out
}

// callOrder returns the order in which a recording writes its
// interactions, given each one's call and request (its method, URL and
// body, as written): a call sent after another's answer was captured comes
// after it, as the agent made them, and calls under way at once (tools run
// in parallel) come in the order of their requests, not of their answers,
// so that two recordings of an agent write one cassette whatever order its
// threads and the upstreams took. For calls made one after the other this
// is the order they were made.
func callOrder(calls []call, requests []string) []int {
	left := make([]int, len(calls))
	for i := range left {
		left[i] = i
	}
	slices.SortStableFunc(left, func(a, b int) int { return calls[a].start.Compare(calls[b].start) })
	out := make([]int, 0, len(calls))
	for len(left) > 0 {
		// The calls that may come next are those sent before every call
		// left was answered: a prefix of left, which is in order of start.
		first := calls[left[0]].end
		for _, i := range left {
			if calls[i].end.Before(first) {
				first = calls[i].end
			}
		}
		pick := 0
		for k := 1; k < len(left) && !calls[left[k]].start.After(first); k++ {
			if requests[left[k]] < requests[left[pick]] {
				pick = k
			}
		}
		out = append(out, left[pick])
		left = slices.Delete(left, pick, pick+1)
	}
	return out
}
