// Package codingstest encodes bodies with the HTTP content codings package
// codings undoes, as a server sends them, for specs.
package codingstest

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// Encode returns body encoded with coding: gzip, deflate (zlib-wrapped, as
// the standard says), "raw deflate" (without the wrapper, as some servers
// send it), br or zstd.
func Encode(coding string, body []byte) ([]byte, error) {
	var b bytes.Buffer
	var w io.WriteCloser
	var err error
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "deflate":
		w = zlib.NewWriter(&b)
	case "raw deflate":
		w, err = flate.NewWriter(&b, flate.DefaultCompression)
	case "br":
		w = brotli.NewWriter(&b)
	case "zstd":
		w, err = zstd.NewWriter(&b)
	default:
		return nil, fmt.Errorf("no content coding %q", coding)
	}
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
