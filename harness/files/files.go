// Package files reads the files a user points testbed at, and writes the
// files testbed produces, safely: only regular files are read, never more
// than a limit, and every write is atomic, mode 0644.
package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxBytes is the largest file testbed reads: cassettes, suites, fixtures
// and reports are far smaller, and a bigger one is a mistake (a symlink to
// a device, a log file in the wrong folder).
const MaxBytes int64 = 1 << 30

// ErrNotRegular is returned for a path that is not a regular file (a named
// pipe, a device, a socket, a folder), which testbed does not read.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file over the size limit.
var ErrTooLarge = errors.New("file too large")

// Mode is the permission of every file testbed writes.
const Mode fs.FileMode = 0o644

// ReadRegular reads the regular file at path (following symlinks), at most
// limit bytes. Anything else is refused before it is opened for reading, so
// a named pipe cannot block and a device cannot fill memory; the error
// names the path and says what it is.
func ReadRegular(path string, limit int64) ([]byte, error) {
	if err := checkRegular(path, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(path, f, limit)
}

// readAll reads f, opened from path, to its end, at most limit bytes. The
// path may have been swapped since it was checked: what was opened is
// checked again.
func readAll(path string, f *os.File, limit int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(path, st, limit); err != nil {
		return nil, err
	}
	data := make([]byte, 0, st.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, tooLarge(path, int64(len(data)), limit)
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) { // the file grew while read
			data = append(data, 0)[:len(data)]
		}
	}
}

// checkRegular stats path and refuses what ReadRegular does not read.
func checkRegular(path string, limit int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return regular(path, st, limit)
}

func regular(path string, st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s); testbed reads only regular files", ErrNotRegular, kind(st.Mode()))}
	}
	if st.Size() > limit {
		return tooLarge(path, st.Size(), limit)
	}
	return nil
}

func tooLarge(path string, size, limit int64) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %s or more, over the %s limit", ErrTooLarge, human(size), human(limit))}
}

// kind names a file mode's type.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.Type().String()
}

// human formats a byte count: 1.0 GiB, 12 MiB, 300 B.
func human(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// WriteAtomic writes path through write: into a temporary file beside it
// (named "."+base+".*.tmp", which testbed's own scans skip), synced, mode
// Mode, then renamed over path. On any error path is left as it was and the
// temporary file removed.
func WriteAtomic(path string, write func(io.Writer) error) error {
	tmp, err := temp(path, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// temp writes a finished temporary file for path and returns its name.
func temp(path string, write func(io.Writer) error) (name string, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*"+TempSuffix)
	if err != nil {
		return "", err
	}
	return f.Name(), fill(f, write, os.Remove)
}

// fill writes f through write, mode Mode, synced and closed; on an error
// f is closed and removed (by remove, given f's name).
func fill(f *os.File, write func(io.Writer) error, remove func(string) error) (err error) {
	defer func() {
		if err != nil {
			f.Close()
			remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(Mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// TempSuffix ends the name of every temporary file testbed writes.
const TempSuffix = ".tmp"

// IsTemp reports whether a file name is one of testbed's temporaries (or a
// lock file): hidden, and skipped by every scan of a folder.
func IsTemp(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, ".") && (strings.HasSuffix(base, ".lock") || leftover(base))
}

// leftover reports whether base names a temporary a process killed while
// writing leaves behind (a lock file is not one: its holder may be alive).
func leftover(base string) bool {
	return strings.HasPrefix(base, ".") && (strings.HasSuffix(base, TempSuffix) ||
		strings.HasSuffix(base, ".recording") || strings.HasSuffix(base, ".recording.yaml"))
}

// RemoveLeftovers removes, under dir, the temporaries of writers that were
// killed, and returns their paths. Call it only while holding the lock that
// keeps other writers out of dir.
func RemoveLeftovers(dir string) ([]string, error) {
	var removed []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() || !leftover(d.Name()) {
			return err
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		removed = append(removed, path)
		return nil
	})
	return removed, err
}

// Set is files written together.
type Set map[string]func(io.Writer) error

// WriteSet writes every file of set atomically and as one: all are
// rendered to temporaries first, then renamed while holding an exclusive
// lock on dir/.<lock>.lock, so that two processes writing the same set leave
// all files from one of them, never a mix. On an error nothing is renamed.
func WriteSet(dir, lock string, set Set) error {
	tmps := map[string]string{}
	defer func() {
		for _, t := range tmps {
			os.Remove(t) // no-op once renamed
		}
	}()
	for name, write := range set {
		t, err := temp(filepath.Join(dir, name), write)
		if err != nil {
			return err
		}
		tmps[name] = t
	}
	unlock, err := lockDir(filepath.Join(dir, "."+lock+".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	for name, t := range tmps {
		if err := os.Rename(t, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}
