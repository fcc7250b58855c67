package agents

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxResponseBytes bounds what an agent reads of one upstream response:
// well above the largest real payload the agents meet (a week of Home
// Assistant history, about 0.6 MB), and small enough that a runaway body
// cannot exhaust memory or the model's context.
const MaxResponseBytes = 1 << 20

// ErrTooLarge is returned by ReadBody for a body over MaxResponseBytes.
var ErrTooLarge = errors.New("response body too large")

// ReadBody reads resp's body, up to MaxResponseBytes, into one buffer sized
// from its Content-Length when it has one.
func ReadBody(resp *http.Response) ([]byte, error) {
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 && n <= MaxResponseBytes {
		buf.Grow(int(n) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, MaxResponseBytes+1)); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) > MaxResponseBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, MaxResponseBytes)
	}
	return b, nil
}

// Unreadable says, for a user, why ReadBody failed: "was too large (over 1
// MB)" or "was cut off".
func Unreadable(err error) string {
	if errors.Is(err, ErrTooLarge) {
		return fmt.Sprintf("was too large (over %d MB)", MaxResponseBytes>>20)
	}
	return "was cut off"
}
