// Package attach stores attachments and decides how each reaches a model's context.
//
// A tool may return a file (a JSON history, a CSV export, a picture) next to
// its text. Store keeps such files by id; Inject renders the message that puts
// one into the model's context, and the framework, never the model, picks the
// rendering from the MIME type, the size and a Mode:
//
//   - JSON, CSV and other text up to Threshold go in whole;
//   - larger JSON goes in as its inferred JSON Schema (package schema), so the
//     model learns the shape and queries the values with the jq_query tool;
//   - larger CSV goes in as its columns, their types, the row count and a few rows;
//   - larger other text goes in as its line count and first lines;
//   - anything else (images, binary) is announced in one line.
//
// ModePlaceholder keeps the behaviour the schema injection replaced, where a
// large file reached the model as "Binary content not accessible to model"
// and the model, seeing neither shape nor data, did nothing; ModeInline puts
// every text file in whole, whatever its size. Suites use them to replay both
// sides of that fix.
//
// Separately, a tool result of LargeResultThreshold or more is meant to be
// saved as an attachment and replaced by Notice.
//
// The package neither sniffs content types (the MIME type given is trusted,
// and a JSON file that does not parse is shown as text), nor runs jq, nor
// keeps anything beyond the life of a Store. Every text it returns is valid
// UTF-8: invalid bytes are replaced by U+FFFD.
package attach

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Attachment is one stored file.
type Attachment struct {
	ID          string // "att-1", "att-2", … as given by Store.Put
	Name        string // file name, as the tool gave it
	MIME        string // media type, possibly with parameters ("application/json; charset=utf-8")
	Description string // what the file holds, in the tool's words; may be empty
	Data        []byte

	// memo is what has been worked out from Data, shared by every copy of
	// an attachment Store.Put returned; nil for an attachment made by hand.
	memo *memo
}

// memo holds, for one stored attachment, its JSON value and its renderings,
// each made at most once: a conversation injects an attachment again on
// every profile that receives it and queries it again on every jq_query.
type memo struct {
	parse    sync.Once
	value    any
	parseErr error

	check sync.Once
	valid bool // Data is valid JSON, as json.Valid says

	mu       sync.Mutex
	rendered map[Mode]string
}

// Value returns a's data parsed as JSON (encoding/json's Unmarshal into an
// any: objects as map[string]any, numbers as float64), or the parse error.
// A stored attachment is parsed once; the value is shared, so callers must
// not modify it.
func (a Attachment) Value() (any, error) {
	if a.memo == nil {
		return decode(a.Data)
	}
	m := a.memo
	m.parse.Do(func() { m.value, m.parseErr = decode(a.Data) })
	return m.value, m.parseErr
}

// decode is json.Unmarshal into an any.
func decode(data []byte) (any, error) {
	var v any
	err := json.Unmarshal(data, &v)
	return v, err
}

// ValidJSON reports whether a's data is valid JSON, as json.Valid does,
// working it out at most once per stored attachment.
func (a Attachment) ValidJSON() bool {
	if a.memo == nil {
		return json.Valid(a.Data)
	}
	m := a.memo
	m.check.Do(func() { m.valid = json.Valid(a.Data) })
	return m.valid
}

// Size is the length of a's data in bytes.
func (a Attachment) Size() int { return len(a.Data) }

// Store holds attachments by id; ids are "att-1", "att-2", … in order of Put.
// A Store is safe for concurrent use. The zero value is not usable: use NewStore.
type Store struct {
	mu   sync.Mutex
	list []Attachment
	byID map[string]int
}

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{byID: map[string]int{}}
}

// Put stores a copy of data under the next id and returns the attachment.
func (s *Store) Put(name, mime, description string, data []byte) Attachment {
	return s.put(Attachment{Name: name, MIME: mime, Description: description, Data: append([]byte(nil), data...), memo: &memo{}})
}

// PutValue is Put for data its caller has the JSON value of: value must
// be what Value would parse data to (json.Unmarshal into an any), and is
// kept as that, so data is not parsed again. The value is shared: the
// caller must not modify it afterwards.
func (s *Store) PutValue(name, mime, description string, data []byte, value any) Attachment {
	m := &memo{}
	m.parse.Do(func() { m.value = value })
	return s.put(Attachment{Name: name, MIME: mime, Description: description, Data: append([]byte(nil), data...), memo: m})
}

// PutResult stores a tool's text result: as application/json when it is
// valid JSON, else as text/plain.
func (s *Store) PutResult(name, description, text string) Attachment {
	a := Attachment{Name: name, MIME: "text/plain", Description: description, Data: []byte(text), memo: &memo{}}
	if a.ValidJSON() {
		a.MIME = "application/json"
	}
	return s.put(a)
}

// put stores a under the next id and returns it with that id.
func (s *Store) put(a Attachment) Attachment {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.ID = fmt.Sprintf("att-%d", len(s.list)+1)
	s.byID[a.ID] = len(s.list)
	s.list = append(s.list, a)
	return a
}

// Get returns the attachment with the given id, and whether there is one.
// Its Data is the stored copy: callers must not modify it.
func (s *Store) Get(id string) (Attachment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return Attachment{}, false
	}
	return s.list[i], true
}

// All returns every attachment in order of Put. Their Data are the stored
// copies: callers must not modify them.
func (s *Store) All() []Attachment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Attachment(nil), s.list...)
}
