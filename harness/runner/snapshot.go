package runner

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"slices"
	"sync"

	"github.com/agentreplay/testbed/harness/files"
)

// snapshot is a folder as the scenarios of one run see it: each file is read
// and each directory listed at most once, then every scenario gets its own
// copy. A knowledge base that a hundred scenarios load costs one read of each
// file, not a hundred (a file read is about nine system calls). A failed read
// is kept too, so every scenario of the run sees the same folder.
type snapshot struct {
	dir   string
	fsys  fs.FS
	mu    sync.Mutex
	files map[string]*read[[]byte]
	dirs  map[string]*read[[]fs.DirEntry]
	sums  map[string]*read[digest]
}

// digest is a file's SHA-256 and length.
type digest struct {
	sum  [sha256.Size]byte
	size int
}

// read is the result of one read, made once.
type read[T any] struct {
	once sync.Once
	val  T
	err  error
}

// Snapshot returns a snapshot of dir, or nil when dir does not exist: a
// folder as the scenarios of one run see it (see snapshot). A program that
// serves several runs of one testbed run (testbed agent, kept alive for
// its variant) gives them one snapshot too.
func Snapshot(dir string) fs.FS {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	return &snapshot{dir: dir, fsys: files.DirFS(dir), files: map[string]*read[[]byte]{}, dirs: map[string]*read[[]fs.DirEntry]{}, sums: map[string]*read[digest]{}}
}

// once returns m's entry for name, made by f the first time it is asked for.
func once[T any](mu *sync.Mutex, m map[string]*read[T], name string, f func(string) (T, error)) (T, error) {
	mu.Lock()
	r := m[name]
	if r == nil {
		r = &read[T]{}
		m[name] = r
	}
	mu.Unlock()
	r.once.Do(func() { r.val, r.err = f(name) })
	return r.val, r.err
}

// Open opens name in the folder itself; only ReadFile and ReadDir are kept.
func (s *snapshot) Open(name string) (fs.File, error) { return s.fsys.Open(name) }

// Stat is fs.Stat in the folder itself.
func (s *snapshot) Stat(name string) (fs.FileInfo, error) { return fs.Stat(s.fsys, name) }

// ReadFile returns a copy of name's contents as first read in this run. Only
// regular files up to files.MaxBytes are read: a fixture that is a named
// pipe or a device is an error naming it, not a hang; one that leads out of
// the folder (a symlink to /etc/hostname) is files.ErrOutside.
func (s *snapshot) ReadFile(name string) ([]byte, error) {
	b, err := s.contents(name)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// contents is name's contents as first read in this run, not copied.
func (s *snapshot) contents(name string) ([]byte, error) {
	return once(&s.mu, s.files, name, func(name string) ([]byte, error) {
		if !fs.ValidPath(name) {
			return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
		}
		return files.ReadIn(s.dir, name, files.MaxBytes)
	})
}

// Sum is the SHA-256 and length of name's contents as ReadFile returns them,
// computed once per run (agents.SumFS): an agent that looks up what it built
// from a large file (the family agent's Vega-Lite schema, 1.9 MB) neither
// copies nor hashes the file again on each call.
func (s *snapshot) Sum(name string) ([sha256.Size]byte, int, error) {
	d, err := once(&s.mu, s.sums, name, func(name string) (digest, error) {
		b, err := s.contents(name)
		if err != nil {
			return digest{}, err
		}
		return digest{sha256.Sum256(b), len(b)}, nil
	})
	return d.sum, d.size, err
}

// ReadDir returns a copy of name's entries as first listed in this run.
func (s *snapshot) ReadDir(name string) ([]fs.DirEntry, error) {
	d, err := once(&s.mu, s.dirs, name, func(name string) ([]fs.DirEntry, error) { return fs.ReadDir(s.fsys, name) })
	if err != nil {
		return nil, err
	}
	return slices.Clone(d), nil
}
