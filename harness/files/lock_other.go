//go:build !unix

package files

import "os"

// nonBlock is not needed where there are no FIFOs to block on.
const nonBlock = 0

// lockDir holds the lock file open; without flock, concurrent writers are
// not serialised.
func lockDir(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, Mode)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
