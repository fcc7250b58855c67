package external

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// maxInflated bounds what an encoded body may decode to before it is read
// as traffic; a larger one is read as it came.
const maxInflated = 256 << 20

// inflated is body decoded as its Content-Encoding says it was encoded
// (gzip, deflate, br or zstd, several in the order they were applied):
// what the program's HTTP client reads, and what testbed reads as traffic
// (a model's answer, an upstream's payload). A body that is not encoded,
// whose coding testbed does not know, or that does not decode whole, is
// returned as it came.
func inflated(h http.Header, body []byte) []byte {
	codings := h.Values("Content-Encoding")
	if len(codings) == 0 {
		return body
	}
	var steps []string
	for _, v := range codings {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				steps = append(steps, c)
			}
		}
	}
	out := body
	for i := len(steps) - 1; i >= 0; i-- {
		next, ok := decodeOne(steps[i], out)
		if !ok {
			return body
		}
		out = next
	}
	return out
}

// decodeOne undoes one content coding.
func decodeOne(coding string, b []byte) ([]byte, bool) {
	var r io.Reader
	switch coding {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false
		}
		r = zr
	case "deflate":
		// zlib-wrapped, as the RFC says; some servers send it raw.
		if zr, err := zlib.NewReader(bytes.NewReader(b)); err == nil {
			r = zr
		} else {
			r = flate.NewReader(bytes.NewReader(b))
		}
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, false
		}
		defer zr.Close()
		r = zr
	default:
		return nil, false
	}
	out, err := io.ReadAll(io.LimitReader(r, maxInflated+1))
	if err != nil || len(out) > maxInflated {
		return nil, false
	}
	return out, true
}
