package external

import (
	"context"
	"io"
	"time"

	"github.com/agentreplay/testbed/agents"
	"github.com/agentreplay/testbed/harness/stream"
)

// onEnd hands body on as it is read and calls end once, with all of it,
// when it ends (or is closed first, with io.ErrUnexpectedEOF). Until then
// the next request waits (settled), and a turn the program starts waits
// (turn), so the traffic is read in the order the agent made it.
func (o *observer) onEnd(body io.ReadCloser, end func([]byte, error)) io.ReadCloser {
	ch := make(chan struct{})
	o.mu.Lock()
	o.streaming = ch
	o.mu.Unlock()
	return stream.OnEnd(body, func(got []byte, err error) error {
		// Reading the stream as traffic is the session's work on the
		// call, as reading a whole answer is (RoundTrip).
		began := time.Now()
		end(got, err)
		o.mu.Lock()
		o.busy += time.Since(began)
		if o.streaming == ch {
			o.streaming = nil
			for _, n := range o.turns {
				o.cfg.Tracer.Note(agents.NoteTurn, n)
			}
			o.turns = nil
		}
		o.mu.Unlock()
		close(ch)
		return nil
	})
}

// turn notes that the program starts turn n (it posted to
// TESTBED_TURN_URL). A program has a stream whole once it has read its last
// event, a little before the stream ends in the proxy: while one is being
// handed on, the turn starts once the stream has been read as traffic of
// the turn it belongs to. It does not wait for that, as the program may
// read the rest of the stream only after posting.
func (o *observer) turn(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.streaming != nil {
		o.turns = append(o.turns, n)
		return
	}
	o.cfg.Tracer.Note(agents.NoteTurn, n)
}

// settled waits until the stream being handed on, if any, has been read
// as traffic, or ctx ends.
func (o *observer) settled(ctx context.Context) {
	o.mu.Lock()
	ch := o.streaming
	o.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}
