package cassette

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentreplay/testbed/harness/stream"
)

// A recording hands an event stream to its caller as it arrives: go-vcr's
// recorder reads a response whole before it returns, so under it a tee
// copies each read of a stream's body to a buffer the caller reads from
// at once, while the recorder reads on at the pace of the network (so that
// stream.Timed, under the tee, stamps each event when it arrived). The
// caller's body ends when the recorder has captured the interaction and
// the exchange has been observed, so a trace keeps its order.

// earlyKey is the context key of a request's *early.
type earlyKey struct{}

// early carries a streamed response to the caller before the recorder
// returns: its status and headers, and a body that fills as it arrives;
// last is when its latest bytes came (Unix nanoseconds), which the caller
// may have acted on before the stream ends.
type early struct {
	ready chan handed
	last  atomic.Int64
}

// handed is a stream handed on early, and the body it fills.
type handed struct {
	resp *http.Response
	body *buffer
}

// teeStreams is the transport under go-vcr's recorder that hands streams
// on early.
type teeStreams struct{ next http.RoundTripper }

func (t teeStreams) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	e, _ := req.Context().Value(earlyKey{}).(*early)
	if err != nil || e == nil || !stream.Is(resp.Header) {
		return resp, err
	}
	buf := newBuffer()
	live := *resp
	live.Header, live.Body = resp.Header.Clone(), buf
	resp.Body = &teeBody{ReadCloser: resp.Body, buf: buf, e: e}
	e.ready <- handed{&live, buf}
	return resp, nil
}

// teeBody copies what is read from a stream into buf, noting when (e.last).
type teeBody struct {
	io.ReadCloser
	buf *buffer
	e   *early
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.e.last.Store(time.Now().UnixNano())
	}
	b.buf.write(p[:n])
	return n, err
}

// streamGate keeps a recording's exchanges in call order while a stream
// is handed on early: the next request waits until the stream has been
// captured and observed (it arrives at the network's pace, whatever the
// caller does), so the cassette and the trace keep the agent's order.
type streamGate struct {
	mu      sync.Mutex
	pending chan struct{} // closed when the stream handed on has been captured; nil when none is
}

// wait waits until the stream handed on, if any, has been captured, or ctx ends.
func (g *streamGate) wait(ctx context.Context) error {
	g.mu.Lock()
	ch := g.pending
	g.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pass runs roundTrip (the recorder's, which reads a response whole) once
// the previous stream is captured, and returns as soon as the response is
// known to be a stream, with its body filling as the stream arrives and
// ending, with the error roundTrip returned if any, once roundTrip has.
func (g *streamGate) pass(req *http.Request, roundTrip func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if err := g.wait(req.Context()); err != nil {
		return nil, err
	}
	e := &early{ready: make(chan handed, 1)}
	req = req.WithContext(context.WithValue(req.Context(), earlyKey{}, e))
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := roundTrip(req)
		done <- result{resp, err}
	}()
	select {
	case res := <-done:
		return res.resp, res.err
	case h := <-e.ready:
		captured := make(chan struct{})
		g.mu.Lock()
		g.pending = captured
		g.mu.Unlock()
		go func() {
			res := <-done
			if res.resp != nil {
				res.resp.Body.Close()
			}
			g.mu.Lock()
			if g.pending == captured {
				g.pending = nil
			}
			g.mu.Unlock()
			close(captured)
			h.body.finish(res.err)
		}()
		return h.resp, nil
	}
}

// buffer is a body that fills while it is read: writes never wait for the
// reader, so the writer keeps the network's pace.
type buffer struct {
	mu     sync.Mutex
	cond   *sync.Cond
	data   []byte
	err    error // io.EOF once finished
	closed bool  // by the reader
}

func newBuffer() *buffer {
	b := &buffer{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *buffer) write(p []byte) {
	if len(p) == 0 {
		return
	}
	b.mu.Lock()
	if !b.closed {
		b.data = append(b.data, p...)
		b.cond.Broadcast()
	}
	b.mu.Unlock()
}

// finish ends the body with err, or io.EOF.
func (b *buffer) finish(err error) {
	if err == nil {
		err = io.EOF
	}
	b.mu.Lock()
	b.err = err
	b.cond.Broadcast()
	b.mu.Unlock()
}

func (b *buffer) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.data) == 0 && b.err == nil && !b.closed {
		b.cond.Wait()
	}
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	return 0, b.err
}

// Close drops what the reader has not read and waits until the stream
// has been captured and observed: a client that stops at the stream's last
// event goes on only once the exchange is in the cassette and the trace.
func (b *buffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed, b.data = true, nil
	for b.err == nil {
		b.cond.Wait()
	}
	return nil
}

// observeStream is the body of a live stream: its timing is known, and
// the exchange e observed, once it has ended.
func (l *live) observeStream(req *http.Request, url string, resp *http.Response, e Exchange) io.ReadCloser {
	h := resp.Header
	return stream.OnEnd(resp.Body, func(body []byte, rerr error) error {
		e.Status = resp.StatusCode
		if v := h.Get(LatencyHeader); v != "" {
			if d, err := time.ParseDuration(v); err == nil {
				e.Duration = d
			}
		}
		if rerr == nil {
			if e.Stream = stream.Of(h, string(body)); e.Stream != nil {
				e.Duration = e.Stream.Duration
			}
		}
		late := l.deadlines.overdue(req, url, e.Duration)
		if late != nil {
			e.Duration, e.Timeout = late.Waited, late
		}
		if l.observe != nil {
			l.observe(e)
		}
		if late != nil {
			return late
		}
		return nil
	})
}
