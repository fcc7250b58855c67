// Package codings undoes the HTTP content codings a body is sent with
// (gzip, deflate, br, zstd), as a client reads it: the traffic scorer reads
// what an agent's HTTP client read, and the secret scan what a compressed
// body a cassette keeps holds.
package codings

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// ErrTooLarge is a body that decodes to more than the limit given.
var ErrTooLarge = errors.New("decodes to more than the limit")

// Undo decodes b, encoded with coding (a Content-Encoding token: gzip,
// x-gzip, deflate, br or zstd), whole, to at most limit bytes.
func Undo(coding string, b []byte, limit int) ([]byte, error) {
	r, done, err := reader(coding, b)
	if err != nil {
		return nil, err
	}
	defer done()
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	switch {
	case err != nil:
		return nil, err
	case len(out) > limit:
		return nil, ErrTooLarge
	}
	return out, nil
}

// reader reads b decoded from coding; done releases it.
func reader(coding string, b []byte) (r io.Reader, done func(), err error) {
	done = func() {}
	switch strings.ToLower(coding) {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(b))
	case "deflate":
		// zlib-wrapped, as the RFC says; some servers send it raw.
		if r, err = zlib.NewReader(bytes.NewReader(b)); err != nil {
			r, err = flate.NewReader(bytes.NewReader(b)), nil
		}
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "zstd":
		var zr *zstd.Decoder
		if zr, err = zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1)); err == nil {
			r, done = zr, zr.Close
		}
	default:
		err = fmt.Errorf("unknown content coding %q", coding)
	}
	return r, done, err
}

// Body is body decoded as the Content-Encoding of h says it was encoded
// (several codings in the order they were applied), to at most limit
// bytes, and whether it was. A body that is not encoded, whose coding is
// not one of Undo's, or that does not decode whole is returned as it came.
func Body(h http.Header, body []byte, limit int) ([]byte, bool) {
	var steps []string
	for _, v := range h.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				steps = append(steps, c)
			}
		}
	}
	if len(steps) == 0 {
		return body, false
	}
	out := body
	for i := len(steps) - 1; i >= 0; i-- {
		next, err := Undo(steps[i], out, limit)
		if err != nil {
			return body, false
		}
		out = next
	}
	return out, true
}

// Sniff decodes b when its first bytes say it is gzip or zstd, and
// returns the coding it undid ("" when none). With brotli, which has no
// mark of its own, it also tries br on anything else: only for bytes
// known to be a body (a cassette's binary one), not every run of base64.
// What a cut-off or over-long body decodes to is kept, up to limit bytes,
// so that its text can still be read.
func Sniff(b []byte, limit int, brotli bool) ([]byte, string) {
	var coding string
	switch {
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		coding = "gzip"
	case bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		coding = "zstd"
	case brotli:
		coding = "br"
	default:
		return b, ""
	}
	r, done, err := reader(coding, b)
	if err != nil {
		return b, ""
	}
	defer done()
	out, _ := io.ReadAll(io.LimitReader(r, int64(limit)))
	if len(out) == 0 {
		return b, ""
	}
	return out, coding
}
