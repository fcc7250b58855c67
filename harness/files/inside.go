package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is matched (errors.Is) by the error for a path that leads
// outside the folder it must stay in: by "..", by being absolute, or
// through a symlink.
var ErrOutside = errors.New("outside the folder it must stay in")

// OutsideError is a path that leads outside its folder.
type OutsideError struct {
	Path string // the path as given
	Dir  string // the folder it must stay in, absolute when Inside found it out
	To   string // where it leads, symlinks resolved
}

func (e *OutsideError) Error() string {
	if e.To != "" && e.To != e.Path {
		return fmt.Sprintf("%s leads outside %s (to %s)", e.Path, e.Dir, e.To)
	}
	return fmt.Sprintf("%s is outside %s", e.Path, e.Dir)
}

func (e *OutsideError) Is(target error) bool { return target == ErrOutside }

// Refusal is the one message for a path that leads outside its folder,
// what being how the user named it (`prices.file "p.json"`): where it
// leads, and how to fix it.
func (e *OutsideError) Refusal(what string) string {
	if e.To == "" {
		return fmt.Sprintf("%s is outside %s; give a path under %s", what, e.Dir, e.Dir)
	}
	return fmt.Sprintf("%s leads outside %s (to %s); keep it under %s, not behind a symlink out of it", what, e.Dir, e.To, e.Dir)
}

// Inside checks that path, once every symlink on it is resolved, is dir or
// lies under it, and returns where it leads. A path that does not exist
// yet (a folder a recording will create) is judged by the part of it that
// does. This is the one check of every path a suite names; ReadIn and
// DirFS hold to it while they read, so that a symlink swapped in after the
// check does not lead out either. The *OutsideError names dir absolute, so
// that a root given as "." reads as the folder it is.
func Inside(dir, path string) (string, error) {
	if strings.IndexByte(path, 0) >= 0 {
		// The system's own error ("invalid argument") would name it with
		// the byte raw, which a terminal shows as nothing.
		return "", fmt.Errorf("%q holds a NUL byte, which no file name can", path)
	}
	realDir, err := resolve(dir)
	if err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	real, err := resolve(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(realDir, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return real, &OutsideError{Path: path, Dir: dir, To: real}
	}
	return real, nil
}

// resolve is path absolute with every symlink resolved, as far as it
// exists; the rest is appended as written (cleaned).
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(p) == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// ReadIn is ReadRegular of name, a slash-separated path relative to dir,
// that refuses a name that leads outside dir (Inside), and reads through
// an os.Root of dir, which no symlink leads out of.
func ReadIn(dir, name string, limit int64) ([]byte, error) {
	path := filepath.Join(dir, filepath.FromSlash(name))
	if filepath.IsAbs(filepath.FromSlash(name)) {
		return nil, &OutsideError{Path: name, Dir: dir}
	}
	if _, err := Inside(dir, path); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	rel := filepath.FromSlash(name)
	st, err := root.Stat(rel)
	if err != nil {
		return nil, pathError(path, err)
	}
	if err := regular(path, st, limit); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, pathError(path, err)
	}
	defer f.Close()
	return readAll(path, f, limit)
}

// pathError is err of an os.Root call ("statat name: …") as an error of
// opening path, the file as the user knows it.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: "open", Path: path, Err: pe.Err}
	}
	return err
}

// DirFS is the files under dir, as os.DirFS, except that no path and no
// symlink leads outside dir (an os.Root), and that fs.ReadFile of it is
// ReadIn: a file that leads outside is an *OutsideError naming where it
// leads, not os.Root's "path escapes from parent". When dir cannot be
// opened, every call fails with that error.
func DirFS(dir string) fs.FS {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return os.DirFS(dir)
	}
	return dirFS{FS: root.FS(), dir: dir}
}

// dirFS is DirFS of dir: root.FS() of it, read with ReadIn.
type dirFS struct {
	fs.FS
	dir string
}

// ReadFile is ReadIn of name under the folder.
func (d dirFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return ReadIn(d.dir, name, MaxBytes)
}
