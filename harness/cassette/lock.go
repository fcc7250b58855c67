package cassette

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LockName is the file, in a suite's cassette folder, that a recording of
// that suite locks.
const LockName = ".record.lock"

// Lock is held by a recording for a folder of cassettes (one suite), so that
// two recordings never write the same cassettes at once. It is an exclusive
// flock(2) on <dir>/.record.lock, which holds the owner's pid: the kernel
// releases the lock when its process exits, however it exits, so a lock file
// left behind by a crash never blocks the next recording.
type Lock struct {
	path string
	f    *os.File
}

// LockedError says that another process holds a folder's lock.
type LockedError struct {
	Path  string // the lock file
	PID   int    // the holder's pid, 0 if it has not written it yet
	Since string // when the holder took it (RFC 3339), if known
}

func (e *LockedError) Error() string {
	holder := "another process"
	stop := "stop that process"
	if e.PID > 0 {
		holder = fmt.Sprintf("pid %d", e.PID)
		stop = fmt.Sprintf("stop it (kill %d)", e.PID)
		if e.Since != "" {
			holder += ", since " + e.Since
		}
	}
	return fmt.Sprintf("another recording holds %s (%s); wait for it to finish or %s. "+
		"The lock is released when its process exits; a lock file left by a crashed recording does not block and may be deleted",
		e.Path, holder, stop)
}

// ErrLocked matches a *LockedError with errors.Is.
var ErrLocked = errors.New("cassettes locked by another recording")

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// AcquireLock takes dir's lock without waiting, creating dir if needed. If
// another process holds it, the error is a *LockedError naming the lock
// file and the holder's pid.
func AcquireLock(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockName)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !held {
			data, _ := os.ReadFile(path)
			f.Close()
			e := &LockedError{Path: path}
			fields := strings.Fields(string(data))
			if len(fields) > 0 {
				e.PID, _ = strconv.Atoi(fields[0])
			}
			if len(fields) > 1 {
				e.Since = fields[1]
			}
			return nil, e
		}
		// The holder we waited on may have removed the file as it released
		// it; then we hold a lock on a file nobody else will open. Start over
		// on the file now at path.
		if same, err := samePath(f, path); err != nil || !same {
			f.Close()
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			continue
		}
		if err := f.Truncate(0); err == nil {
			fmt.Fprintf(f, "%d %s\n", os.Getpid(), time.Now().Format(time.RFC3339))
		}
		return &Lock{path: path, f: f}, nil
	}
}

// samePath reports whether path still names the open file f.
func samePath(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// Release removes the lock file and releases the lock. It may be called more
// than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Remove while still holding the lock, so that nobody takes a lock on
	// a file about to vanish without noticing (see AcquireLock).
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
