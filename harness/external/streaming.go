package external

import (
	"context"
	"io"

	"github.com/agentreplay/testbed/harness/stream"
)

// onEnd hands body on as it is read and calls end once, with all of it,
// when it ends (or is closed first, with io.ErrUnexpectedEOF). Until then
// the next request waits (settled), so the traffic is read in the order
// the agent made it.
func (o *observer) onEnd(body io.ReadCloser, end func([]byte, error)) io.ReadCloser {
	ch := make(chan struct{})
	o.mu.Lock()
	o.streaming = ch
	o.mu.Unlock()
	return stream.OnEnd(body, func(got []byte, err error) error {
		end(got, err)
		o.mu.Lock()
		if o.streaming == ch {
			o.streaming = nil
		}
		o.mu.Unlock()
		close(ch)
		return nil
	})
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
