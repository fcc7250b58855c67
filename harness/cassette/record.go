package cassette

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	vcr "gopkg.in/dnaeon/go-vcr.v2/cassette"
	"gopkg.in/dnaeon/go-vcr.v2/recorder"

	"github.com/agentreplay/testbed/harness/stream"
)

// LatencyHeader is a response header by which a loopback stand-in states
// the latency it models (Go duration text). When present, the recorder
// stores it as the interaction's duration instead of the measured one, so
// recordings against stand-ins are reproducible byte for byte.
const LatencyHeader = "X-Testbed-Latency"

// FaultHeader names an injected fault. On a request to a loopback stand-in
// it asks for one (the runner sets it on the routed copy, so cassettes never
// hold it); on a response it says that the stand-in injected one, and the
// recorder keeps it, so a replay knows which interactions were faults.
const FaultHeader = "X-Testbed-Fault"

// PolicyHeader is a response header by which a stand-in names the policy
// that answered when it is not one written for the agent: the generic
// plumbing policy (standin.GenericName). The recorder keeps it, and a
// cassette with such an answer says so in its Provenance.Policy.
const PolicyHeader = "X-Testbed-Policy"

// NoPolicy is the PolicyHeader of a stand-in's answer to a request no
// policy of its accepts (an HTTP 400 whose message starts NoPolicyCause): a
// recording that got one is not written (Session.Unanswered).
const NoPolicy = "none"

// NoPolicyCause starts the message of a stand-in's NoPolicy answer, and so
// the error of a recording that got one.
const NoPolicyCause = "the stand-in has no policy for"

// RuleHeader is a response header by which the stand-in names the rule of
// its policy that decided the answer ("cba/assistant:forecast"). The
// recorder keeps it, and a replay puts it in the exchange's trace, so that a
// report can say why the stand-in answered as it did.
const RuleHeader = "X-Testbed-Rule"

// recording captures traffic on go-vcr's recorder and saves it atomically on
// Close. Secrets are redacted as each interaction is captured.
type recording struct {
	path string
	tmp  string // go-vcr's working name, without ".yaml"
	opts Options
	vcr  *recorder.Recorder
	mu   sync.Mutex
	// calls has one per call sent (tag), by its number.
	calls []call
	// seqs numbers each captured interaction; saved lists the numbers of
	// go-vcr's interactions in the order it saves them (callOrder).
	seqs  map[*vcr.Interaction]int
	saved []int
	// carried has the secrets each captured interaction's request carried
	// by where they were, for its response (see Detector.carried).
	carried    map[*vcr.Interaction][]string
	closed     bool
	detector   *Detector
	streams    streamGate  // streams handed on before they are captured
	policy     string      // the PolicyHeader of a captured response, if any
	unanswered [][2]string // the requests a stand-in had no policy for, and its message
	deadlines  Deadlines
}

func newRecorder(path string, opts Options) (*recording, error) {
	if err := opts.inside(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// go-vcr appends to an existing file in recording mode, so it works on a
	// fresh name beside the target; Close renames it over the target.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.recording")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	f.Close()
	os.Remove(tmp)
	real := opts.Real
	if real == nil {
		real = http.DefaultTransport
	}
	v, err := recorder.NewAsMode(tmp, recorder.ModeRecording, untagged{teeStreams{stream.Timed(real)}})
	if err != nil {
		return nil, err
	}
	// go-vcr sleeps for each interaction's duration unless told not to; the
	// durations we store are modelled, so sleeping would only slow recording.
	v.SkipRequestLatency = true
	d, err := opts.detector()
	if err != nil {
		return nil, err
	}
	r := &recording{path: path, tmp: tmp, opts: opts, vcr: v, detector: d, seqs: map[*vcr.Interaction]int{}, carried: map[*vcr.Interaction][]string{}}
	v.AddFilter(r.capture)
	v.AddSaveFilter(r.save)
	return r, nil
}

// capture redacts the request's secrets and takes a stand-in's modelled
// latency. It runs as each interaction is captured: what it changes is what
// go-vcr hands back to the caller, so it leaves the response alone (see save).
func (r *recording) capture(i *vcr.Interaction) error {
	d := r.detector
	sent := i.Request.Headers
	n := seqOf(i)
	carried := d.carried(sent, i.Request.URL)
	i.Request.Body = replaceCarried(d.Body(sent, i.Request.Body), carried)
	i.Request.Headers = d.RequestHeaders(sent)
	keepCompared(i.Request.Headers, sent, r.opts.Match, d)
	i.Request.URL = replaceCarried(d.URL(i.Request.URL), carried)
	d.Form(i.Request.Form)
	for _, vs := range i.Request.Form {
		for k, v := range vs {
			vs[k] = replaceCarried(v, carried)
		}
	}
	if v := i.Response.Headers.Get(LatencyHeader); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			i.Response.Duration = d
		}
	}
	st := stream.Of(i.Response.Headers, i.Response.Body)
	if st != nil {
		// A stream lasts until its last event, not until its headers.
		i.Response.Duration = st.Duration
	}
	r.mu.Lock()
	if len(carried) > 0 {
		r.carried[i] = carried
	}
	if n >= 0 {
		r.seqs[i] = n
		c := &r.calls[n]
		c.end, c.duration, c.stream = time.Now(), i.Response.Duration, st
	}
	switch p := i.Response.Headers.Get(PolicyHeader); p {
	case "":
	case NoPolicy:
		r.unanswered = append(r.unanswered, [2]string{i.Request.Method + " " + i.Request.URL, errorMessage(i.Response.Body)})
	default:
		r.policy = p
	}
	r.mu.Unlock()
	return nil
}

// errorMessage is the message of a provider's error body ({"error":
// {"message": …}} in OpenAI's, Gemini's and Anthropic's shapes), or the
// body itself.
func errorMessage(body string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return body
}

// Unanswered is an error when a stand-in had no policy for a request of
// the recording (it answered HTTP 400, NoPolicy): the agent then went on
// with an error instead of an answer, so the recording must not be
// written. The error starts with NoPolicyCause and names the first such
// request; nil when every request was answered.
func (r *recording) Unanswered() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.unanswered) == 0 {
		return nil
	}
	req, msg := r.unanswered[0][0], r.unanswered[0][1]
	if !strings.HasPrefix(msg, NoPolicyCause) {
		msg = NoPolicyCause + " this prompt: " + msg
	}
	if n := len(r.unanswered) - 1; n > 0 {
		req += fmt.Sprintf(", and %d more requests", n)
	}
	return fmt.Errorf("%s (%s); nothing was written for this scenario and its previous cassette is kept", msg, req)
}

// save redacts the response's secrets just before the cassette is written,
// so that the agent saw the real response while recording: its headers and
// its body, a stream as its client reassembles it (see Detector.Body).
func (r *recording) save(i *vcr.Interaction) error {
	r.mu.Lock()
	r.saved = append(r.saved, r.seqs[i])
	carried := r.carried[i]
	r.mu.Unlock()
	if body := replaceCarried(r.detector.Body(i.Response.Headers, i.Response.Body), carried); body != i.Response.Body {
		i.Response.Body = body
		if i.Response.Headers.Get("Content-Length") != "" {
			i.Response.Headers.Set("Content-Length", strconv.Itoa(len(body)))
		}
	}
	i.Response.Headers = r.detector.ResponseHeaders(i.Response.Headers)
	for _, vs := range i.Response.Headers {
		for k, v := range vs {
			vs[k] = replaceCarried(v, carried)
		}
	}
	return nil
}

// RoundTrip implements http.RoundTripper. Each request is observed with
// what was recorded of its own answer, whatever else is under way. An event
// stream is handed on as it arrives (streamGate), and observed when it has
// ended.
func (r *recording) RoundTrip(req *http.Request) (*http.Response, error) {
	return r.streams.pass(req, r.record)
}

// record sends req through go-vcr's recorder, which returns once it has
// read and captured the whole response.
func (r *recording) record(req *http.Request) (*http.Response, error) {
	url := r.detector.requestURL(req.Header, req.URL.String())
	start := time.Now()
	req, n := r.tag(req)
	resp, err := r.vcr.RoundTrip(req)
	if err != nil {
		if r.opts.Observe != nil {
			r.opts.Observe(Exchange{Method: req.Method, URL: url, Duration: time.Since(start), Err: err})
		}
		return nil, err
	}
	r.mu.Lock()
	if e, ok := req.Context().Value(earlyKey{}).(*early); ok && e.last.Load() != 0 {
		// A stream handed on early was the agent's once its last bytes
		// came: a call it sent after them comes after it (callOrder),
		// though the connection ended later.
		r.calls[n].end = time.Unix(0, e.last.Load())
	}
	d, st := r.calls[n].duration, r.calls[n].stream
	r.mu.Unlock()
	e := Exchange{Method: req.Method, URL: url, Status: resp.StatusCode, Duration: d, Fault: resp.Header.Get(FaultHeader), Rule: resp.Header.Get(RuleHeader), Stream: st}
	late := r.deadlines.overdue(req, url, d)
	if late != nil {
		// The interaction is recorded as it was: a replay judges it the same way.
		resp.Body.Close()
		e.Duration, e.Timeout = late.Waited, late
	}
	if r.opts.Observe != nil {
		r.opts.Observe(e)
	}
	if late != nil {
		return nil, late
	}
	return resp, nil
}

// Close saves the recording over the cassette's path, atomically, with its
// provenance. A scenario that made no HTTP call still gets a cassette, so that
// replay knows it was recorded.
func (r *recording) Close() error { return commit(r.Stage()) }

// Stage collects and scans the recording as Close saves it and returns what
// writes it (see Session.Stage).
func (r *recording) Stage() (write func() error, err error) {
	r.streams.wait(context.Background())
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nothing, nil
	}
	r.closed = true
	r.mu.Unlock()
	f, err := r.collect()
	if err != nil {
		return nil, err
	}
	if calls := r.savedCalls(); len(calls) == len(f.Interactions) {
		f.Interactions = inCallOrder(f.Interactions, calls)
	}
	return checked(r.opts.Within, r.path, f, r.detector)
}

// savedCalls are the calls of the interactions go-vcr saved, in its order
// (that of their answers' capture).
func (r *recording) savedCalls() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := make([]call, len(r.saved))
	for k, n := range r.saved {
		calls[k] = r.calls[n]
	}
	return calls
}

// collect stops go-vcr's recorder and returns what it captured, with the
// recording's provenance, as the cassette to write; its working file is
// removed.
func (r *recording) collect() (*file, error) {
	// go-vcr writes its working file by path: not through a folder that
	// now leads out (Within).
	if err := r.opts.inside(r.tmp); err != nil {
		return nil, fmt.Errorf("save cassette %s: %w; its previous cassette is kept", r.path, err)
	}
	if err := r.vcr.Stop(); err != nil {
		os.Remove(r.tmp + ".yaml")
		return nil, fmt.Errorf("save cassette %s: %w", r.path, err)
	}
	defer os.Remove(r.tmp + ".yaml")
	f := &file{Version: FormatVersion}
	if saved, err := readFile(r.tmp + ".yaml"); err == nil {
		f.Interactions = saved.Interactions
	} else if !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("save cassette %s: %w", r.path, err)
	}
	prov := r.Provenance()
	f.Provenance = &prov
	return f, nil
}

// Provenance returns the provenance the cassette is saved with: after
// Close, with the Policy a stand-in named in its responses.
func (r *recording) Provenance() Provenance {
	r.mu.Lock()
	defer r.mu.Unlock()
	prov := r.opts.Provenance
	prov.Recorder = "testbed"
	// A base URL may carry credentials (https://user:pw@gateway/v1?api-key=…).
	if r.detector != nil && prov.Endpoint != "" {
		prov.Endpoint = r.detector.URL(prov.Endpoint)
	}
	if prov.StandIn {
		prov.Policy = r.policy
	}
	return prov
}

// Abort drops the recording; the previous cassette, if any, stays as it was.
func (r *recording) Abort() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	os.Remove(r.tmp + ".yaml")
}

// live sends requests on and records nothing.
type live struct {
	real      http.RoundTripper
	observe   func(Exchange)
	detector  *Detector
	deadlines Deadlines
}

func newLive(opts Options) (*live, error) {
	real := opts.Real
	if real == nil {
		real = http.DefaultTransport
	}
	d, err := opts.detector()
	if err != nil {
		return nil, err
	}
	return &live{real: stream.Timed(real), observe: opts.Observe, detector: d}, nil
}

func (l *live) RoundTrip(req *http.Request) (*http.Response, error) {
	url := l.detector.requestURL(req.Header, req.URL.String())
	start := time.Now()
	resp, err := l.real.RoundTrip(req)
	e := Exchange{Method: req.Method, URL: url, Duration: time.Since(start), Err: err}
	if resp != nil && stream.Is(resp.Header) {
		// The stream goes to the agent as it arrives, observed once it has ended.
		resp.Body = l.observeStream(req, url, resp, e)
		return resp, nil
	}
	if resp != nil {
		e.Status = resp.StatusCode
		if v := resp.Header.Get(LatencyHeader); v != "" {
			if d, perr := time.ParseDuration(v); perr == nil {
				e.Duration = d
			}
		}
		if late := l.deadlines.overdue(req, url, e.Duration); late != nil {
			resp.Body.Close()
			resp, err = nil, late
			e.Duration, e.Timeout = late.Waited, late
		}
	}
	if l.observe != nil {
		l.observe(e)
	}
	return resp, err
}

func (l *live) Close() error { return nil }
