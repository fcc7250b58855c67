package stream

import (
	"io"
	"sync"
)

// OnEnd returns body, handed on as it is read, that calls end once with
// all that was read when it ends: at io.EOF (with a nil error), at another
// read error, or when closed before its end (io.ErrUnexpectedEOF). An
// error end returns is the body's last read error in place of io.EOF.
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

func (b *ending) Close() error {
	b.once.Do(func() { b.end(b.got, io.ErrUnexpectedEOF) })
	return b.ReadCloser.Close()
}
