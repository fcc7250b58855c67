package agents

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"sync"
)

// built holds what LoadOnce built, by a hash of kind, file names and contents.
var built sync.Map

// LoadOnce reads files from fsys and returns build(contents), building it at
// most once per process for each kind and distinct set of file contents. It is
// for read-only indexes over an agent's data folder (knowledge bases): every
// agent of a run reads the same files, so the index is built once, not once
// per scenario. The result is shared, so build must return something no
// caller changes. A read or build error is returned and not kept.
func LoadOnce[T any](fsys fs.FS, kind string, files []string, build func(contents [][]byte) (T, error)) (T, error) {
	var zero T
	contents := make([][]byte, len(files))
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", kind)
	for i, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return zero, err
		}
		contents[i] = b
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	key := string(h.Sum(nil))
	// Scenarios start together: the first builds, the others wait for it.
	c, _ := built.LoadOrStore(key, &memo{})
	m := c.(*memo)
	m.once.Do(func() { m.v, m.err = build(contents) })
	if m.err != nil {
		built.CompareAndDelete(key, m)
		return zero, m.err
	}
	return m.v.(T), nil
}

// memo is one build of LoadOnce.
type memo struct {
	once sync.Once
	v    any
	err  error
}
