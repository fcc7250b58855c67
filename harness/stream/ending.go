package stream

import (
	"io"
	"sync"
)

// OnEnd returns body, handed on as it is read, that calls end once with
// all that was read when it ends: at io.EOF (with a nil error) or at
// another read error; closing it reads it to its end first. An error end
// returns is the body's last read error in place of io.EOF.
func OnEnd(body io.ReadCloser, end func(got []byte, err error) error) io.ReadCloser {
	return &ending{ReadCloser: body, end: end}
}

type ending struct {
	io.ReadCloser
	got  []byte
	end  func([]byte, error) error
	once sync.Once
}

func (b *ending) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.got = append(b.got, p[:n]...)
	if err != nil {
		rerr := err
		if err == io.EOF {
			rerr = nil
		}
		b.once.Do(func() {
			if eerr := b.end(b.got, rerr); eerr != nil {
				err = eerr
			}
		})
	}
	return n, err
}

// Close reads the rest first: a client that stops at the stream's last
// event still has the whole stream observed.
func (b *ending) Close() error {
	var buf [4 << 10]byte
	for {
		if _, err := b.Read(buf[:]); err != nil {
			break
		}
	}
	return b.ReadCloser.Close()
}
