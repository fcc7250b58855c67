//go:build unix

package files

import (
	"errors"
	"os"
	"syscall"
)

// nonBlock opens without waiting (a FIFO swapped in after the check).
const nonBlock = syscall.O_NONBLOCK

// lockDir takes an exclusive flock on path, waiting for it.
func lockDir(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, Mode)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
	}
}
