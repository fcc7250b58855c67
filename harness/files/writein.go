package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// WriteAtomicIn is WriteAtomic of path, which must lie under dir, done
// through an os.Root of dir: the folders it makes, the temporary file and
// the rename stay under dir even when a symlink out of it is swapped in
// on the way while it writes (by an agent that runs in the project, say).
// A path that leads outside dir when it starts is an *OutsideError; one
// swapped out after that fails as os.Root fails it, and either way
// nothing is written outside dir and path is left as it was.
func WriteAtomicIn(dir, path string, write func(io.Writer) error) error {
	if _, err := Inside(dir, path); err != nil {
		return err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	absPath, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(absDir, absPath)
	if err != nil || !filepath.IsLocal(rel) {
		return &OutsideError{Path: path, Dir: absDir}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	var f *os.File
	var tmp string
	for range 100 {
		tmp = filepath.Join(filepath.Dir(rel), fmt.Sprintf(".%s.%d%s", filepath.Base(rel), rand.Uint32(), TempSuffix))
		if f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	// f's name is the root's joined with tmp: removed by tmp, in the root.
	if err := fill(f, write, func(string) error { return root.Remove(tmp) }); err != nil {
		return err
	}
	if err := root.Rename(tmp, rel); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// RemoveIn removes path, which must lie under dir, through an os.Root of
// dir: a symlink out of dir on the way leads the removal nowhere.
func RemoveIn(dir, path string) error {
	rel, err := filepath.Rel(dir, path)
	if err != nil || !filepath.IsLocal(rel) {
		return &OutsideError{Path: path, Dir: dir}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.Remove(rel)
}
