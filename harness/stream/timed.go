package stream

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// Timed returns a transport that times the events of every event-stream
// response (or newline-delimited JSON, a line an event) next returns
// without OffsetsHeader: as the body is read, each
// event's arrival is stamped with its offset from the request's start, and
// once the body is read to its end the offsets are set in the response's
// header (go-vcr's recorder reads the whole body, then the header, so a
// recording keeps them). A stand-in's modelled offsets are left as they are.
func Timed(next http.RoundTripper) http.RoundTripper {
	return timed{next: next}
}

type timed struct{ next http.RoundTripper }

func (t timed) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	lines := err == nil && IsLines(resp.Header)
	if err != nil || !Is(resp.Header) && !lines || resp.Header.Get(OffsetsHeader) != "" {
		return resp, err
	}
	pr, pw := io.Pipe()
	body := &timedBody{ReadCloser: resp.Body, pw: pw, header: resp.Header, done: make(chan []time.Duration, 1)}
	go func() {
		// The decoder reads what the agent's side has read, as it arrives.
		var offsets []time.Duration
		if lines {
			sc := bufio.NewScanner(pr)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				if len(bytes.TrimSpace(sc.Bytes())) > 0 {
					offsets = append(offsets, time.Since(start))
				}
			}
		} else {
			d := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr})
			for d.Next() {
				offsets = append(offsets, time.Since(start))
			}
		}
		io.Copy(io.Discard, pr)
		body.done <- offsets
	}()
	resp.Body = body
	return resp, nil
}

// timedBody copies what is read into the decoder's pipe and, at the end,
// sets the offsets it stamped.
type timedBody struct {
	io.ReadCloser
	pw     *io.PipeWriter
	header http.Header
	done   chan []time.Duration
	ended  bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.pw.Write(p[:n])
	}
	if err == io.EOF && !b.ended {
		b.ended = true
		// A last event without its closing blank line still counts.
		b.pw.Write([]byte("\n\n"))
		b.pw.Close()
		SetOffsets(b.header, <-b.done)
	}
	return n, err
}

func (b *timedBody) Close() error {
	if !b.ended {
		b.ended = true
		b.pw.CloseWithError(io.ErrUnexpectedEOF)
		<-b.done
	}
	return b.ReadCloser.Close()
}
