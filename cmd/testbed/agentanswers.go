package main

import (
	"bytes"
	"io"
	"net/http"
	"sync"

	"github.com/agentreplay/testbed/harness/external"
)

// answers keeps the upstream answers of one run that the proxy named
// (external.ExchangeHeader) and the agent read to their end, so that a tool
// whose raw payload is one of them is reported by its name (raw_from)
// rather than with its bytes.
type answers struct {
	mu   sync.Mutex
	read []namedAnswer
}

type namedAnswer struct {
	name string
	body []byte
}

// nameOf returns the name of the latest answer whose body is raw, if any.
func (a *answers) nameOf(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.read) - 1; i >= 0; i-- {
		if bytes.Equal(a.read[i].body, raw) {
			return a.read[i].name, true
		}
	}
	return "", false
}

// answerWatch keeps, in seen, each named answer the agent reads whole.
type answerWatch struct {
	seen *answers
	next http.RoundTripper
}

func (w answerWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if name := resp.Header.Get(external.ExchangeHeader); name != "" {
		resp.Body = &teeAnswer{ReadCloser: resp.Body, name: name, seen: w.seen}
	}
	return resp, nil
}

// teeAnswer copies a named answer's body as the agent reads it, and keeps
// it once read to its end.
type teeAnswer struct {
	io.ReadCloser
	name string
	seen *answers
	buf  bytes.Buffer
	done bool
}

func (t *teeAnswer) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.buf.Write(p[:n])
	if err == io.EOF && !t.done {
		t.done = true
		t.seen.mu.Lock()
		t.seen.read = append(t.seen.read, namedAnswer{t.name, t.buf.Bytes()})
		t.seen.mu.Unlock()
	}
	return n, err
}
