package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"slices"
	"sync"
)

// Cache keeps what LoadOnce built, by a hash of kind, file names and
// contents, what BuildOnce built, by kind and key, and what Hold opened, by
// kind, for as long as its owner keeps it: the harness gives one to every
// agent of a run, so a run builds each knowledge base once and the next run
// starts afresh, and closes it when the run ends. It is safe for concurrent use; the zero value is empty and
// ready.
type Cache struct {
	built sync.Map // key → *memo
	held  sync.Map // kind → *memo, of Hold

	onceMu sync.Mutex
	once   map[uint64][]*onceEntry // of BuildOnce, by a hash of kind and key
}

// LoadOnce reads files from fsys and returns build(contents), building it at
// most once per cache for each kind and distinct set of file contents. It is
// for read-only indexes over an agent's data folder (knowledge bases): every
// agent of a run reads the same files, so the index is built once, not once
// per scenario. The result is shared, so build must return something no
// caller changes. A nil cache keeps nothing: every call builds. A read or
// build error is returned and not kept.
func LoadOnce[T any](cache *Cache, fsys fs.FS, kind string, files []string, build func(contents [][]byte) (T, error)) (T, error) {
	var zero T
	read := func() ([][]byte, error) {
		contents := make([][]byte, len(files))
		for i, f := range files {
			b, err := fs.ReadFile(fsys, f)
			if err != nil {
				return nil, err
			}
			contents[i] = b
		}
		return contents, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", kind)
	var contents [][]byte // read already, when fsys has no digests
	if summed, ok := fsys.(SumFS); ok && cache != nil {
		for _, f := range files {
			sum, n, err := summed.Sum(f)
			if err != nil {
				return zero, err
			}
			fmt.Fprintf(h, "%s\x00%d\x00", f, n)
			h.Write(sum[:])
		}
	} else {
		var err error
		if contents, err = read(); err != nil {
			return zero, err
		}
		if cache == nil {
			return build(contents)
		}
		for i, f := range files {
			sum := sha256.Sum256(contents[i])
			fmt.Fprintf(h, "%s\x00%d\x00", f, len(contents[i]))
			h.Write(sum[:])
		}
	}
	key := string(h.Sum(nil))
	// Scenarios start together: the first builds, the others wait for it.
	// Given digests, only that first one reads the files.
	c, _ := cache.built.LoadOrStore(key, &memo{})
	m := c.(*memo)
	m.once.Do(func() {
		if contents == nil {
			if contents, m.err = read(); m.err != nil {
				return
			}
		}
		m.v, m.err = build(contents)
	})
	if m.err != nil {
		cache.built.CompareAndDelete(key, m)
		return zero, m.err
	}
	return m.v.(T), nil
}

// BuildOnce returns build(), building it at most once per cache for each
// kind and distinct key (the parts told apart, not just joined). It is for
// what an agent makes from what every scenario of a run may be given alike,
// such as an upstream's answer replayed from the same recording in scenario
// after scenario: key holds everything build reads. The result is shared,
// so build must return something no caller changes. A nil cache keeps
// nothing: every call builds. A build error is returned and not kept.
//
// Keys are found by a hash and then compared byte for byte (the cache keeps
// a copy of each), which costs less than a cryptographic digest of answers
// of up to a megabyte.
func BuildOnce[T any](cache *Cache, kind string, build func() (T, error), key ...[]byte) (T, error) {
	if cache == nil {
		return build()
	}
	e := cache.onceEntry(kind, key)
	e.once.Do(func() { e.v, e.err = build() })
	if e.err != nil {
		cache.forget(e)
		var zero T
		return zero, e.err
	}
	return e.v.(T), nil
}

// onceEntry is one build of BuildOnce, with the kind and key it is for.
type onceEntry struct {
	memo
	hash uint64
	kind string
	key  [][]byte
}

// onceSeed seeds the hash of BuildOnce's keys; the hash only finds
// candidates, so its value never changes a result.
var onceSeed = maphash.MakeSeed()

// onceEntry returns c's entry for kind and key, adding one if there is none.
func (c *Cache) onceEntry(kind string, key [][]byte) *onceEntry {
	var h maphash.Hash
	h.SetSeed(onceSeed)
	h.WriteString(kind)
	for _, k := range key {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(k)))
		h.Write(n[:])
		h.Write(k)
	}
	sum := h.Sum64()
	c.onceMu.Lock()
	defer c.onceMu.Unlock()
	for _, e := range c.once[sum] {
		if e.kind == kind && slices.EqualFunc(e.key, key, bytes.Equal) {
			return e
		}
	}
	e := &onceEntry{hash: sum, kind: kind, key: make([][]byte, len(key))}
	for i, k := range key {
		e.key[i] = bytes.Clone(k)
	}
	if c.once == nil {
		c.once = map[uint64][]*onceEntry{}
	}
	c.once[sum] = append(c.once[sum], e)
	return e
}

// forget drops e, whose build failed, so that the next call builds again.
func (c *Cache) forget(e *onceEntry) {
	c.onceMu.Lock()
	defer c.onceMu.Unlock()
	c.once[e.hash] = slices.DeleteFunc(c.once[e.hash], func(x *onceEntry) bool { return x == e })
}

// memo is one build of LoadOnce or BuildOnce.
type memo struct {
	once sync.Once
	v    any
	err  error
}

// SumFS is a folder that knows a digest of each of its files, computed once
// (the runner's snapshot of a run's data folder is one). Given one, LoadOnce
// finds what it built from the digests instead of reading and hashing every
// file on every call. Sum returns the SHA-256 of name's contents and their
// length, or the error reading name would return.
type SumFS interface {
	fs.FS
	Sum(name string) (sum [sha256.Size]byte, size int, err error)
}

// Hold returns what open returns for kind, opening it at most once per
// cache, and keeps it open until the cache is closed (Close). It is for
// what every agent of a run shares and the run closes when it ends, such
// as the loopback proxy the agents outside testbed are reached through.
// A nil cache keeps nothing: every call opens afresh, and release closes
// what it opened; with a cache, release does nothing. An open error is
// returned and not kept.
func Hold[T io.Closer](cache *Cache, kind string, open func() (T, error)) (v T, release func(), err error) {
	if cache == nil {
		if v, err = open(); err != nil {
			return v, func() {}, err
		}
		return v, func() { v.Close() }, nil
	}
	c, _ := cache.held.LoadOrStore(kind, &memo{})
	m := c.(*memo)
	m.once.Do(func() { m.v, m.err = open() })
	if m.err != nil {
		cache.held.CompareAndDelete(kind, m)
		var zero T
		return zero, func() {}, m.err
	}
	return m.v.(T), func() {}, nil
}

// Close closes everything Hold opened in c and forgets it; a later Hold
// opens afresh. A nil cache has nothing to close.
func (c *Cache) Close() error {
	if c == nil {
		return nil
	}
	var errs []error
	c.held.Range(func(kind, v any) bool {
		m := v.(*memo)
		m.once.Do(func() {}) // wait for an open under way
		if closer, ok := m.v.(io.Closer); ok && m.err == nil {
			errs = append(errs, closer.Close())
		}
		c.held.Delete(kind)
		return true
	})
	return errors.Join(errs...)
}
