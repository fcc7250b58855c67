package cassette

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	vcr "gopkg.in/dnaeon/go-vcr.v2/cassette"
	"gopkg.in/dnaeon/go-vcr.v2/recorder"
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

// Recorder captures traffic on go-vcr's recorder and saves it atomically on
// Close. Secrets are redacted as each interaction is captured.
type Recorder struct {
	path   string
	tmp    string // go-vcr's working name, without ".yaml"
	opts   Options
	vcr    *recorder.Recorder
	mu     sync.Mutex
	last   time.Duration
	closed bool
}

func newRecorder(path string, opts Options) (*Recorder, error) {
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
	v, err := recorder.NewAsMode(tmp, recorder.ModeRecording, real)
	if err != nil {
		return nil, err
	}
	// go-vcr sleeps for each interaction's duration unless told not to; the
	// durations we store are modelled, so sleeping would only slow recording.
	v.SkipRequestLatency = true
	r := &Recorder{path: path, tmp: tmp, opts: opts, vcr: v}
	v.AddFilter(r.capture)
	return r, nil
}

// capture redacts secrets and takes a stand-in's modelled latency.
func (r *Recorder) capture(i *vcr.Interaction) error {
	i.Request.Headers = i.Request.Headers.Clone()
	for name := range i.Request.Headers {
		if isSecretHeader(name) {
			i.Request.Headers.Set(name, Redacted)
		}
	}
	i.Request.URL = redactURL(i.Request.URL)
	for _, p := range secretParams {
		if i.Request.Form.Has(p) {
			i.Request.Form.Set(p, Redacted)
		}
	}
	if v := i.Response.Headers.Get(LatencyHeader); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			i.Response.Duration = d
		}
	}
	r.mu.Lock()
	r.last = i.Response.Duration
	r.mu.Unlock()
	return nil
}

// RoundTrip implements http.RoundTripper. The agents call one request at a
// time per scenario; the recorded duration reported to Observe belongs to the
// request that just returned.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	url := redactURL(req.URL.String())
	start := time.Now()
	resp, err := r.vcr.RoundTrip(req)
	if err != nil {
		if r.opts.Observe != nil {
			r.opts.Observe(Exchange{Method: req.Method, URL: url, Duration: time.Since(start), Err: err})
		}
		return nil, err
	}
	r.mu.Lock()
	d := r.last
	r.mu.Unlock()
	if r.opts.Observe != nil {
		r.opts.Observe(Exchange{Method: req.Method, URL: url, Status: resp.StatusCode, Duration: d, Fault: resp.Header.Get(FaultHeader)})
	}
	return resp, nil
}

// Close saves the recording over the cassette's path, atomically, with its
// provenance. A scenario that made no HTTP call still gets a cassette, so that
// replay knows it was recorded.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	if err := r.vcr.Stop(); err != nil {
		os.Remove(r.tmp + ".yaml")
		return fmt.Errorf("save cassette %s: %w", r.path, err)
	}
	defer os.Remove(r.tmp + ".yaml")
	f := &file{Version: FormatVersion}
	if saved, err := readFile(r.tmp + ".yaml"); err == nil {
		f.Interactions = saved.Interactions
	} else if !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("save cassette %s: %w", r.path, err)
	}
	prov := r.opts.Provenance
	prov.Recorder = "testbed"
	f.Provenance = &prov
	return writeFile(r.path, f)
}

// Abort drops the recording; the previous cassette, if any, stays as it was.
func (r *Recorder) Abort() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	os.Remove(r.tmp + ".yaml")
}

// live sends requests on and records nothing.
type live struct {
	real    http.RoundTripper
	observe func(Exchange)
}

func newLive(opts Options) *live {
	real := opts.Real
	if real == nil {
		real = http.DefaultTransport
	}
	return &live{real: real, observe: opts.Observe}
}

func (l *live) RoundTrip(req *http.Request) (*http.Response, error) {
	url := redactURL(req.URL.String())
	start := time.Now()
	resp, err := l.real.RoundTrip(req)
	e := Exchange{Method: req.Method, URL: url, Duration: time.Since(start), Err: err}
	if resp != nil {
		e.Status = resp.StatusCode
		if v := resp.Header.Get(LatencyHeader); v != "" {
			if d, perr := time.ParseDuration(v); perr == nil {
				e.Duration = d
			}
		}
	}
	if l.observe != nil {
		l.observe(e)
	}
	return resp, err
}

func (l *live) Close() error { return nil }
