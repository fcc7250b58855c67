package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// lines are where a price table's rows, and each row's keys, are written:
// what a problem in the file is reported at.
type lines struct {
	data []byte
	rows map[string]int
	keys map[[2]string]int
}

// problem is one problem of a price table, at its line.
type problem struct {
	line int
	text string
}

// scanLines walks data, a JSON object of objects, for the line of each row
// and of each key in a row; it stops where data is not such an object,
// which the decoder reports.
func scanLines(data []byte) lines {
	l := lines{data: data, rows: map[string]int{}, keys: map[[2]string]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return l
	}
	for dec.More() {
		name, ok := nextKey(dec)
		if !ok {
			return l
		}
		l.rows[name] = l.line(dec.InputOffset())
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return l
		}
		base := dec.InputOffset() - int64(len(raw))
		row := json.NewDecoder(bytes.NewReader(raw))
		if t, err := row.Token(); err != nil || t != json.Delim('{') {
			continue
		}
		for row.More() {
			k, ok := nextKey(row)
			var skip json.RawMessage
			if !ok || row.Decode(&skip) != nil {
				break
			}
			l.keys[[2]string{name, k}] = l.line(base + row.InputOffset() - int64(len(skip)))
		}
	}
	return l
}

// nextKey reads an object's next key.
func nextKey(dec *json.Decoder) (string, bool) {
	t, err := dec.Token()
	s, ok := t.(string)
	return s, err == nil && ok
}

// line is the 1-based line of byte offset off.
func (l lines) line(off int64) int {
	off = min(max(off, 0), int64(len(l.data)))
	return 1 + bytes.Count(l.data[:off], []byte("\n"))
}

// row is the line of row name.
func (l lines) row(name string) int { return l.rows[name] }

// key is the line of key k in row name, the row's when it is not found.
func (l lines) key(name, k string) int {
	if n, ok := l.keys[[2]string{name, k}]; ok {
		return n
	}
	return l.row(name)
}

// errLine is the line a JSON decoding error is at (the last, for a file
// cut short), 0 when it does not say.
func (l lines) errLine(err error) int {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return l.line(int64(len(l.data)))
	case errors.As(err, &syn):
		return l.line(syn.Offset)
	case errors.As(err, &typ):
		return l.line(typ.Offset)
	}
	return 0
}
